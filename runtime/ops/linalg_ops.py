"""Matrix products."""

from __future__ import annotations

import numpy as np

from runtime.errors import ShapeError
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import OpDef, Promotion, register
from runtime.ops.shapes import broadcast, ufunc_result_dtype
from runtime.tensor import format_shape


def _matmul_infer(a, b):
    dtype = ufunc_result_dtype("matmul", np.matmul, (a.dtype, b.dtype))
    if a.shape is None or b.shape is None:
        return dtype, None
    if not a.shape or not b.shape:
        raise ShapeError(f"matmul: scalar operands are not allowed, got shapes "
                         f"{format_shape(a.shape)} and {format_shape(b.shape)}; use multiply.")
    a_shape = (1,) + a.shape if len(a.shape) == 1 else a.shape
    b_shape = b.shape + (1,) if len(b.shape) == 1 else b.shape
    inner_a, inner_b = a_shape[-1], b_shape[-2]
    if inner_a is not None and inner_b is not None and inner_a != inner_b:
        raise ShapeError(f"matmul: shapes {format_shape(a.shape)} and {format_shape(b.shape)} are "
                         f"incompatible: the last dimension of the first ({inner_a}) must equal the "
                         f"second-to-last of the second ({inner_b}).")
    batch = broadcast("matmul", a_shape[:-2], b_shape[:-2])
    out = batch + (a_shape[-2], b_shape[-1])
    if len(a.shape) == 1:
        out = out[:-2] + out[-1:]
    if len(b.shape) == 1:
        out = out[:-1]
    return dtype, out


MATMUL = register(OpDef("matmul", np.matmul, _matmul_infer, promotion=Promotion.COMMON))


def matmul(a, b):
    """Matrix product, batched over leading dimensions like ``a @ b``."""
    return apply_op(MATMUL, (a, b))
