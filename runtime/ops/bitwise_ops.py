"""``tf.bitwise``: and, or, xor and invert of integers (the ops ``&``, ``|``, ``^`` and ``~``
run), and the shifts, ops of their own. A shift amount outside ``[0, bits)`` is clamped into
it, as TensorFlow's kernels do (C leaves it undefined): ``1 << 40`` in int32 is ``1 << 31``,
``x >> 40`` is ``x >> 31``, and a negative amount shifts by 0. Right shifts of signed integers
are arithmetic (the sign bit fills in)."""

from __future__ import annotations

import numpy as np

from runtime.errors import GraphTypeError
from runtime.ops.dispatch import apply_op
from runtime.ops.math_ops import BITWISE_AND, BITWISE_OR, BITWISE_XOR, INVERT
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, Promotion, register
from runtime.ops.shapes import broadcast
from runtime.tensor import Tensor


def _integers(op_name: str, *values) -> None:
    for value in values:
        if value.dtype.kind not in "iu":
            raise GraphTypeError(f"{op_name}: not defined for dtype {value.dtype.name}; bitwise "
                                 f"ops take integers.")


def _shift_kernel(ufunc: np.ufunc):
    def kernel(x, y):
        bits = x.dtype.itemsize * 8
        return ufunc(x, np.clip(y, 0, bits - 1).astype(x.dtype, copy=False))
    return kernel


def _shift_infer(op_name: str):
    def infer(x, y):
        _integers(op_name, x, y)
        return x.dtype, broadcast(op_name, x.shape, y.shape)
    return infer


def _shift_op(name: str, ufunc: np.ufunc) -> OpDef:
    return register(OpDef(name, _shift_kernel(ufunc), _shift_infer(name),
                          promotion=Promotion.COMMON, gradient=NOT_DIFFERENTIABLE))


LEFT_SHIFT = _shift_op("left_shift", np.left_shift)
RIGHT_SHIFT = _shift_op("right_shift", np.right_shift)


def _apply(op: OpDef, op_name: str, *values) -> Tensor:
    """``op`` (which also takes bools, as ``&`` does) on integers only, as TensorFlow's."""
    _integers(op_name, *[value for value in values if isinstance(value, Tensor)])
    return apply_op(op, values)


def bitwise_and(x, y) -> Tensor:
    """The bits set in both ``x`` and ``y``."""
    return _apply(BITWISE_AND, "bitwise_and", x, y)


def bitwise_or(x, y) -> Tensor:
    """The bits set in ``x`` or ``y``."""
    return _apply(BITWISE_OR, "bitwise_or", x, y)


def bitwise_xor(x, y) -> Tensor:
    """The bits set in exactly one of ``x`` and ``y``."""
    return _apply(BITWISE_XOR, "bitwise_xor", x, y)


def invert(x) -> Tensor:
    """Every bit of ``x`` flipped (``-x - 1`` for signed integers)."""
    return _apply(INVERT, "invert", x)


def left_shift(x, y) -> Tensor:
    """``x`` shifted left by ``y`` bits (clamped to ``[0, bits)``); bits shifted out are lost."""
    return apply_op(LEFT_SHIFT, (x, y))


def right_shift(x, y) -> Tensor:
    """``x`` shifted right by ``y`` bits (clamped to ``[0, bits)``), arithmetically for signed
    integers."""
    return apply_op(RIGHT_SHIFT, (x, y))
