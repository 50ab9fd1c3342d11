"""``rt.TensorArray``: a list of same-shaped tensors that loops fill in, eagerly and in graphs.

A TensorArray is a value, not a container: ``write`` returns a new array and leaves the old
one as it was. That is what lets it be a loop variable of ``rt.while_loop`` (and of converted
``for`` loops) and an output of ``rt.cond``: it is a ``nest.Composite`` of three tensors
(``buffer``, ``size``, ``filled``; see ``runtime.ops.tensor_array_ops``, which also explains
why writes in index order cost O(1) although no array ever changes).

As a loop variable, the buffer of a ``dynamic_size`` array may change its leading dimension
and a buffer not yet allocated its rank (``loop_invariants`` tells ``rt.while_loop``).

With ``clear_after_read=True`` (the default of ``tf.TensorArray``, as in TensorFlow; the
runtime's own arrays keep their elements), a read outside traced functions also clears the
element, as TensorFlow's eager arrays do: the array remembers which elements were read, so a
second read raises and ``stack``, ``gather`` and ``concat`` see zeros there until a write.
Inside a traced function reads never clear, as in TensorFlow's ``tf.function``.
"""

from __future__ import annotations

from typing import Hashable, Sequence

import numpy as np

from runtime import dtypes, nest, tracing
from runtime.errors import InvalidArgumentError, ShapeError
from runtime.ops.array_ops import cast, constant, convert_to_tensor, zeros
from runtime.ops.dispatch import apply_op, constant_value
from runtime.ops.scatter_ops import tensor_scatter_nd_update
from runtime.ops.tensor_array_ops import (CONCAT, GATHER, NEW, READ, SCALAR_UNSTACK, STACK,
                                          UNSTACK, WRITE, element_of, int32, merge_shapes)
from runtime.tensor import Shape, Tensor, TensorSpec, format_shape, shapes_compatible


_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def _widens(number: np.dtype, dtype: np.dtype) -> bool:
    """Whether casting a tensor standing for Python numbers to ``dtype`` loses nothing that a
    cast could hide: never narrower integers, never signed to unsigned."""
    return np.promote_types(number, dtype) == dtype or (number.kind in "biu" and dtype.kind in "fc")


# -- the TensorArray value -----------------------------------------------------------------


class TensorArray(nest.Composite):
    """A list of tensors of one dtype and shape, written by index; ``write`` returns a new array.

    Args:
        dtype: the dtype of every element.
        size: the number of elements (an int or an integer scalar tensor).
        dynamic_size: if True, writing past the end grows the array; otherwise it is an error.
        element_shape: the shape of every element, ``None`` dims allowed; without it, the
            first write decides.
        clear_after_read: whether a read outside traced functions clears the element (see
            the module docstring); None: the class's default (``_clears_by_default``).
        infer_shape, tensor_array_name, colocate_with_first_write_call, name: TensorFlow's,
            accepted for its programs and unused: the first write decides the shape.

    Elements never written read as zeros once the element shape is known. In a graph the
    array can be a loop variable or a ``cond`` output::

        ta = rt.TensorArray(rt.float32, size=n)
        for i in range(n):          # in a converted function, with n a tensor
            ta = ta.write(i, x * i)
        return ta.stack()
    """

    # _cleared: the indices an eager read cleared (and no write has filled again).
    __slots__ = ("_dtype", "_dynamic_size", "_declared_shape", "_clear_after_read", "_buffer",
                 "_size", "_filled", "_cleared")
    component_names = ("buffer", "size", "filled")
    _clears_by_default = False

    def __init__(self, dtype, size=0, dynamic_size: bool = False, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None or flow is not None:
            raise TypeError("TensorArray(handle=, flow=) wraps TensorFlow's own tensor array "
                            "handles, which eager2graph does not have; make a TensorArray from "
                            "a dtype and size.")
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._declared_shape = _as_element_shape(element_shape)
        self._clear_after_read = (self._clears_by_default if clear_after_read is None
                                  else bool(clear_after_read))
        self._cleared = frozenset()
        full = self._declared_shape
        if full is not None and None in full:
            full = None
        self._size = _as_size(size)
        self._filled = constant(int32(0))
        self._buffer = apply_op(NEW, (self._size,), {"dtype": self._dtype, "element_shape": full})

    # -- static information ---------------------------------------------------------------

    @property
    def dtype(self) -> np.dtype:
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self) -> Shape | None:
        """The shape of every element as far as it is known (``None``: unknown rank)."""
        return merge_shapes(self._declared_shape, element_of(self._buffer.shape))

    # -- nest.Composite -------------------------------------------------------------------

    def components(self) -> tuple:
        return (self._buffer, self._size, self._filled)

    def with_components(self, components: Sequence) -> "TensorArray":
        array = object.__new__(type(self))
        array._dtype, array._dynamic_size = self._dtype, self._dynamic_size
        array._declared_shape = self._declared_shape
        array._clear_after_read, array._cleared = self._clear_after_read, frozenset()
        array._buffer, array._size, array._filled = components
        return array

    def static_key(self) -> Hashable:
        return (self._dtype, self._dynamic_size, self._declared_shape)

    def loop_invariants(self) -> tuple:
        """A dynamic-size buffer may grow and a buffer not yet allocated gets its rank in a
        loop; the counts are scalars and a fixed-size, allocated buffer keeps its shape."""
        shape = self._buffer.shape
        if not shape:
            buffer = TensorSpec(None, self._dtype)
        elif self._dynamic_size:
            buffer = TensorSpec((None,) + shape[1:], self._dtype)
        else:
            buffer = None
        return (buffer, None, None)

    def describe_static(self) -> str:
        parts = [self._dtype.name]
        if self._dynamic_size:
            parts.append("dynamic_size=True")
        if self._declared_shape is not None:
            parts.append(f"element_shape={format_shape(self._declared_shape)}")
        return ", ".join(parts)

    # -- reading and writing --------------------------------------------------------------

    def write(self, index, value) -> "TensorArray":
        """A new array with ``value`` at ``index`` (growing it if ``dynamic_size``)."""
        value = self._element("write", value)
        element = self.element_shape
        if not shapes_compatible(element, value.shape):
            raise ShapeError(
                f"TensorArray.write: the value has shape {format_shape(value.shape)}, but the "
                f"elements of this TensorArray have shape {format_shape(element)}. All elements "
                f"of a TensorArray have one shape; reshape the value or create the array with "
                f"another element_shape.")
        index = _as_index("write", index)
        array = self.with_components(
            apply_op(WRITE, self._operands() + (index, value), {"dynamic": self._dynamic_size}))
        if self._cleared and not tracing.is_tracing():
            array._cleared = self._cleared - {_known_index(index)}
        return array

    def read(self, index) -> Tensor:
        """The element at ``index`` (zeros if it was never written); outside traced functions
        it is cleared (see the module docstring)."""
        index = _as_index("read", index)
        clears = self._clear_after_read and not tracing.is_tracing()
        known = _known_index(index) if clears or self._cleared else None
        if known in self._cleared:
            raise InvalidArgumentError(
                f"TensorArray.read: element {known} was read before, and a read clears it (the "
                f"default, clear_after_read=True, as in TensorFlow). Keep the tensor the first "
                f"read returned, or create the array with clear_after_read=False.")
        element = apply_op(READ, self._operands() + (index,))
        if clears:
            self._cleared |= {known}
        return element

    def stack(self) -> Tensor:
        """All elements stacked along a new first axis: shape ``[size, *element_shape]``."""
        return apply_op(STACK, self._readable_operands())

    def gather(self, indices) -> Tensor:
        """The elements at ``indices``, stacked: shape ``[len(indices), *element_shape]``."""
        indices = convert_to_tensor(indices)
        if indices.dtype.kind not in "iu":
            raise TypeError(f"TensorArray.gather: the indices must be integers, got "
                            f"{indices.dtype.name}; cast them with rt.cast.")
        return apply_op(GATHER, self._readable_operands() + (indices,))

    def concat(self) -> Tensor:
        """All elements joined along their first axis (they need rank 1 or more)."""
        return apply_op(CONCAT, self._readable_operands())

    def unstack(self, value) -> "TensorArray":
        """A new array whose elements are ``value[0], value[1], ...``."""
        value = self._element("unstack", value)
        if value.shape == ():
            raise ShapeError(SCALAR_UNSTACK)
        element = self.element_shape
        if value.shape is not None and not shapes_compatible(element, value.shape[1:]):
            raise ShapeError(
                f"TensorArray.unstack: the value has shape {format_shape(value.shape)}, so its "
                f"elements have shape {format_shape(value.shape[1:])}, but the elements of this "
                f"TensorArray have shape {format_shape(element)}.")
        return self.with_components(
            apply_op(UNSTACK, (value, self.size()), {"dynamic": self._dynamic_size}))

    def size(self) -> Tensor:
        """The number of elements, an int32 scalar (a constant when known while tracing)."""
        shape = self._buffer.shape
        if not self._dynamic_size and shape and shape[0] is not None:  # exactly ``size`` rows
            return constant(int32(shape[0]))
        return self._size

    def _operands(self) -> tuple:
        """The components as op inputs, with the size as a constant when it is known: the
        ops' static shapes come from it (a dynamic buffer's static row count is its capacity)."""
        return (self._buffer, self.size(), self._filled)

    def _readable_operands(self) -> tuple:
        """``_operands``, with zeros in the buffer's rows that eager reads cleared."""
        buffer, size, filled = self._operands()
        if not self._cleared:
            return buffer, size, filled
        rows = sorted(i for i in self._cleared if i < int(constant_value(filled)))
        if rows:
            buffer = tensor_scatter_nd_update(buffer, constant(np.array(rows)[:, None]),
                                              zeros((len(rows),) + tuple(buffer.shape[1:]),
                                                    self._dtype))
        return buffer, size, filled

    def _element(self, method: str, value) -> Tensor:
        """``value`` as a tensor of this array's dtype. Python numbers (and tensors standing for
        them, such as loop counters) take that dtype when it holds their kind of number."""
        if isinstance(value, Tensor):
            tensor = value
            if getattr(value, "weak", False) and _widens(value.dtype, self._dtype):
                tensor = cast(value, self._dtype)
            what = f"a tensor of dtype {value.dtype.name}"
        elif dtypes.is_weak(value):
            kind = np.asarray(value).dtype.kind
            holds = _KIND_RANK[kind] <= _KIND_RANK.get(self._dtype.kind, -1)
            tensor = constant(value, self._dtype if holds else None)  # ints that do not fit raise
            what = f"the Python value {value!r}"
        else:
            tensor = convert_to_tensor(value)
            what = f"a tensor of dtype {tensor.dtype.name}"
        if tensor.dtype != self._dtype:
            raise TypeError(
                f"TensorArray.{method}: the TensorArray holds {self._dtype.name} elements but the "
                f"value is {what}. Cast it with rt.cast(value, rt.{self._dtype.name}), or create "
                f"the array with that dtype.")
        return tensor

    def __repr__(self) -> str:
        size = constant_value(self.size())
        shown = "unknown" if size is None else int(size)
        return (f"<rt.TensorArray dtype={self._dtype.name} size={shown} "
                f"element_shape={format_shape(self.element_shape)}>")


def _as_element_shape(shape) -> Shape | None:
    if shape is None:
        return None
    try:
        return tuple(None if d is None else int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"TensorArray: element_shape must be a list of ints (None for unknown "
                        f"dimensions) or None, got {shape!r}.") from None


def _as_size(size) -> Tensor:
    if isinstance(size, Tensor):
        if size.dtype.kind not in "iu" or size.shape not in ((), None):
            raise TypeError(f"TensorArray: the size must be an integer scalar, got a "
                            f"{size.dtype.name} tensor of shape {format_shape(size.shape)}.")
        return cast(size, dtypes.int32)
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)):
        raise TypeError(f"TensorArray: the size must be an int or an integer scalar tensor, "
                        f"got {size!r}.")
    if size < 0:
        raise ValueError(f"TensorArray: the size must not be negative, got {size}.")
    return constant(int32(size))


def _known_index(index: Tensor) -> int | None:
    """The index, if known now (always outside traced functions)."""
    known = constant_value(index)
    return None if known is None else int(known)


def _as_index(method: str, index) -> Tensor:
    if isinstance(index, Tensor):
        if index.dtype.kind not in "iu" or index.shape not in ((), None):
            raise TypeError(f"TensorArray.{method}: the index must be an integer scalar, got a "
                            f"{index.dtype.name} tensor of shape {format_shape(index.shape)}.")
        return index
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"TensorArray.{method}: the index must be an int or an integer scalar "
                        f"tensor, got {index!r}.")
    return constant(np.asarray(index, dtype=np.int64 if abs(int(index)) >= 2**31 else np.int32))
