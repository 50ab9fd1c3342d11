"""Stating shapes: ``ensure_shape`` checks a tensor's shape against a partial shape, while
tracing (the static shapes must be compatible) and when it runs (the actual shape must match),
and gives the tensor the more specific shape of the two, as TensorFlow's does; ``shape_n``
is ``shape`` of several tensors, and ``broadcast_dynamic_shape`` the shape two shapes
broadcast to."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError, ShapeError
from runtime.ops.array_ops import cast, concat, constant, ones, shape, where
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, logical_or
from runtime.ops.reduce_ops import reduce_all
from runtime.ops.registry import OpDef, register
from runtime.tensor import Shape, Tensor, TensorShape, format_shape, shapes_compatible


def mismatch(actual: Shape, expected: Shape) -> str:
    """The error text of a shape that does not match: the kernel's and the exporters'."""
    return (f"ensure_shape: the tensor has shape {format_shape(tuple(actual))}, which is not "
            f"compatible with the expected shape {format_shape(expected)}.")


def _kernel(x, shape):
    if not shapes_compatible(x.shape, shape):
        raise InvalidArgumentError(mismatch(x.shape, shape))
    return x


def _infer(x, shape):
    if x.shape is None:
        return x.dtype, shape
    if not shapes_compatible(x.shape, shape):
        raise ShapeError(f"ensure_shape: the tensor's static shape {format_shape(x.shape)} is "
                         f"not compatible with the expected shape {format_shape(shape)}; the "
                         f"check would fail on every call.")
    return x.dtype, tuple(known if known is not None else wanted
                          for known, wanted in zip(x.shape, shape))


ENSURE_SHAPE = register(OpDef("ensure_shape", _kernel, _infer, gradient=lambda node, dy: (dy,)))


def ensure_shape(x, shape, name=None) -> Tensor:
    """``x``, checked to have ``shape`` (a list with ``None`` for any size, a ``TensorShape``,
    or None for any shape) and known to have it from here on. An incompatible static shape
    raises a ``ShapeError`` (a ``ValueError``) while tracing, an incompatible actual shape an
    ``InvalidArgumentError`` when the op runs. ``name`` is accepted and ignored."""
    x = convert_to_tensor(x)
    expected = TensorShape(shape).dims
    if expected is None:
        return x
    return apply_op(ENSURE_SHAPE, (x,), {"shape": tuple(expected)})


def shape_n(input: Sequence, out_type=dtypes.int32, name=None) -> list[Tensor]:  # noqa: A002
    """The shape of each tensor of ``input``, as 1-D tensors of ``out_type``."""
    if not isinstance(input, (list, tuple)) or not input:
        raise ValueError("shape_n: input must be a non-empty list of tensors (TensorFlow's "
                         "ShapeN needs at least one).")
    out_type = dtypes.as_dtype(out_type)
    if out_type not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"shape_n: out_type must be int32 or int64, got {out_type.name}.")
    return [shape(value, out_type) for value in input]


def broadcast_dynamic_shape(shape_x, shape_y) -> Tensor:
    """The shape two tensors of shapes ``shape_x`` and ``shape_y`` (1-D integer tensors)
    broadcast to; an ``InvalidArgumentError`` when they do not broadcast. Known shapes give
    a constant; others are computed (and checked) when the graph runs."""
    x, y = convert_to_tensor(shape_x), convert_to_tensor(shape_y)
    for given in (x, y):
        if given.dtype.kind not in "iu":
            raise TypeError(f"broadcast_dynamic_shape: shapes are 1-D integer tensors, got "
                            f"{given.dtype.name}.")
    y = y if y.dtype == x.dtype else cast(y, x.dtype)
    known_x, known_y = constant_value(x), constant_value(y)
    if known_x is not None and known_y is not None:
        try:
            joined = np.broadcast_shapes(tuple(np.ravel(known_x)), tuple(np.ravel(known_y)))
        except ValueError:
            raise InvalidArgumentError(
                f"broadcast_dynamic_shape: shapes {list(np.ravel(known_x))} and "
                f"{list(np.ravel(known_y))} are incompatible: each pair of dimensions, aligned "
                f"from the last, must be equal or one of them 1.") from None
        return constant(np.asarray(joined, x.dtype))
    return _broadcast_shapes_when_run(x, y)


def broadcast_static_shape(shape_x, shape_y) -> TensorShape:
    """The static shape (a ``TensorShape``, unknown dimensions ``None``) that tensors of
    shapes ``shape_x`` and ``shape_y`` broadcast to; a ``ValueError`` when known dimensions
    cannot broadcast. An unknown dimension next to 1 stays unknown; next to a size above 1,
    it must be that size."""
    x, y = TensorShape(shape_x), TensorShape(shape_y)
    if x.rank is None or y.rank is None:
        return TensorShape(None)
    rank = max(x.rank, y.rank)
    x_dims, y_dims = ([1] * (rank - len(s)) + list(s) for s in (x, y))
    try:
        return TensorShape([_broadcast_dimension(a, b) for a, b in zip(x_dims, y_dims)])
    except ValueError:
        raise ValueError(f"broadcast_static_shape: shapes {format_shape(tuple(x))} and "
                         f"{format_shape(tuple(y))} are incompatible: each pair of dimensions, "
                         f"aligned from the last, must be equal or one of them 1.") from None


def _broadcast_dimension(a: int | None, b: int | None) -> int | None:
    if a == 1:
        return b
    if b == 1 or b is None:
        return a
    if a is None or a == b:
        return b
    raise ValueError(f"dimensions {a} and {b} do not broadcast")


def _broadcast_shapes_when_run(x: Tensor, y: Tensor) -> Tensor:
    lengths = [None if v.shape is None else v.shape[0] for v in (x, y)]
    if None in lengths:
        raise ShapeError("broadcast_dynamic_shape: the ranks of both shapes must be known "
                         "while tracing (shape vectors of known length).")
    rank = max(lengths)
    x, y = (concat([ones([rank - length], v.dtype), v], 0) for v, length in zip((x, y), lengths))
    fits = logical_or(equal(x, y), logical_or(equal(x, 1), equal(y, 1)))
    assert_(reduce_all(fits), "broadcast_dynamic_shape: the shapes are incompatible: each pair "
            "of dimensions, aligned from the last, must be equal or one of them 1; they are",
            (x, y))
    return where(equal(x, 1), y, x)
