"""Splitting rows by a partition number and putting rows back by index: TensorFlow's
``dynamic_partition`` and ``dynamic_stitch``. How many rows each result has is known only when
the op runs, so in graphs their first dimension is ``None``. Both are compositions of existing
ops (``boolean_mask``; ``tensor_scatter_nd_update``), with their gradients."""

from __future__ import annotations

from typing import Sequence

from runtime.errors import ShapeError
from runtime.ops.array_ops import concat, expand_dims, reshape, shape, zeros
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.layout_ops import boolean_mask
from runtime.ops.math_ops import equal, greater_equal, less, logical_and
from runtime.ops.reduce_ops import reduce_all
from runtime.ops.scatter_ops import tensor_scatter_nd_update
from runtime.ops.segment_ops import segment_count
from runtime.tensor import Tensor, format_shape


def _prefix_check(op_name: str, index: Tensor, value: Tensor, what: str) -> None:
    if index.shape is None or value.shape is None:
        return
    prefix = value.shape[:len(index.shape)]
    if len(prefix) < len(index.shape) or any(a is not None and b is not None and a != b
                                              for a, b in zip(prefix, index.shape)):
        raise ShapeError(f"{op_name}: {what} of shape {format_shape(value.shape)} must start "
                         f"with the shape of its indices, {format_shape(index.shape)}.")


def dynamic_partition(data, partitions, num_partitions: int, name=None) -> list[Tensor]:
    """``num_partitions`` tensors: the ``i``-th holds the rows of ``data`` whose partition
    number (in ``partitions``, whose shape starts ``data``'s) is ``i``, in their order. A
    number outside ``[0, num_partitions)`` raises ``InvalidArgumentError`` when the op runs.
    ``name`` is accepted and ignored."""
    data, partitions = convert_to_tensor(data), convert_to_tensor(partitions)
    if partitions.dtype.kind not in "iu":
        raise TypeError(f"dynamic_partition: partitions must be integers, got "
                        f"{partitions.dtype.name}.")
    _prefix_check("dynamic_partition", partitions, data, "data")
    count = int(num_partitions)
    assert_(reduce_all(logical_and(greater_equal(partitions, 0), less(partitions, count))),
            f"dynamic_partition: every partition number must be in [0, {count}); they are",
            (partitions,))
    return [boolean_mask(data, equal(partitions, number)) for number in range(count)]


def dynamic_stitch(indices: Sequence, data: Sequence, name=None) -> Tensor:
    """One tensor with ``merged[indices[m][i]] = data[m][i]`` (rows, when ``data[m]`` has more
    dimensions than ``indices[m]``); it has as many rows as the largest index plus one, those
    no index names are zeros, and for an index given twice the later value wins, as in
    TensorFlow. ``name`` is accepted and ignored."""
    if len(indices) != len(data) or not data:
        raise ValueError(f"dynamic_stitch: indices and data must be non-empty lists of one "
                         f"length, got {len(indices)} and {len(data)}.")
    indices = [convert_to_tensor(index) for index in indices]
    data = [convert_to_tensor(value) for value in data]
    dtype = data[0].dtype
    flat_indices, rows = [], []
    for index, value in zip(indices, data):
        if index.dtype.kind not in "iu":
            raise TypeError(f"dynamic_stitch: indices must be integers, got {index.dtype.name}.")
        if value.dtype != dtype:
            raise TypeError(f"dynamic_stitch: every data tensor must have one dtype, got "
                            f"{dtype.name} and {value.dtype.name}.")
        _prefix_check("dynamic_stitch", index, value, "data")
        if index.shape is None:
            raise ShapeError("dynamic_stitch: the ranks of the indices must be known while "
                             "tracing.")
        flat_indices.append(reshape(index, [-1]))
        rows.append(reshape(value, [-1] + _row_shape(value, len(index.shape))))
    merged_indices, merged_rows = concat(flat_indices, 0), concat(rows, 0)
    start = zeros([segment_count(merged_indices)] + _row_shape(merged_rows, 1), dtype)
    return tensor_scatter_nd_update(start, expand_dims(merged_indices, -1), merged_rows)


def _row_shape(value: Tensor, start: int) -> list:
    """The sizes of ``value``'s dimensions from ``start`` on (tensors where unknown while
    tracing), so that the static ones stay known."""
    dims = value.shape[start:]
    return [shape(value)[start + axis] if size is None else size for axis, size in enumerate(dims)]
