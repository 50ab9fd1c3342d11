"""Reductions by segment: ``segment_sum``/``mean``/``max``/``min``/``prod`` and their
``unsorted_`` forms (and ``unsorted_segment_sqrt_n``). Each row of ``data`` belongs to the
segment its id names, and each segment's rows are reduced into one row of the result.

They are scatters into one row per segment (``tensor_scatter_nd_add``, ``_max``, ``_min`` and
``_multiply`` into rows that start at the reduction's identity), so the gradients, folding and
serialization are those ops'. As in TensorFlow, an empty segment of an unsorted reduction is
the identity (0 for sums and means, the dtype's lowest value for max, its highest for min, 1
for products); the sorted forms give 0 for an empty max or min. Rows with a negative id are
dropped by the unsorted forms; the sorted forms do not check that the ids are sorted.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import (cast, concat, expand_dims, fill, ones_like, reshape, shape,
                                   where, zeros_like)
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.math_ops import add, divide, greater, less, maximum, sqrt
from runtime.ops.reduce_ops import reduce_max
from runtime.ops.registry import OpDef
from runtime.ops.scatter_ops import (TENSOR_SCATTER_ND_ADD, TENSOR_SCATTER_ND_MAX,
                                     TENSOR_SCATTER_ND_MIN, TENSOR_SCATTER_ND_MULTIPLY)
from runtime.ops.special_math_ops import truncatediv
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


def _known(num_segments):
    """``num_segments`` as an int when it is known while tracing, else as it is."""
    if isinstance(num_segments, Tensor) and constant_value(num_segments) is not None:
        return constant_value(num_segments).item()
    return num_segments


def _rows_shape(data: Tensor, rank: int, num_segments):
    """``[num_segments] + data.shape[rank:]``, as a list when it is known while tracing."""
    tail = data.shape[rank:]
    num_segments = _known(num_segments)
    if not isinstance(num_segments, Tensor) and None not in tail:
        return [int(num_segments)] + list(tail)
    return concat([reshape(cast(num_segments, dtypes.int64), [1]),
                   shape(data, dtypes.int64)[rank:]], 0)


def unsorted_segment_sum(data, segment_ids, num_segments) -> Tensor:
    """``result[k] = sum of data[i...] over the positions where segment_ids[i...] == k``, for
    ``k`` in ``[0, num_segments)``; segments without ids are zeros. The ids need not be
    sorted; rows with a negative id are dropped, and an id past the end is an error."""
    return _reduced("unsorted_segment_sum", TENSOR_SCATTER_ND_ADD, lambda dtype: 0, data,
                    segment_ids, num_segments)


def segment_count(ids: Tensor):
    """One segment per id up to the largest (an int when the ids are known while tracing)."""
    known = constant_value(ids)
    if known is not None:
        return int(np.max(known)) + 1 if known.size else 0
    # The largest id is only known when the graph runs; -1 makes no ids 0 segments.
    return add(reduce_max(concat([reshape(ids, [-1]), cast([-1], ids.dtype)], 0)), 1)


def segment_sum(data, segment_ids) -> Tensor:
    """``unsorted_segment_sum`` with one segment per id up to the largest: TensorFlow's
    ``segment_sum`` (which wants the ids sorted; here they need not be)."""
    data, ids, _ = _ids("segment_sum", data, segment_ids)
    return unsorted_segment_sum(data, ids, segment_count(ids))


def _row_counts(op_name: str, data, segment_ids, num_segments) -> Tensor:
    """How many rows each segment has, in ``data``'s dtype, shaped to broadcast against the
    reduced rows."""
    data, ids, rank = _ids(op_name, data, segment_ids)
    counts = unsorted_segment_sum(ones_like(ids, data.dtype), ids, num_segments)
    return reshape(counts, [-1] + [1] * (len(data.shape) - rank))


def _lowest(dtype: np.dtype):
    return (np.finfo if dtype.kind in "fc" else np.iinfo)(dtype).min


def _highest(dtype: np.dtype):
    return (np.finfo if dtype.kind in "fc" else np.iinfo)(dtype).max


def _reduced(op_name: str, op: OpDef, identity: Callable, data, segment_ids,
             num_segments) -> Tensor:
    """Each segment's rows combined by ``op`` into rows that start at ``identity(dtype)``."""
    data, ids, rank = _ids(op_name, data, segment_ids)
    if data.dtype.kind not in "iufc":
        raise TypeError(f"{op_name}: data must be numeric, got {data.dtype.name}.")
    start_value = np.asarray(identity(data.dtype), data.dtype)
    # A dropped row (negative id) goes to segment 0 as the identity, which changes nothing.
    dropped = less(ids, 0)
    for _ in data.shape[rank:]:  # one mark per row, broadcast over its elements
        dropped = expand_dims(dropped, -1)
    rows = where(dropped, start_value, data)
    start = fill(_rows_shape(data, rank, num_segments), start_value)
    indices = expand_dims(where(less(ids, 0), zeros_like(ids), ids), -1)
    return apply_op(op, (start, indices, rows))


def unsorted_segment_max(data, segment_ids, num_segments) -> Tensor:
    """The largest row of each segment; an empty segment is the dtype's lowest value."""
    return _reduced("unsorted_segment_max", TENSOR_SCATTER_ND_MAX, _lowest, data, segment_ids,
                    num_segments)


def unsorted_segment_min(data, segment_ids, num_segments) -> Tensor:
    """The smallest row of each segment; an empty segment is the dtype's highest value."""
    return _reduced("unsorted_segment_min", TENSOR_SCATTER_ND_MIN, _highest, data, segment_ids,
                    num_segments)


def unsorted_segment_prod(data, segment_ids, num_segments) -> Tensor:
    """The product of the rows of each segment; an empty segment is 1."""
    return _reduced("unsorted_segment_prod", TENSOR_SCATTER_ND_MULTIPLY, lambda dtype: 1, data,
                    segment_ids, num_segments)


def unsorted_segment_mean(data, segment_ids, num_segments) -> Tensor:
    """The mean of the rows of each segment (0 for an empty one); integers divide into
    float64, as ``/`` does."""
    counts = _row_counts("unsorted_segment_mean", data, segment_ids, num_segments)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return divide(total, maximum(counts, 1))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments) -> Tensor:
    """The sum of the rows of each segment divided by the square root of their number (0 for
    an empty one); floats only, as in TensorFlow."""
    data = convert_to_tensor(data)
    if data.dtype.kind not in "fc":
        raise TypeError(f"unsorted_segment_sqrt_n: data must be float, got {data.dtype.name}.")
    counts = _row_counts("unsorted_segment_sqrt_n", data, segment_ids, num_segments)
    total = unsorted_segment_sum(data, segment_ids, num_segments)
    return divide(total, sqrt(maximum(counts, 1)))


def _sorted(op_name: str, reduce, data, segment_ids) -> Tensor:
    """``reduce`` with one segment per id up to the largest, and zeros for empty ones."""
    data, ids, _ = _ids(op_name, data, segment_ids)
    count = segment_count(ids)
    rows = reduce(data, ids, count)
    filled = greater(_row_counts(op_name, data, ids, count), 0)
    return where(filled, rows, zeros_like(rows))


def segment_max(data, segment_ids) -> Tensor:
    """The largest row of each segment (0 for an empty one)."""
    return _sorted("segment_max", unsorted_segment_max, data, segment_ids)


def segment_min(data, segment_ids) -> Tensor:
    """The smallest row of each segment (0 for an empty one)."""
    return _sorted("segment_min", unsorted_segment_min, data, segment_ids)


def segment_prod(data, segment_ids) -> Tensor:
    """The product of the rows of each segment (1 for an empty one)."""
    data, ids, _ = _ids("segment_prod", data, segment_ids)
    return unsorted_segment_prod(data, ids, segment_count(ids))


def segment_mean(data, segment_ids) -> Tensor:
    """The mean of the rows of each segment (0 for an empty one); integers keep their dtype,
    the division rounding toward zero, as in TensorFlow."""
    data, ids, _ = _ids("segment_mean", data, segment_ids)
    count = segment_count(ids)
    total = unsorted_segment_sum(data, ids, count)
    counts = maximum(_row_counts("segment_mean", data, ids, count), 1)
    return truncatediv(total, counts) if data.dtype.kind in "iu" else divide(total, counts)
