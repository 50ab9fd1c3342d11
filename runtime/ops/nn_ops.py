"""Neural-network activations (``rt.nn``)."""

from __future__ import annotations

import numpy as np

from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import normalize_axis


def _relu(x, out=None):
    return np.maximum(x, x.dtype.type(0), out=out)


_relu.writes_out = True  # elementwise: the executor may pass a dying input as ``out``


def _softmax(x, axis=-1):
    shifted = x - np.max(x, axis=axis, keepdims=True)
    exps = np.exp(shifted)
    return exps / np.sum(exps, axis=axis, keepdims=True)


RELU = register(OpDef("relu", _relu, lambda x: (x.dtype, x.shape)))
SOFTMAX = register(OpDef("softmax", _softmax, lambda x, axis=-1: (x.dtype, x.shape)))


def relu(x):
    """``max(x, 0)`` elementwise."""
    return apply_op(RELU, (x,))


def softmax(logits, axis=-1):
    """Normalized exponentials along ``axis`` (computed stably)."""
    logits = convert_to_tensor(logits)
    if logits.dtype.kind != "f":
        raise TypeError(f"softmax needs a floating-point tensor, got {logits.dtype.name}.")
    if logits.ndim is not None:
        normalize_axis("softmax", axis, logits.ndim)
    return apply_op(SOFTMAX, (logits,), {"axis": int(axis)})
