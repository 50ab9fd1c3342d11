"""``batch``, ``padded_batch`` and ``unbatch``: elements stacked along a new first dimension,
and back.

In a graph loop batch ``j`` holds the parent's elements ``[j*b, min(j*b + b, n))``: one slice
when the parent's elements are slices of tensors, else a small inner loop that stacks them.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from runtime.control_flow import while_loop
from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.plan import (Plan, cannot_stage, derived, index, length_batches, length_min,
                               length_times)
from runtime.data.transformations import count_arg
from runtime.errors import InvalidArgumentError
from runtime.ops.array_ops import gather
from runtime.ops.math_ops import floordiv, mod
from runtime.tensor import EagerTensor, TensorSpec, format_shape
from runtime.tensor_array import TensorArray


def _stack(elements: list, method: str):
    """One batch from a list of elements (same structure), component by component."""
    columns = zip(*(structure.flatten(e) for e in elements))
    leaves = []
    for position, column in enumerate(columns):
        shapes = {tuple(leaf.shape) for leaf in column}
        if len(shapes) > 1:
            raise InvalidArgumentError(  # as TensorFlow; a graph loop's TensorArray says it too
                f"Dataset.{method}: the elements of a batch must have the same shape, but "
                f"component {position} has shapes "
                f"{', '.join(format_shape(s) for s in sorted(shapes))}. Use padded_batch to "
                f"pad them to a common shape.")
        leaves.append(EagerTensor(np.stack([leaf.numpy() for leaf in column])))
    return structure.pack_like(elements[0], leaves)


def _batches(parent: Node, size: int, drop_remainder: bool) -> Iterator[list]:
    batch = []
    for element in parent.iterate():
        batch.append(element)
        if len(batch) == size:
            yield batch
            batch = []
    if batch and not drop_remainder:
        yield batch


def _batch_size(method: str, size) -> int:
    size = count_arg(method, size)
    if size <= 0:
        raise ValueError(f"Dataset.{method}: batch_size must be positive, got {size}.")
    return size


class Batch(Node):
    label = "batch"

    def __init__(self, parent: Node, batch_size, drop_remainder: bool):
        self.inputs = (parent,)
        self.size, self.drop_remainder = _batch_size("batch", batch_size), bool(drop_remainder)

    def iterate(self) -> Iterator[Any]:
        for batch in _batches(self.inputs[0], self.size, self.drop_remainder):
            yield _stack(batch, "batch")

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if card in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return card
        return card // self.size + (0 if card % self.size == 0 or self.drop_remainder else 1)

    def spec(self):
        first = self.size if self.drop_remainder else None
        return structure.map_leaves(
            lambda s: TensorSpec(None if s.shape is None else (first,) + s.shape, s.dtype),
            self.inputs[0].spec())

    def plan(self) -> Plan:
        parent, size = self.inputs[0].plan(), self.size
        if not parent.indexed:
            raise cannot_stage("it batches the elements of a filter (which batch an element "
                               "lands in depends on the elements before it)",
                               "Batch before filtering, or filter the batches.")
        n = parent.length
        length = length_batches(n, size, self.drop_remainder)

        def bounds(j):
            start = j * size
            stop = (start + size if self.drop_remainder or parent.unbounded
                    else length_min(start + size, n))
            return start, stop

        if parent.slice_at is not None:
            return derived(parent, length=length, element_at=lambda j: parent.slice_at(*bounds(j)),
                           slice_at=None)
        spec = self.inputs[0].spec()

        def element_at(j):
            start, stop = bounds(j)
            return _stacked(parent, spec, start, stop - start)

        return derived(parent, length=length, element_at=element_at, slice_at=None)


def _stacked(parent: Plan, spec, start, count):
    """Elements ``[start, start + count)`` of ``parent``, stacked by an inner graph loop."""
    specs = structure.flatten(spec)
    arrays = tuple(TensorArray(s.dtype, size=count, element_shape=s.shape) for s in specs)

    def body(k, arrays):
        leaves = structure.flatten(parent.element_at(start + k))
        return k + 1, tuple(a.write(k, v) for a, v in zip(arrays, leaves))

    _, arrays = while_loop(lambda k, arrays: k < count, body, (index(0), arrays))
    return structure.pack_like(spec, [a.stack() for a in arrays])


class PaddedBatch(Node):
    label = "padded_batch"

    def __init__(self, parent: Node, batch_size, padded_shapes, padding_values,
                 drop_remainder: bool):
        self.inputs = (parent,)
        self.size = _batch_size("padded_batch", batch_size)
        self.drop_remainder = bool(drop_remainder)
        self.padded_shapes, self.padding_values = padded_shapes, padding_values

    def _per_leaf(self, option, like) -> list:
        if option is None:
            return [None] * len(structure.flatten(like))
        if not structure.is_structure(like):
            return [option]
        return structure.flatten(option)

    def iterate(self) -> Iterator[Any]:
        for batch in _batches(self.inputs[0], self.size, self.drop_remainder):
            like = batch[0]
            shapes = self._per_leaf(self.padded_shapes, like)
            values = self._per_leaf(self.padding_values, like)
            columns = list(zip(*(structure.flatten(e) for e in batch)))
            leaves = [_pad_column(column, target, value, position)
                      for position, (column, target, value)
                      in enumerate(zip(columns, shapes, values))]
            yield structure.pack_like(like, leaves)

    cardinality = Batch.cardinality

    def spec(self):
        first = self.size if self.drop_remainder else None
        parent = self.inputs[0].spec()
        shapes = self._per_leaf(self.padded_shapes, parent)
        leaves = []
        for s, target in zip(structure.flatten(parent), shapes):
            dims = s.shape if target is None else tuple(
                None if d is None or d == -1 else int(d) for d in _dims(target))
            if target is None and dims is not None:
                dims = (None,) * len(dims)
            leaves.append(TensorSpec(None if dims is None else (first,) + tuple(dims), s.dtype))
        return structure.pack_like(parent, leaves)

    def plan(self) -> Plan:
        raise cannot_stage("padded_batch has no graph form yet",
                           "Pad the elements to one shape in a map and use batch.")


def _dims(shape) -> tuple:
    if hasattr(shape, "numpy"):
        shape = shape.numpy().tolist()
    return tuple(shape)


def _pad_column(column, target, value, position: int) -> EagerTensor:
    arrays = [np.asarray(leaf.numpy()) for leaf in column]
    rank = arrays[0].ndim
    if any(a.ndim != rank for a in arrays):
        raise ValueError(f"Dataset.padded_batch: component {position} has elements of "
                         f"different ranks; padding only grows dimensions.")
    longest = [max(a.shape[d] for a in arrays) for d in range(rank)]
    dims = [None] * rank if target is None else list(_dims(target))
    if len(dims) != rank:
        raise ValueError(f"Dataset.padded_batch: padded shape {tuple(dims)} for component "
                         f"{position} does not have the elements' rank {rank}.")
    for d, want in enumerate(dims):
        if want is None or want == -1:
            dims[d] = longest[d]
        elif longest[d] > want:
            raise ValueError(f"Dataset.padded_batch: component {position} has an element of "
                             f"size {longest[d]} in dimension {d}, larger than its padded "
                             f"size {want}.")
    dtype = arrays[0].dtype
    fill = np.zeros((), dtype) if value is None else np.asarray(
        value.numpy() if hasattr(value, "numpy") else value).astype(dtype)
    out = np.full((len(arrays),) + tuple(dims), fill, dtype=dtype)
    for k, a in enumerate(arrays):
        out[(k,) + tuple(slice(0, s) for s in a.shape)] = a
    return EagerTensor(out)


class Unbatch(Node):
    label = "unbatch"

    def __init__(self, parent: Node):
        self.inputs = (parent,)

    def iterate(self) -> Iterator[Any]:
        for element in self.inputs[0].iterate():
            leaves = structure.flatten(element)
            sizes = {leaf.shape[0] if leaf.shape else None for leaf in leaves}
            if None in sizes or len(sizes) != 1:
                raise ValueError(f"Dataset.unbatch: every component needs the same first "
                                 f"dimension, got shapes "
                                 f"{', '.join(format_shape(leaf.shape) for leaf in leaves)}.")
            arrays = [leaf.numpy() for leaf in leaves]
            for r in range(sizes.pop()):
                yield structure.pack_like(element, [EagerTensor(np.asarray(a[r])) for a in arrays])

    def _known_size(self) -> int | None:
        sizes = {None if s.shape is None or not s.shape else s.shape[0]
                 for s in structure.flatten(self.inputs[0].spec())}
        return sizes.pop() if len(sizes) == 1 else None

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if card in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return card
        size = self._known_size()
        return UNKNOWN_CARDINALITY if size is None else card * size

    def spec(self):
        return structure.map_leaves(
            lambda s: TensorSpec(None if s.shape is None else s.shape[1:], s.dtype),
            self.inputs[0].spec())

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()
        size = self._known_size()
        if size is None or not parent.indexed:
            raise cannot_stage(
                "unbatch needs batches of one known size (a batch with drop_remainder=False "
                "may end with a shorter one)" if parent.indexed else
                "it unbatches the elements of a filter",
                "Use batch(..., drop_remainder=True) before it, or unbatch outside the loop.")
        return derived(parent, length=length_times(parent.length, size), slice_at=None,
                       element_at=lambda i: structure.map_leaves(
                           lambda leaf: gather(leaf, mod(i, size)),
                           parent.element_at(floordiv(i, size))))
