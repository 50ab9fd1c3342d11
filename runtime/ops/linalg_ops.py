"""Matrix products."""

from __future__ import annotations

import numpy as np

from runtime.errors import GradientError, ShapeError
from runtime.ops.array_ops import expand_dims, squeeze, transpose
from runtime.ops.dispatch import apply_op
from runtime.ops.math_ops import carries_gradient, kernel_inputs
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


def _swap_last_two(x):
    return transpose(x, list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _matmul_grad(node, dy):
    """``da = dy @ b^T`` and ``db = a^T @ dy`` on the operands as matrices: a vector ``a`` is a
    row, a vector ``b`` a column, and ``dy`` gets the size-1 dimensions they lost. Batch
    dimensions that broadcasting added are summed by the caller."""
    a, b = kernel_inputs(node)
    if a.ndim is None or b.ndim is None:
        raise GradientError("the gradient of matmul needs operands of known rank while tracing; "
                            "give the function an input_signature with known ranks.")
    a_vector, b_vector = a.ndim == 1, b.ndim == 1
    if b_vector:
        dy, b = expand_dims(dy, -1), expand_dims(b, -1)
    if a_vector:
        dy, a = expand_dims(dy, -2), expand_dims(a, 0)
    da = db = None
    if carries_gradient(node.inputs[0]):
        da = matmul(dy, _swap_last_two(b))
        da = squeeze(da, -2) if a_vector else da
    if carries_gradient(node.inputs[1]):
        db = matmul(_swap_last_two(a), dy)
        db = squeeze(db, -1) if b_vector else db
    return da, db


MATMUL = register(OpDef("matmul", np.matmul, _matmul_infer, promotion=Promotion.COMMON,
                        gradient=_matmul_grad))


def matmul(a, b):
    """Matrix product, batched over leading dimensions like ``a @ b``."""
    return apply_op(MATMUL, (a, b))
