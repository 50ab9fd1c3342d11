"""Matrix products, and the cross product of 3-vectors."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import GradientError, ShapeError
from runtime.ops.array_ops import expand_dims, squeeze, stack, transpose, unstack
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.math_ops import carries_gradient, kernel_inputs, multiply, subtract
from runtime.ops.registry import OpDef, Promotion, register
from runtime.ops.shapes import broadcast, ufunc_result_dtype
from runtime.tensor import format_shape, shapes_compatible


def _matmul_infer(a, b):
    dtype = ufunc_result_dtype("matmul", np.matmul, (a.dtype, b.dtype))
    if a.shape is None or b.shape is None:
        return dtype, None
    if not a.shape or not b.shape:
        raise ShapeError(f"matmul: scalar operands are not allowed, got shapes "
                         f"{format_shape(a.shape)} and {format_shape(b.shape)}; use multiply.")
    if len(a.shape) == 2 and len(b.shape) == 2:  # matrices, the usual case
        (rows, inner_a), (inner_b, columns) = a.shape, b.shape
        if inner_a is None or inner_b is None or inner_a == inner_b:
            return dtype, (rows, columns)
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
# 262,144. Up to a few million that gains little on an idle machine and on a busy one stalls
# for milliseconds while a thread waits for a core (0.5-30 ms); the thread count also changes
# the bits. Such products are computed in blocks that each stay under the threshold: one
# thread each, and the same bits whatever the load. Each BLAS call packs the whole of the
# operand the block does not split, so the split is along the longer of m and n: row blocks
# repack the (k x n) right operand, column blocks the (m x k) left one (20x784 @ 784x64
# float32: 118 us in row blocks, 69 us in column blocks). A block never has a single row or
# column, which NumPy would compute by gemv and the compiled tier by gemm.
_ONE_THREAD_WORK = 262_144
_BLOCKS_UP_TO = 1 << 22
ONE_CALL, ROW_BLOCKS, COLUMN_BLOCKS = 0, 1, 2


def blas_blocks(m: int, k: int, n: int) -> tuple[int, int]:
    """How an (m x k) @ (k x n) float product is split into BLAS calls: ``(ONE_CALL, 0)``,
    or ``(ROW_BLOCKS, rows)`` / ``(COLUMN_BLOCKS, columns)`` per call (see ``block_stop``)."""
    work = m * k * n
    if work <= _ONE_THREAD_WORK or work > _BLOCKS_UP_TO:
        return ONE_CALL, 0
    rows = _ONE_THREAD_WORK // (k * n)
    columns = _ONE_THREAD_WORK // (m * k)
    if n > m and columns >= 3:
        return COLUMN_BLOCKS, columns
    if rows >= 3:
        return ROW_BLOCKS, rows
    return ONE_CALL, 0


def block_stop(start: int, size: int, total: int) -> int:
    """Where the block that starts at ``start`` ends: ``size`` on, but one short when that
    would leave a single row or column for the last block."""
    stop = min(start + size, total)
    return stop - 1 if total - stop == 1 else stop


def _matmul_kernel(a, b):
    if a.ndim == 2 and b.ndim == 2 and a.dtype == b.dtype and a.dtype in _BLAS_DTYPES:
        (m, k), n = a.shape, b.shape[1]
        split, size = blas_blocks(m, k, n)
        if split != ONE_CALL:
            out = np.empty((m, n), a.dtype)
            start, total = 0, m if split == ROW_BLOCKS else n
            while start < total:
                stop = block_stop(start, size, total)
                if split == ROW_BLOCKS:
                    np.matmul(a[start:stop], b, out=out[start:stop])
                else:
                    np.matmul(a, b[:, start:stop], out=out[:, start:stop])
                start = stop
            return out
    return np.matmul(a, b)


_matmul_kernel.fresh_result = True  # a new array every call: the plan may write into it
_BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _bind_matmul(attrs, input_types):
    """``np.dot`` when the plan knows both operands are matrices and the product is one BLAS
    call (the checks of ``_matmul_kernel`` are then made once, not at every call of the
    plan). For matrices it calls the same BLAS routine as ``np.matmul``, so gives the same
    bits, and costs about 1 us less per call (matmul is a generalized ufunc)."""
    (a_dtype, a_shape), (b_dtype, b_shape) = input_types
    if a_shape is not None and b_shape is not None and len(a_shape) == 2 == len(b_shape) \
            and None not in a_shape + b_shape and a_dtype == b_dtype \
            and np.dtype(a_dtype) in _BLAS_DTYPES \
            and blas_blocks(a_shape[0], a_shape[1], b_shape[1])[0] == ONE_CALL:
        return np.dot
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


def cross(a, b, name=None):
    """The cross product of 3-vectors along the last axis of ``a`` and ``b`` (which have one
    shape, as in TensorFlow). ``name`` is accepted and ignored."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if not shapes_compatible(a.shape, b.shape):
        raise ShapeError(f"cross: a and b must have the same shape, got {format_shape(a.shape)} "
                         f"and {format_shape(b.shape)}.")
    for value in (a, b):
        if value.shape is not None and (not value.shape or value.shape[-1] not in (3, None)):
            raise ShapeError(f"cross: the last dimension must hold 3-vectors (size 3), got shape "
                             f"{format_shape(value.shape)}.")
    a, b = unstack(a, num=3, axis=-1), unstack(b, num=3, axis=-1)
    return stack([subtract(multiply(a[(i + 1) % 3], b[(i + 2) % 3]),
                           multiply(a[(i + 2) % 3], b[(i + 1) % 3])) for i in range(3)], axis=-1)
