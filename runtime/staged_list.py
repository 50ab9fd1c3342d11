"""A Python list that a graph loop appends to: ``out = []``, ``out.append(v)`` in the loop.

A graph traces a loop body once, so a real Python list would get one element, not one per
iteration. Converted loops therefore carry such a list as a ``StagedList``: a growing
``rt.TensorArray`` underneath, with the list operations code uses after the loop
(``rt.stack(out)``, ``rt.concat(out, 0)``, ``out[i]``, ``len(out)`` in converted code,
iterating it in a converted ``for``). When a graph returns one, the caller gets a Python list
of tensors, as the plain function would give.
"""

from __future__ import annotations

from typing import Hashable, Sequence

from runtime import nest
from runtime.errors import OperatorNotAllowedInGraphError
from runtime.ops.array_ops import reshape, shape, stack, transpose
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import greater
from runtime.tensor import EagerTensor, Tensor
from runtime.tensor_array import TensorArray


class StagedList(nest.Composite):
    """The elements appended so far, all of one dtype and shape, in a graph value."""

    __slots__ = ("_array",)
    component_names = TensorArray.component_names

    def __init__(self, array: TensorArray):
        self._array = array

    @classmethod
    def of(cls, items: Sequence, dtype, element_shape) -> "StagedList":
        """A staged list of elements of ``dtype`` and ``element_shape``, holding ``items``."""
        staged = cls(TensorArray(dtype, size=0, dynamic_size=True, element_shape=element_shape))
        for item in items:
            staged.append(item)
        return staged

    def append(self, value) -> None:
        """Adds ``value`` at the end (it must have the dtype and shape of the others)."""
        self._array = self._array.write(self._array.size(), value)

    def size(self) -> Tensor:
        """The number of elements, as a scalar int32 tensor."""
        return self._array.size()

    def stacked(self, axis: int = 0) -> Tensor:
        """The elements stacked along a new ``axis`` (what ``rt.stack(list, axis)`` gives);
        an empty list is an error when the graph runs, as ``rt.stack([])`` is."""
        assert_(greater(self.size(), 0), "stack: needs at least one tensor, but the list grown "
                "in the graph loop is empty (the loop appended nothing).")
        result = self._array.stack()
        if axis == 0:
            return result
        rank = len(result.shape) if result.shape is not None else None
        if rank is None:
            raise ValueError(f"stack of a list grown in a graph loop along axis {axis} needs the "
                             f"rank of its elements; stack along axis 0, or give the elements a "
                             f"known shape.")
        axis = axis + rank if axis < 0 else axis
        order = list(range(1, axis + 1)) + [0] + list(range(axis + 1, rank))
        return transpose(result, order)

    def concatenated(self, axis: int = 0) -> Tensor:
        """The elements joined along their ``axis`` (what ``rt.concat(list, axis)`` gives)."""
        stacked = self.stacked(axis)
        dims = shape(stacked)
        rank = len(stacked.shape)
        axis = axis + rank - 1 if axis < 0 else axis
        merged = [dims[i] for i in range(axis)] + [dims[axis] * dims[axis + 1]] + \
                 [dims[i] for i in range(axis + 2, rank)]
        return reshape(stacked, stack(merged))

    def _read_value_for_op(self) -> Tensor:
        """As an op's input, the list is its elements stacked (as a Python list would convert)."""
        return self.stacked()

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.stacked()[index]
        if isinstance(index, int) and index < 0:
            index = self.size() + index
        return self._array.read(index)

    def __len__(self) -> int:
        raise OperatorNotAllowedInGraphError(
            "len() of a list grown in a graph loop is only known when the graph runs. In a "
            "function converted with transpiler.function, len(out) gives it as a tensor; "
            "otherwise use rt.size(rt.stack(out)) or rt.shape(rt.stack(out))[0].")

    def __iter__(self):
        raise OperatorNotAllowedInGraphError(
            "iterating over a list grown in a graph loop needs a graph loop: do it with a `for` "
            "statement in a function converted with transpiler.function, or iterate over "
            "rt.stack(out).")

    # -- nest.Composite -------------------------------------------------------------------

    def components(self) -> tuple:
        return self._array.components()

    def with_components(self, components: Sequence):
        """A staged list around ``components``; once they are values (a graph returned it), the
        Python list of tensors the plain function would have built."""
        array = self._array.with_components(components)
        if all(type(c) is EagerTensor for c in components):
            return list(array.stack()) if int(array.size()) else []
        return StagedList(array)

    def static_key(self) -> Hashable:
        return ("staged list",) + tuple(self._array.static_key())

    def loop_invariants(self) -> tuple:
        return self._array.loop_invariants()

    def describe_static(self) -> str:
        return f"list grown in a loop of {self._array.describe_static()}"

    def __repr__(self) -> str:
        return f"<list grown in a graph loop, of {self._array.dtype.name} elements of shape " \
               f"{self._array.element_shape}>"
