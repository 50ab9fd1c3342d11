"""Shape and dtype inference helpers shared by the op families.

Rules work on partial shapes: ``None`` is a dimension unknown while tracing and a shape of
``None`` has unknown rank. Errors name the op and the shapes involved, at trace time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from runtime.errors import GraphTypeError, ShapeError
from runtime.tensor import Shape, format_shape


def broadcast(op_name: str, *shapes: Shape | None) -> Shape | None:
    """NumPy broadcasting on partial shapes."""
    if any(shape is None for shape in shapes):
        return None
    rank = max((len(shape) for shape in shapes), default=0)
    result = []
    for axis in range(rank):
        dims = [shape[axis - rank + len(shape)] for shape in shapes if axis - rank + len(shape) >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ShapeError(f"{op_name}: shapes " + " and ".join(format_shape(s) for s in shapes)
                             + " cannot be broadcast together.")
        if known:
            result.append(known.pop())
        elif any(d is None for d in dims):
            result.append(None)
        else:
            result.append(1)
    return tuple(result)


@lru_cache(maxsize=None)
def ufunc_result_dtype(op_name: str, ufunc: np.ufunc, in_dtypes: tuple) -> np.dtype:
    """The dtype NumPy's ufunc produces for these input dtypes (exactly what the kernel does)."""
    try:
        resolved = ufunc.resolve_dtypes(tuple(in_dtypes) + (None,) * ufunc.nout)
    except (TypeError, np.exceptions.DTypePromotionError) as error:
        names = ", ".join(d.name for d in in_dtypes)
        raise GraphTypeError(f"{op_name}: not defined for dtype{'s' if len(in_dtypes) > 1 else ''} "
                             f"{names} ({error}).") from None
    return resolved[-1]


def normalize_axis(op_name: str, axis: int, rank: int | None) -> int:
    if rank is None:
        if axis < 0:
            raise ShapeError(f"{op_name}: a negative axis ({axis}) needs a tensor of known rank.")
        return axis
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"{op_name}: axis {axis} is out of range for a tensor of rank {rank}.")
    return axis % rank if rank else 0


def normalize_axes(op_name: str, axis, rank: int | None) -> tuple[int, ...] | None:
    """``None`` (all axes) or a sorted tuple of non-negative axes."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    normalized = tuple(sorted({normalize_axis(op_name, int(a), rank) for a in axes}))
    return normalized


def reduced_shape(shape: Shape | None, axes: tuple[int, ...] | None, keepdims: bool) -> Shape | None:
    if shape is None:
        return None
    if axes is None:
        return tuple(1 for _ in shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def num_elements(shape: Shape | None) -> int | None:
    if shape is None or any(d is None for d in shape):
        return None
    return int(np.prod(shape, dtype=np.int64))


def static_shape_arg(op_name: str, shape) -> Shape:
    """A shape given as a Python list/tuple of ints (``-1`` allowed where the op says so)."""
    try:
        return tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{op_name}: expected a shape as a list of ints, got {shape!r}.") from None


def same_dtype(op_name: str, values: Sequence) -> np.dtype:
    dtypes_seen = {v.dtype for v in values}
    if len(dtypes_seen) != 1:
        names = ", ".join(sorted(d.name for d in dtypes_seen))
        raise GraphTypeError(f"{op_name}: all inputs must have the same dtype, got {names}; "
                             f"use rt.cast to convert.")
    return dtypes_seen.pop()


def index_range_error(indices: np.ndarray, bounds, shape: Shape, first_dim: int = 0) -> str | None:
    """Why ``indices`` do not index a tensor of ``shape``, or None when every one is in range.

    ``bounds`` is one size, when every entry indexes dimension ``first_dim`` (``gather``), or a
    sequence of sizes, one per coordinate in the last axis of ``indices``, coordinate ``j``
    indexing dimension ``first_dim + j`` (``gather_nd``). An index must be in ``[0, size)``,
    as in TensorFlow: a negative one does not count from the end. The message names the first
    bad entry, its position in ``indices`` and the range it should be in. Shared by the kernels
    and the exporters so that each says the same."""
    limit = np.asarray(bounds, dtype=np.int64)
    indices = np.asarray(indices)
    outside = (indices < 0) | (indices >= limit)
    if not np.any(outside):
        return None
    position = tuple(int(i) for i in np.argwhere(outside)[0])
    coordinate = position[-1] if limit.ndim else 0
    size = int(limit[coordinate] if limit.ndim else limit)
    where = f"indices[{', '.join(map(str, position))}]" if position else "indices"
    value = indices[position]
    if value < 0:
        fix = ("A negative index does not count from the end here, as it would in NumPy "
               "(TensorFlow rejects it too); add the axis size to it first.")
    else:
        fix = f"Keep the indices below the axis size, {size}."
    return (f"{where} = {value} is not in [0, {size}): index {value} is out of range for axis "
            f"{first_dim + coordinate} of size {size}, in a tensor of shape "
            f"{format_shape(shape)}. {fix}")
