"""Stating shapes: ``ensure_shape`` checks a tensor's shape against a partial shape, while
tracing (the static shapes must be compatible) and when it runs (the actual shape must match),
and gives the tensor the more specific shape of the two, as TensorFlow's does; ``shape_n``
is ``shape`` of several tensors."""

from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError, ShapeError
from runtime.ops.array_ops import shape
from runtime.ops.dispatch import apply_op, convert_to_tensor
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
