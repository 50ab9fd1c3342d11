"""Counting with TensorFlow's names: ``bincount``, ``confusion_matrix``, ``in_top_k``,
``histogram_fixed_width`` and ``unique_with_counts``.

Each is a composition of existing ops (segment sums and scatters), so gradients (through
``bincount``'s weights), graphs and serialization come with them. Negative values and labels
out of range are errors when the ops run, as in TensorFlow (assertions: they run in program
order even when nothing uses the result)."""

from __future__ import annotations

from typing import NamedTuple

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import (cast, expand_dims, ones_like, reshape, shape, stack,
                                   where)
from runtime.ops.array_ops import range as tensor_range
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import (add, greater, greater_equal, less, logical_and, maximum,
                                  minimum, multiply)
from runtime.ops.reduce_ops import reduce_all, reduce_sum
from runtime.ops.scatter_ops import gather, scatter_nd
from runtime.ops.segment_ops import segment_count, unsorted_segment_sum
from runtime.ops.sort_ops import unique
from runtime.ops.special_math_ops import is_finite
from runtime.tensor import Tensor, format_shape


def _bounded(length, minlength, maxlength):
    """``length`` raised to ``minlength`` and cut to ``maxlength`` (ints stay ints)."""
    for bound, pick, on_tensors in ((minlength, max, maximum), (maxlength, min, minimum)):
        if bound is None:
            continue
        if isinstance(length, Tensor) or isinstance(bound, Tensor):
            length = on_tensors(length, cast(bound, dtypes.int32) if isinstance(bound, Tensor)
                                else bound)
        else:
            length = pick(length, int(bound))
    return length


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype=dtypes.int32, name=None,
             axis=None, binary_output: bool = False) -> Tensor:
    """How often each value ``0 .. n - 1`` occurs in ``arr`` (or the sum of its ``weights``),
    ``n`` being the largest value plus one, at least ``minlength`` and at most ``maxlength``
    (values from ``maxlength`` on are not counted). The counts have ``dtype``, the sums the
    weights' dtype; ``binary_output`` gives 1 for each value that occurs. ``axis=-1`` counts
    each row of a matrix on its own; ``None`` or 0 count all of ``arr``. ``name`` is accepted
    and ignored."""
    if binary_output and weights is not None:
        raise ValueError("bincount: binary_output and weights are mutually exclusive; pass one "
                         "of them.")
    if axis not in (None, 0, -1):
        raise ValueError(f"bincount: axis must be None, 0 or -1 (as in TensorFlow), got {axis!r}.")
    arr = convert_to_tensor(arr)
    if arr.dtype.kind not in "iu":
        arr = cast(arr, dtypes.int32)
    per_row = axis == -1
    if per_row and (arr.shape is None or len(arr.shape) != 2):
        raise ShapeError(f"bincount: axis=-1 counts the rows of a matrix, got shape "
                         f"{format_shape(arr.shape)}.")
    assert_(reduce_all(greater_equal(arr, 0)), "bincount: arr must be non-negative; it is",
            (arr,))
    length = _bounded(segment_count(arr), minlength, maxlength)
    if weights is None:
        values = ones_like(arr, dtypes.as_dtype(dtype))
    else:
        values = convert_to_tensor(weights)
    bins = cast(arr, dtypes.int64)
    length = cast(length, dtypes.int64) if isinstance(length, Tensor) else length
    if per_row:  # row r counts into bins r * length .. (r + 1) * length - 1
        rows = shape(arr, dtypes.int64)[0]
        offsets = multiply(expand_dims(tensor_range(rows, dtype=dtypes.int64), -1), length)
        counts = unsorted_segment_sum(values, where(less(bins, length), add(bins, offsets), -1),
                                      multiply(rows, length))
        counts = reshape(counts, stack([rows, length]))
    else:
        counts = unsorted_segment_sum(values, where(less(bins, length), bins, -1), length)
    if binary_output:
        return cast(greater(counts, 0), dtypes.as_dtype(dtype))
    return counts


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32,
                     name=None) -> Tensor:
    """``result[i, j]``: how many times (or with what total weight) label ``i`` was predicted
    as ``j``, for ``num_classes`` classes (by default the largest label or prediction plus
    one). Labels and predictions must be in ``[0, num_classes)``. ``name`` is accepted and
    ignored."""
    dtype = dtypes.as_dtype(dtype)
    labels = cast(convert_to_tensor(labels), dtypes.int64)
    predictions = cast(convert_to_tensor(predictions), dtypes.int64)
    for what, values in (("labels", labels), ("predictions", predictions)):
        assert_(reduce_all(greater_equal(values, 0)),
                f"confusion_matrix: `{what}` contains negative values; they are", (values,))
    if num_classes is None:
        num_classes = _bounded(segment_count(labels), segment_count(predictions), None)
    else:
        for what, values in (("labels", labels), ("predictions", predictions)):
            assert_(reduce_all(less(values, num_classes)),
                    f"confusion_matrix: `{what}` out of bound: each must be less than "
                    f"num_classes; they are", (values,))
    counted = ones_like(labels, dtype) if weights is None else cast(convert_to_tensor(weights),
                                                                     dtype)
    size = cast(num_classes, dtypes.int64) if isinstance(num_classes, Tensor) else num_classes
    return scatter_nd(stack([labels, predictions], axis=-1), counted, stack([size, size]))


def in_top_k(targets, predictions, k, name=None) -> Tensor:
    """Per row of ``predictions`` (a batch of class scores), whether the target class is among
    the ``k`` highest: fewer than ``k`` classes score higher (so ties at the boundary count as
    in). A target out of range, or a row with a non-finite score, gives False, as in
    TensorFlow. ``name`` is accepted and ignored."""
    targets, predictions = convert_to_tensor(targets), convert_to_tensor(predictions)
    if predictions.shape is not None and len(predictions.shape) != 2:
        raise ShapeError(f"in_top_k: predictions must be a matrix (batch, classes), got shape "
                         f"{format_shape(predictions.shape)}.")
    classes = shape(predictions, targets.dtype)[1]
    valid = logical_and(greater_equal(targets, 0), less(targets, classes))
    chosen = gather(predictions, where(valid, targets, 0), batch_dims=1)
    higher = reduce_sum(cast(greater(predictions, expand_dims(chosen, -1)), dtypes.int32), -1)
    finite = reduce_all(is_finite(predictions), -1)
    return logical_and(logical_and(valid, finite), less(higher, k))



def histogram_fixed_width(values, value_range, nbins: int = 100, dtype=dtypes.int32) -> Tensor:
    """How many of ``values`` fall in each of ``nbins`` equal bins spanning ``value_range``
    ``[low, high]``; values outside go to the first or last bin. The bin of a value is
    computed as TensorFlow's kernel does, in float64: ``(max(x, low) - low) / step``."""
    bins = reshape(histogram_fixed_width_bins(values, value_range, nbins), [-1])
    return cast(unsorted_segment_sum(ones_like(bins), bins, nbins), dtype)


def histogram_fixed_width_bins(values, value_range, nbins: int = 100,
                               dtype=dtypes.int32) -> Tensor:
    """The bin of each of ``values`` (same shape) among ``nbins`` equal bins spanning
    ``value_range``, values outside in the first or last bin; the bins of
    ``histogram_fixed_width``."""
    values = convert_to_tensor(values)
    value_range = cast(convert_to_tensor(value_range), values.dtype)
    low = value_range[0]
    step = cast(value_range[1] - low, dtypes.float64) / float(nbins)
    position = cast(maximum(values, low) - low, dtypes.float64) / step
    return cast(minimum(position, float(nbins - 1)), dtype)


class UniqueWithCounts(NamedTuple):
    y: Tensor
    idx: Tensor
    count: Tensor


def unique_with_counts(x, out_idx=dtypes.int32) -> UniqueWithCounts:
    """``unique``'s distinct values and positions, and how often each value occurs."""
    values, positions = unique(x, out_idx)
    counts = unsorted_segment_sum(ones_like(positions), positions, shape(values, out_idx)[0])
    return UniqueWithCounts(values, positions, counts)
