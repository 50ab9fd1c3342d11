"""Norms and norm clipping (``rt.linalg.norm``, ``rt.clip_by_norm``,
``rt.clip_by_global_norm``), composed from existing ops so their gradients come for free."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime.ops.array_ops import cast, expand_dims, squeeze, transpose, where
from runtime.ops.decompositions_ops import svd
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.math_ops import (abs as abs_, add, divide, greater, maximum, minimum,
                                  multiply, pow as pow_, sqrt, square, subtract)
from runtime.ops.reduce_ops import reduce_max, reduce_sum
from runtime.ops.shapes import normalize_axis
from runtime.tensor import Tensor

_VECTOR_ORDS = ("euclidean", "fro", 1, 2, np.inf)


def _float(op_name: str, x) -> Tensor:
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{op_name} needs a floating-point tensor, got {x.dtype.name}; use "
                        f"rt.cast to convert.")
    return x


def _vector_norm(x: Tensor, ord, axis, keepdims: bool) -> Tensor:
    if ord in ("euclidean", "fro", 2):
        return sqrt(reduce_sum(square(x), axis, keepdims))
    if ord == 1:
        return reduce_sum(abs_(x), axis, keepdims)
    if ord == np.inf:
        return reduce_max(abs_(x), axis, keepdims)
    return pow_(reduce_sum(pow_(abs_(x), float(ord)), axis, keepdims), 1.0 / float(ord))


def _matrix_norm(x: Tensor, ord, rows: int, cols: int, keepdims: bool) -> Tensor:
    if ord in ("euclidean", "fro"):
        return sqrt(reduce_sum(square(x), (rows, cols), keepdims))
    if ord == 2:
        rest = [d for d in range(x.ndim) if d not in (rows, cols)]
        largest = reduce_max(svd(transpose(x, rest + [rows, cols]), compute_uv=False), -1)
        if keepdims:
            for d in sorted((rows, cols)):
                largest = expand_dims(largest, d)
        return largest
    inner, outer = (rows, cols) if ord == 1 else (cols, rows)
    sums = reduce_sum(abs_(x), inner, keepdims=True)
    result = reduce_max(sums, outer, keepdims=True)
    return result if keepdims else _squeezed(result, (rows, cols))


def _squeezed(x: Tensor, axes) -> Tensor:
    return squeeze(x, sorted(axes))


def norm(tensor, ord="euclidean", axis=None, keepdims=None):  # noqa: A002 - TF's name
    """TensorFlow's ``norm``: a vector norm over ``axis`` (None: all elements; ``ord`` is
    ``'euclidean'``, ``'fro'``, 1, 2, ``inf`` or any p > 0), or a matrix norm over a pair of
    axes (``'fro'``/``'euclidean'``, 1, ``inf`` or 2, the largest singular value)."""
    x = _float("norm", tensor)
    keepdims = bool(keepdims)
    if axis is not None and not isinstance(axis, (int, np.integer)):
        axis = tuple(axis)
        if len(axis) == 1:
            axis = axis[0]
    if isinstance(axis, tuple):
        if len(axis) != 2 or x.ndim is None:
            raise ValueError(f"norm: axis must be None, an int or a pair of ints (on a tensor "
                             f"of known rank), got {axis!r}.")
        rows, cols = (normalize_axis("norm", a, x.ndim) for a in axis)
        if rows == cols:
            raise ValueError(f"norm: the two axes of a matrix norm must differ, got {axis!r}.")
        if ord not in ("euclidean", "fro", 1, 2, np.inf):
            raise ValueError(f"norm: a matrix norm's ord must be 'euclidean', 'fro', 1, 2 or "
                             f"inf, got {ord!r}.")
        return _matrix_norm(x, ord, rows, cols, keepdims)
    if not (ord in _VECTOR_ORDS or (isinstance(ord, (int, float)) and ord > 0)):
        raise ValueError(f"norm: a vector norm's ord must be 'euclidean', 'fro', inf or a "
                         f"number > 0, got {ord!r}.")
    if ord == "fro" and axis is not None:
        raise ValueError("norm: ord='fro' needs a pair of axes (or axis=None).")
    return _vector_norm(x, ord, axis, keepdims)


def clip_by_norm(t, clip_norm, axes=None):
    """``t * clip_norm / max(l2_norm(t, axes), clip_norm)``: ``t`` rescaled so that its L2 norm
    over ``axes`` is at most ``clip_norm``; a zero ``t`` stays zero (and its gradient finite).
    Rows (``IndexedSlices``) stay rows, scaled by the norm of the rows, as in TensorFlow."""
    if isinstance(t, IndexedSlices):
        return t.with_rows(clip_by_norm(t.values, clip_norm, axes), t.indices)
    t = _float("clip_by_norm", t)
    squares = reduce_sum(square(t), axes, keepdims=True)
    positive = greater(squares, 0)
    l2norm = where(positive, sqrt(where(positive, squares, 1.0)), squares)
    return divide(multiply(t, clip_norm), maximum(l2norm, cast(clip_norm, t.dtype)))


def global_norm(t_list: Sequence) -> Tensor:
    """``sqrt(sum of the squares of every element of every tensor)``; None entries are
    skipped, and of rows (``IndexedSlices``) the rows count, as in TensorFlow."""
    values = [_float("global_norm", _rows_or_tensor(t)) for t in t_list if t is not None]
    if not values:
        raise ValueError("global_norm needs at least one tensor.")
    total = reduce_sum(square(values[0]))
    for value in values[1:]:
        total = add(total, cast(reduce_sum(square(value)), total.dtype))
    return sqrt(total)


def clip_by_global_norm(t_list: Sequence, clip_norm, use_norm=None):
    """``(clipped, global_norm)``: every tensor scaled by ``clip_norm / max(global_norm,
    clip_norm)``, so their joint norm is at most ``clip_norm``. None entries stay None; an
    infinite or NaN norm makes every value NaN, as in TensorFlow."""
    if isinstance(t_list, (Tensor, np.ndarray)) or not isinstance(t_list, Sequence):
        raise TypeError("clip_by_global_norm: t_list must be a list or tuple of tensors.")
    norm_value = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    clip = cast(clip_norm, norm_value.dtype)
    scale = multiply(clip, minimum(divide(1.0, norm_value), divide(1.0, clip)))
    scale = add(scale, subtract(norm_value, norm_value))  # NaN when the norm is not finite
    clipped = [None if t is None else _scaled(t, scale) for t in t_list]
    return clipped, norm_value


def _rows_or_tensor(t):
    return t.values if isinstance(t, IndexedSlices) else t


def _scaled(t, scale: Tensor):
    """``t * scale``; rows stay rows."""
    if isinstance(t, IndexedSlices):
        return t.with_rows(_scaled(t.values, scale), t.indices)
    return multiply(t, cast(scale, convert_to_tensor(t).dtype))

