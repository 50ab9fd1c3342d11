"""Sums by segment: ``segment_sum`` and ``unsorted_segment_sum``, TensorFlow's names for
``scatter_nd`` into one row per segment (repeated ids add up), so the gradient, folding and
serialization are those of ``scatter_nd``: each row's gradient is the gradient of its
segment, gathered back."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import cast, concat, expand_dims, reshape, shape, where
from runtime.ops.dispatch import constant_value, convert_to_tensor
from runtime.ops.math_ops import add, less
from runtime.ops.reduce_ops import reduce_max
from runtime.ops.scatter_ops import scatter_nd
from runtime.tensor import Tensor, format_shape


def _ids(op_name: str, data, segment_ids) -> tuple[Tensor, Tensor, int]:
    data, ids = convert_to_tensor(data), convert_to_tensor(segment_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{op_name}: segment_ids must be integers, got {ids.dtype.name}.")
    if ids.shape is None or data.shape is None:
        raise ShapeError(f"{op_name}: data and segment_ids must have known ranks.")
    rank = len(ids.shape)
    if len(data.shape) < rank or any(
            a is not None and b is not None and a != b for a, b in zip(ids.shape, data.shape)):
        raise ShapeError(f"{op_name}: the shape of segment_ids, {format_shape(ids.shape)}, must "
                         f"be a prefix of the shape of data, {format_shape(data.shape)}.")
    return data, ids, rank


def unsorted_segment_sum(data, segment_ids, num_segments) -> Tensor:
    """``result[k] = sum of data[i...] over the positions where segment_ids[i...] == k``, for
    ``k`` in ``[0, num_segments)``; segments without ids are zeros. The ids need not be
    sorted. Rows with a negative id are dropped, as in TensorFlow (when ``num_segments`` is
    known while tracing; otherwise a negative id is an error, as an id past the end is)."""
    data, ids, rank = _ids("unsorted_segment_sum", data, segment_ids)
    tail = data.shape[rank:]
    if isinstance(num_segments, Tensor) and constant_value(num_segments) is not None:
        num_segments = constant_value(num_segments).item()
    if not isinstance(num_segments, Tensor) and None not in tail:
        # Negative ids go to one row past the segments, which is then cut off.
        count = int(num_segments)
        dropped = where(less(ids, 0), cast(count, ids.dtype), ids)
        rows = scatter_nd(expand_dims(dropped, -1), data, [count + 1] + list(tail))
        return rows[:count]
    if None not in tail:
        out_shape = [num_segments] + list(tail)
    else:
        out_shape = concat([reshape(cast(num_segments, dtypes.int64), [1]),
                            shape(data, dtypes.int64)[rank:]], 0)
    return scatter_nd(expand_dims(ids, -1), data, out_shape)


def segment_sum(data, segment_ids) -> Tensor:
    """``unsorted_segment_sum`` with one segment per id up to the largest: TensorFlow's
    ``segment_sum`` (which wants the ids sorted; here they need not be)."""
    data, ids, rank = _ids("segment_sum", data, segment_ids)
    known = constant_value(ids)
    if known is not None:
        count = int(np.max(known)) + 1 if known.size else 0
    else:  # the largest id is only known when the graph runs; -1 makes no ids 0 segments
        count = add(reduce_max(concat([reshape(ids, [-1]), cast([-1], ids.dtype)], 0)), 1)
    return unsorted_segment_sum(data, ids, count)
