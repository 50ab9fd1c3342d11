"""Datasets made from values in memory: ``from_tensor_slices``, ``from_tensors``, ``range``,
``counter``.

Their elements are slices of tensors the dataset holds (eager, or symbolic when the dataset
is built inside a traced function), so element ``i`` is a gather at ``i``: every source has
a graph form.
"""

from __future__ import annotations

import itertools
from typing import Any, Iterator

import numpy as np

from runtime import dtypes
from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node, is_symbolic_leaf
from runtime.data.plan import Plan, index
from runtime.data.transformations import count_arg
from runtime.ops.array_ops import cast, gather, shape
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.math_ops import floordiv, maximum
from runtime.ops.array_ops import range as range_op
from runtime.tensor import EagerTensor, TensorSpec, format_shape


def _eager_slices(leaf: EagerTensor) -> list[EagerTensor]:
    array = leaf.numpy()
    return [EagerTensor(np.asarray(array[i])) for i in range(array.shape[0])]


class TensorSlices(Node):
    """``from_tensor_slices``: the first dimension of every component, sliced together."""

    label = "from_tensor_slices"

    def __init__(self, tensors):
        self.structure = structure.map_leaves(convert_to_tensor, tensors)
        self.leaves = structure.flatten(self.structure)
        sizes = set()
        for leaf in self.leaves:
            if leaf.shape is not None and len(leaf.shape) == 0:
                raise ValueError(f"from_tensor_slices needs tensors of rank 1 or more to slice, "
                                 f"got a scalar {leaf.dtype.name} tensor; use from_tensors for "
                                 f"a single element.")
            if leaf.shape is not None and leaf.shape[0] is not None:
                sizes.add(leaf.shape[0])
        if len(sizes) > 1:
            raise ValueError(f"from_tensor_slices needs components with the same first "
                             f"dimension, got sizes {sorted(sizes)} "
                             f"({', '.join(format_shape(leaf.shape) for leaf in self.leaves)}).")
        self.size = sizes.pop() if sizes and all(
            leaf.shape is not None and leaf.shape[0] is not None for leaf in self.leaves) else None

    def iterate(self) -> Iterator[Any]:
        columns = [_eager_slices(leaf) for leaf in self.leaves]
        for row in zip(*columns):
            yield structure.pack_like(self.structure, row)

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY if self.size is None else self.size

    def spec(self):
        return structure.map_leaves(
            lambda t: TensorSpec(None if t.shape is None else t.shape[1:], t.dtype), self.structure)

    def holds_symbolic(self) -> bool:
        return any(is_symbolic_leaf(leaf) for leaf in self.leaves)

    def plan(self) -> Plan:
        length = self.size if self.size is not None else index(shape(self.leaves[0])[0])

        def element_at(i):
            return structure.pack_like(self.structure, [gather(leaf, i) for leaf in self.leaves])

        def slice_at(start, stop):
            return structure.pack_like(self.structure, [leaf[start:stop] for leaf in self.leaves])

        return Plan(length, element_at, slice_at=slice_at)


class Tensors(Node):
    """``from_tensors``: the whole structure as one element."""

    label = "from_tensors"

    def __init__(self, tensors):
        self.structure = structure.map_leaves(convert_to_tensor, tensors)

    def iterate(self) -> Iterator[Any]:
        yield self.structure

    def cardinality(self) -> int:
        return 1

    def spec(self):
        return structure.spec_of(self.structure)

    def holds_symbolic(self) -> bool:
        return any(is_symbolic_leaf(leaf) for leaf in structure.flatten(self.structure))

    def plan(self) -> Plan:
        return Plan(1, lambda i: self.structure)


class Range(Node):
    """``range``: ``start, start + step, ...`` up to ``stop`` (excluded), as ``dtype``."""

    label = "range"

    def __init__(self, start, stop, step, dtype):
        self.dtype = dtypes.as_dtype(dtype)
        if isinstance(step, (int, np.integer)) and step == 0:
            raise ValueError("Dataset.range: step must not be 0.")
        self.bounds = (start, stop, step)
        self.static = all(isinstance(b, (int, np.integer)) for b in self.bounds)

    def iterate(self) -> Iterator[Any]:
        start, stop, step = (int(np.asarray(b)) for b in self.bounds)
        for value in range(start, stop, step):
            yield EagerTensor(np.asarray(value, dtype=self.dtype))

    def cardinality(self) -> int:
        if not self.static:
            return UNKNOWN_CARDINALITY
        return len(range(*(int(b) for b in self.bounds)))

    def spec(self):
        return TensorSpec((), self.dtype)

    def holds_symbolic(self) -> bool:
        return any(is_symbolic_leaf(b) for b in self.bounds)

    def plan(self) -> Plan:
        start, stop, step = (index(convert_to_tensor(b)) if not isinstance(b, (int, np.integer))
                             else int(b) for b in self.bounds)
        if self.static:
            length = self.cardinality()
        else:  # ceil((stop - start) / step), at least 0, for either sign of step
            start_t, stop_t, step_t = index(start), index(stop), index(step)
            length = maximum(-floordiv(start_t - stop_t, step_t), 0)

        return _progression(length, start, step, self.dtype)


def _progression(length, start, step, dtype) -> Plan:
    """The plan of ``start + i * step`` as ``dtype`` (``range``, ``counter``)."""

    def element_at(i):
        return cast(start + i * step, dtype)

    def slice_at(begin, end):
        return cast(start + range_op(begin, end, dtype=dtypes.int64) * step, dtype)

    return Plan(length, element_at, slice_at=slice_at)


class Counter(Node):
    """``counter(start, step)``: ``start, start + step, ...`` forever, as ``dtype``."""

    label = "counter"

    def __init__(self, start, step, dtype):
        self.start, self.step = count_arg("counter", start), count_arg("counter", step)
        self.dtype = dtypes.as_dtype(dtype)

    def iterate(self) -> Iterator[Any]:
        for value in itertools.count(self.start, self.step):
            yield EagerTensor(np.asarray(value).astype(self.dtype))

    def cardinality(self) -> int:
        return INFINITE_CARDINALITY

    def spec(self):
        return TensorSpec((), self.dtype)

    def holds_symbolic(self) -> bool:
        return False

    def plan(self) -> Plan:
        return _progression(None, self.start, self.step, self.dtype)
