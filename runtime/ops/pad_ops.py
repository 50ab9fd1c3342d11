"""``pad`` in TensorFlow's three modes.

``CONSTANT`` is one op (its gradient is the slice of ``dy`` that holds the input).
``REFLECT`` and ``SYMMETRIC`` are mirrored slices of the input concatenated around it, one
axis at a time, so their gradients (mirrored slices of ``dy`` added back) come from
``getitem`` and ``concat``.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import ShapeError
from runtime.ops.array_ops import concat
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.indexing import getitem
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape

_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def _pad_kernel(x, value, paddings):
    return np.pad(x, paddings, mode="constant", constant_values=value)


def _pad_infer(x, value, paddings):
    if value.shape is not None and value.shape != ():
        raise ShapeError(f"pad: constant_values must be a scalar, got shape "
                         f"{format_shape(value.shape)}.")
    if x.shape is None:
        return x.dtype, None
    return x.dtype, tuple(None if d is None else d + before + after
                          for d, (before, after) in zip(x.shape, paddings))


def _pad_grad(node, dy):
    """The input's part of ``dy``: each axis from ``before`` to ``after`` from the end."""
    key = tuple(slice(before, -after if after else None)
                for before, after in node.attrs["paddings"])
    return getitem(dy, key), None


PAD = register(OpDef("pad", _pad_kernel, _pad_infer, gradient=_pad_grad))


def _paddings(x: Tensor, paddings) -> tuple:
    """``paddings`` as a tuple of ``(before, after)`` pairs, one per dimension of ``x``."""
    if isinstance(paddings, Tensor):
        value = constant_value(paddings)
        if value is None:
            raise TypeError("pad: paddings must be known while tracing (a list or a constant "
                            "tensor), not computed from the function's inputs.")
        paddings = value
    array = np.asarray(paddings)
    rank = None if x.shape is None else len(x.shape)
    if array.dtype.kind not in "iu" or array.ndim != 2 or array.shape[1] != 2 or (
            rank is not None and array.shape[0] != rank):
        raise ShapeError(f"pad: paddings must be integer pairs of shape [{rank}, 2] for an input "
                         f"of shape {format_shape(x.shape)}, got {array.tolist()!r}.")
    if np.any(array < 0):
        raise ValueError(f"pad: paddings must not be negative, got {array.tolist()!r}.")
    return tuple((int(before), int(after)) for before, after in array)


def _mirrored(x: Tensor, paddings: tuple, symmetric: bool) -> Tensor:
    """REFLECT leaves the edge out of the mirror (at most ``dim - 1`` values each side);
    SYMMETRIC repeats it (at most ``dim``)."""
    mode, skip = ("SYMMETRIC", 0) if symmetric else ("REFLECT", 1)
    for axis, (before, after) in enumerate(paddings):
        dim = x.shape[axis]
        if dim is not None and max(before, after) > dim - skip:
            raise ValueError(f"pad: {mode} padding of ({before}, {after}) on axis {axis} needs "
                             f"a dimension of at least {max(before, after) + skip}, but the "
                             f"input has shape {format_shape(x.shape)}.")
        if not before and not after:
            continue
        lead = (slice(None),) * axis
        parts = []
        if before:
            parts.append(getitem(x, lead + (slice(before - 1 + skip, skip - 1 if skip else None,
                                                  -1),)))
        parts.append(x)
        if after:
            parts.append(getitem(x, lead + (slice(-1 - skip, -1 - skip - after, -1),)))
        x = concat(parts, axis)
    return x


def pad(tensor, paddings, mode: str = "CONSTANT", constant_values=0) -> Tensor:
    """``tensor`` padded by ``paddings[i] = [before, after]`` values along dimension ``i``."""
    x = convert_to_tensor(tensor)
    mode = mode.upper() if isinstance(mode, str) else mode
    if mode not in _MODES:
        raise ValueError(f"pad: mode must be one of {', '.join(_MODES)}, got {mode!r}.")
    pairs = _paddings(x, paddings)
    if mode != "CONSTANT":
        return _mirrored(x, pairs, mode == "SYMMETRIC")
    value = constant_values if isinstance(constant_values, Tensor) else \
        convert_to_tensor(constant_values, x.dtype)
    return apply_op(PAD, (x, value), {"paddings": pairs})
