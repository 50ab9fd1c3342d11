"""Matrix products."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import GradientError, ShapeError
from runtime.ops.array_ops import expand_dims, squeeze, transpose
from runtime.ops.dispatch import apply_op, convert_to_tensor
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


# OpenBLAS, NumPy's BLAS, computes a float product on several threads once m * k * n exceeds
# 262,144. Up to a few million that gains little on an idle machine (20x784 @ 784x64: 28 us on
# two threads, 33 us on one) and on a busy one stalls for milliseconds while a thread waits
# for a core (0.5-30 ms). Such products are computed in row blocks that each stay under the
# threshold: one thread each, and the same bits whatever the load or the thread count (which
# change OpenBLAS's bits).
_ONE_THREAD_WORK = 262_144
_ROW_BLOCKS_UP_TO = 1 << 22


def rows_per_blas_call(m: int, k: int, n: int) -> int:
    """How many rows of an (m x k) @ (k x n) float product one BLAS call computes: all of
    them unless the product is in the range where OpenBLAS would start threads for little."""
    work = m * k * n
    if work <= _ONE_THREAD_WORK or work > _ROW_BLOCKS_UP_TO or k * n > _ONE_THREAD_WORK:
        return m
    return _ONE_THREAD_WORK // (k * n)


def _matmul_kernel(a, b):
    if a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype and a.dtype in _BLAS_DTYPES:
        (m, k), n = a.shape, b.shape[1]
        rows = rows_per_blas_call(m, k, n)
        if rows < m:
            out = np.empty((m, n), a.dtype)
            for start in range(0, m, rows):
                np.matmul(a[start:start + rows], b, out=out[start:start + rows])
            return out
    return np.matmul(a, b)


_matmul_kernel.fresh_result = True  # a new array every call: the plan may write into it
_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _bind_matmul(attrs, input_types):
    """``np.matmul`` itself when the plan knows both shapes and the product is one BLAS call
    (the checks of ``_matmul_kernel`` are then made once, not at every call of the plan)."""
    (a_dtype, a_shape), (b_dtype, b_shape) = input_types
    if a_shape is not None and b_shape is not None and len(a_shape) == 2 == len(b_shape) \
            and None not in a_shape + b_shape and a_dtype == b_dtype \
            and np.dtype(a_dtype) in _BLAS_DTYPES \
            and rows_per_blas_call(a_shape[0], a_shape[1], b_shape[1]) >= a_shape[0]:
        return np.matmul
    return _matmul_kernel


MATMUL = register(OpDef("matmul", _matmul_kernel, _matmul_infer, promotion=Promotion.COMMON,
                        gradient=_matmul_grad, bind=_bind_matmul))


def matrix_transpose(a, conjugate: bool = False):
    """``a`` with its last two dimensions swapped (batched over the others)."""
    a = convert_to_tensor(a)
    if a.ndim is not None and a.ndim < 2:
        raise ShapeError(f"matrix_transpose needs a tensor of rank 2 or more, got shape "
                         f"{format_shape(a.shape)}.")
    if conjugate and a.dtype.kind == "c":
        raise TypeError("matrix_transpose: conjugating complex tensors is not supported yet.")
    return _swap_last_two(a)


def _oriented(name: str, x, transpose: bool, adjoint: bool):
    """``x`` as the product sees it: the transpose flags are transposes before a plain matmul,
    so the MATMUL node (and the compiled tier's 2-D matmul) stays one kind of node."""
    if transpose and adjoint:
        raise ValueError(f"matmul: only one of transpose_{name} and adjoint_{name} can be True.")
    if not (transpose or adjoint):
        return x
    return matrix_transpose(x, conjugate=adjoint)


def matmul(a, b, transpose_a: bool = False, transpose_b: bool = False, adjoint_a: bool = False,
           adjoint_b: bool = False, a_is_sparse: bool = False, b_is_sparse: bool = False,
           output_type=None, name: str | None = None):
    """Matrix product, batched over leading dimensions like ``a @ b``, with TensorFlow's
    arguments: ``transpose_*``/``adjoint_*`` use an operand's (conjugate) transpose; the
    sparsity hints are accepted and ignored; ``output_type`` must be the operands' dtype or
    None."""
    if transpose_a or adjoint_a:
        a = _oriented("a", convert_to_tensor(a), transpose_a, adjoint_a)
    if transpose_b or adjoint_b:
        b = _oriented("b", convert_to_tensor(b), transpose_b, adjoint_b)
    result = apply_op(MATMUL, (a, b))
    if output_type is not None and dtypes.as_dtype(output_type) != result.dtype:
        raise TypeError(f"matmul: output_type {dtypes.as_dtype(output_type).name} differs from "
                        f"the product's dtype {result.dtype.name}; cast the operands instead.")
    return result


def matvec(a, b, transpose_a: bool = False, adjoint_a: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, name: str | None = None):
    """Matrix-vector product ``a @ b[..., None]`` without the last axis (TensorFlow's
    ``tf.linalg.matvec``), batched over leading dimensions."""
    product = matmul(a, expand_dims(convert_to_tensor(b), -1), transpose_a=transpose_a,
                     adjoint_a=adjoint_a)
    return squeeze(product, -1)
