"""Matrix inverses, determinants, solves and decompositions (``rt.linalg``), batched over
leading dimensions, with TensorFlow's gradients where they are defined.

Each op works on the last two dimensions of float32/float64 tensors; a kernel failure (a
singular matrix, a matrix that is not positive definite) raises ``InvalidArgumentError`` naming
the op, eagerly and when a graph runs. The gradient rules are TensorFlow's, written with ops (so
they run eagerly, in graphs, and to higher orders). Where there is none (``qr`` with
``full_matrices`` on a tall matrix, ``svd`` with ``full_matrices`` when the matrix dimensions
differ by more than one: TensorFlow refuses both), asking for one raises a ``GradientError``
that names the op, the shape and the reason. Complex matrices are out of scope: the ops take
only float32 and float64.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from runtime.errors import GradientError, InvalidArgumentError, ShapeError
from runtime.ops.array_ops import concat, expand_dims, where, zeros_like
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.linalg_ops import matmul, matrix_transpose
from runtime.ops.math_ops import add, divide, equal, multiply, negative, subtract
from runtime.ops.matrix_structure_ops import band_part, diag, diag_part
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import broadcast
from runtime.tensor import Tensor, format_shape

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _matrices(op_name: str, x, square: bool = True) -> Tensor:
    """``x`` as a float tensor of rank >= 2 (square in its last two dimensions if asked)."""
    x = convert_to_tensor(x)
    if x.dtype not in _FLOATS:
        raise TypeError(f"{op_name} needs a float32 or float64 tensor, got {x.dtype.name}; use "
                        f"rt.cast to convert.")
    if x.shape is not None:
        if len(x.shape) < 2:
            raise ShapeError(f"{op_name} needs a tensor of rank 2 or more (a batch of "
                             f"matrices), got shape {format_shape(x.shape)}.")
        rows, cols = x.shape[-2:]
        if square and rows is not None and cols is not None and rows != cols:
            raise ShapeError(f"{op_name} needs square matrices, got shape "
                             f"{format_shape(x.shape)}.")
    return x


def _checked(op_name: str, what: str, function):
    """``function`` raising InvalidArgumentError (``what`` went wrong) on a LinAlgError."""
    def kernel(*arrays, **attrs):
        try:
            return function(*arrays, **attrs)
        except np.linalg.LinAlgError as error:
            shapes = ", ".join(format_shape(a.shape) for a in arrays)
            raise InvalidArgumentError(f"{op_name}: {what} (inputs of shape {shapes}; "
                                       f"{error}).") from None
    return kernel


def _same(x, **attrs):
    return x.dtype, x.shape


def _batch(x):
    return x.dtype, None if x.shape is None else x.shape[:-2]


def _as_matrix_factor(value: Tensor) -> Tensor:
    """A per-matrix scalar as a tensor that broadcasts against the matrices."""
    return expand_dims(expand_dims(value, -1), -1)


# -- inverse and determinants --------------------------------------------------------------


def _inv_grad(node, dy):
    inverse_t = matrix_transpose(node.outputs[0])
    return (negative(matmul(inverse_t, matmul(dy, inverse_t))),)


def _det_grad(node, dy):
    a = node.inputs[0]
    return (multiply(_as_matrix_factor(multiply(dy, node.outputs[0])),
                     matrix_transpose(inv(a))),)


def _slogdet_kernel(a):
    sign, log_abs = np.linalg.slogdet(a)
    return sign.astype(a.dtype), log_abs.astype(a.dtype)


def _slogdet_grad(node, d_sign, d_log):
    if d_log is None:
        return (None,)
    return (multiply(_as_matrix_factor(d_log), matrix_transpose(inv(node.inputs[0]))),)


INV = register(OpDef("matrix_inverse", _checked("inv", "the matrix is not invertible",
                                                np.linalg.inv), _same, gradient=_inv_grad))
DET = register(OpDef("matrix_determinant", lambda a: np.asarray(np.linalg.det(a), a.dtype),
                     _batch, gradient=_det_grad))
SLOGDET = register(OpDef("log_matrix_determinant", _slogdet_kernel,
                         lambda a: (_batch(a), _batch(a)), num_outputs=2,
                         gradient=_slogdet_grad))


def inv(input, adjoint: bool = False):  # noqa: A002 - TensorFlow's argument name
    """The inverse of each matrix in the last two dimensions (of its adjoint if asked)."""
    x = _matrices("inv", input)
    return apply_op(INV, (matrix_transpose(x) if adjoint else x,))


def det(input):  # noqa: A002
    """The determinant of each matrix; shape ``input.shape[:-2]``."""
    return apply_op(DET, (_matrices("det", input),))


class LogMatrixDeterminant(NamedTuple):
    """What ``slogdet`` returns, with TensorFlow's names."""

    sign: Tensor
    log_abs_determinant: Tensor


def slogdet(input):  # noqa: A002
    """``(sign, log_abs_determinant)`` of each matrix: the determinant without overflow."""
    return LogMatrixDeterminant(*apply_op(SLOGDET, (_matrices("slogdet", input),)))


# -- solve and Cholesky --------------------------------------------------------------------


def _solve_kernel(matrix, rhs):
    return np.linalg.solve(matrix, rhs)


def _solve_infer(matrix, rhs):
    if matrix.shape is None or rhs.shape is None:
        return rhs.dtype, None
    if len(rhs.shape) < 2 or (rhs.shape[-2] is not None and matrix.shape[-1] is not None
                              and rhs.shape[-2] != matrix.shape[-1]):
        raise ShapeError(f"solve: rhs must have shape [..., M, K] for matrices of shape "
                         f"[..., M, M], got matrix {format_shape(matrix.shape)} and rhs "
                         f"{format_shape(rhs.shape)}.")
    return rhs.dtype, broadcast("solve", matrix.shape[:-2], rhs.shape[:-2]) + rhs.shape[-2:]


def _solve_grad(node, dy):
    matrix = node.inputs[0]
    d_rhs = solve(matrix, dy, adjoint=True)
    return negative(matmul(d_rhs, matrix_transpose(node.outputs[0]))), d_rhs


SOLVE = register(OpDef("matrix_solve", _checked("solve", "the matrix is not invertible",
                                                _solve_kernel), _solve_infer,
                       gradient=_solve_grad))


def solve(matrix, rhs, adjoint: bool = False):
    """``X`` with ``matrix @ X = rhs`` for each matrix ``[..., M, M]`` and right-hand sides
    ``[..., M, K]`` (batch dimensions broadcast); ``adjoint`` solves with the transpose."""
    matrix = _matrices("solve", matrix)
    rhs = convert_to_tensor(rhs, matrix.dtype)
    return apply_op(SOLVE, (matrix_transpose(matrix) if adjoint else matrix, rhs))


def _cholesky_grad(node, dy):
    """TensorFlow's rule: with ``L`` the factor, ``P = tril(L^T dL)`` with its diagonal
    halved, the gradient is ``L^-T P L^-1`` made symmetric."""
    factor = node.outputs[0]
    factor_inv = inv(factor)
    middle = matmul(matrix_transpose(factor), dy)
    middle = subtract(band_part(middle, -1, 0), multiply(band_part(middle, 0, 0), 0.5))
    grad = matmul(matmul(matrix_transpose(factor_inv), middle), factor_inv)
    return (multiply(add(grad, matrix_transpose(grad)), 0.5),)


CHOLESKY = register(OpDef("cholesky", _checked("cholesky", "the matrix is not positive "
                                                           "definite", np.linalg.cholesky),
                          _same, gradient=_cholesky_grad))


def cholesky(input):  # noqa: A002
    """The lower-triangular ``L`` with ``L @ L^T = input`` for each symmetric positive definite
    matrix (only the lower triangle of ``input`` is read)."""
    return apply_op(CHOLESKY, (_matrices("cholesky", input),))


# -- decompositions ------------------------------------------------------------------------


def _qr_kernel(a, full_matrices):
    q, r = np.linalg.qr(a, mode="complete" if full_matrices else "reduced")
    return q, r


def _qr_infer(a, full_matrices):
    if a.shape is None:
        return (a.dtype, None), (a.dtype, None)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = m if full_matrices or m is None or n is None else min(m, n)
    return (a.dtype, batch + (m, k)), (a.dtype, batch + (k, n))


def _svd_kernel(a, full_matrices, compute_uv):
    if not compute_uv:
        return np.linalg.svd(a, compute_uv=False)
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return s, u, np.swapaxes(vh, -1, -2)


def _svd_infer(a, full_matrices, compute_uv):
    if a.shape is None:
        return ((a.dtype, None),) * 3 if compute_uv else (a.dtype, None)
    batch, (m, n) = a.shape[:-2], a.shape[-2:]
    k = None if m is None or n is None else min(m, n)
    s = (a.dtype, batch + (k,))
    if not compute_uv:
        return s
    if full_matrices:
        return s, (a.dtype, batch + (m, m)), (a.dtype, batch + (n, n))
    return s, (a.dtype, batch + (m, k)), (a.dtype, batch + (n, k))


def _matrix_dims(a: Tensor) -> tuple:
    """``(rows, columns)`` of ``a``'s matrices, None where unknown while tracing."""
    return (None, None) if a.shape is None else tuple(a.shape[-2:])


def _qr_refusal(a: Tensor, full_matrices: bool) -> str | None:
    """Why the qr of ``a`` has no gradient here, or None when it has one."""
    m, n = _matrix_dims(a)
    if m is None or n is None:
        why = ("the rule needs the matrix dimensions while tracing and they are unknown; give "
               "the function an input_signature with known matrix dimensions")
    elif full_matrices and m > n:
        why = (f"q's last {m - n} columns are an arbitrary orthonormal basis of what a's "
               f"columns leave out, so they have no derivative; use full_matrices=False")
    else:
        return None
    return (f"qr: no gradient for a matrix of shape {format_shape(a.shape)} with "
            f"full_matrices={full_matrices}: {why}.")


def _qr_grad(node, dq, dr):
    """The gradient of ``a = q r`` for an ``m x n`` matrix ``a``.

    Square or tall (``m >= n``, ``r`` square): see ``_square_r_grad``. Wide (``m < n``):
    split ``a = [x | y]`` with ``x`` the first ``m`` columns; then ``r = [u | v]`` where
    ``q u = x`` is the qr of the square ``x`` and ``v = q^T y``. Through ``v``, ``y`` gets
    ``q dv`` and ``q`` gets ``y dv^T`` more, so ``x`` takes the square rule with
    ``(dq + y dv^T, du)`` (TensorFlow reduces the wide case the same way). ``full_matrices``
    changes nothing for a wide matrix (``q`` is ``m x m`` either way); a rank-deficient ``x``
    has a singular ``u`` and no gradient."""
    a = node.inputs[0]
    refusal = _qr_refusal(a, node.attrs["full_matrices"])
    if refusal is not None:
        raise GradientError(refusal)
    q, r = node.outputs
    m, n = _matrix_dims(a)
    if m >= n:
        return (_square_r_grad(q, r, dq, dr),)
    du, dv = (None, None) if dr is None else (dr[..., :m], dr[..., m:])
    y = a[..., m:]
    if dv is None:
        dy = zeros_like(y)
    else:
        dy = matmul(q, dv)
        through_v = matmul(y, dv, transpose_b=True)
        dq = through_v if dq is None else add(dq, through_v)
    return (concat([_square_r_grad(q, r[..., :m], dq, du), dy], -1),)


def _square_r_grad(q, r, dq, dr):
    """For ``r`` square: ``(dq + q S) r^-T``, where ``S`` is the symmetric matrix with the
    lower triangle of ``M = r dr^T - dq^T q`` (TensorFlow's gradient, rearranged). A
    rank-deficient input has a singular ``r`` and no gradient: the solve with ``r`` raises
    InvalidArgumentError."""
    middle = None if dr is None else matmul(r, dr, transpose_b=True)
    if dq is not None:
        q_part = matmul(dq, q, transpose_a=True)
        middle = negative(q_part) if middle is None else subtract(middle, q_part)
    lower = band_part(middle, -1, 0)
    strictly_lower = subtract(lower, band_part(middle, 0, 0))
    left = matmul(q, add(lower, matrix_transpose(strictly_lower)))
    if dq is not None:
        left = add(dq, left)
    # left @ r^-T is the transpose of r^-1 @ left^T.
    return matrix_transpose(solve(r, matrix_transpose(left)))


def _safe_reciprocal(x: Tensor) -> Tensor:
    """TensorFlow's ``x / (x^2 + 1e-20)``: ``1 / x`` away from 0, and 0 at 0."""
    return divide(x, add(multiply(x, x), 1e-20))


def _svd_refusal(a: Tensor, full_matrices: bool) -> str | None:
    """Why the svd of ``a`` has no gradient here, or None when it has one."""
    m, n = _matrix_dims(a)
    if not full_matrices:
        return None
    if m is None or n is None:
        why = ("with full_matrices the rule needs the matrix dimensions while tracing and they "
               "are unknown; give the function an input_signature with known matrix dimensions")
    elif abs(m - n) > 1:
        why = (f"the last {abs(m - n)} columns of {'u' if m > n else 'v'} are an arbitrary "
               f"orthonormal basis of a subspace, so they have no derivative (TensorFlow "
               f"refuses too when the dimensions differ by more than one); use "
               f"full_matrices=False")
    else:
        return None
    return (f"svd: no gradient for a matrix of shape {format_shape(a.shape)} with "
            f"full_matrices=True: {why}.")


def _svd_grad(node, ds, du, dv):
    """TensorFlow's rule. With ``u`` and ``v`` the first ``k = min(m, n)`` columns and
    ``F[i, j] = 1 / (s[j]^2 - s[i]^2)`` off the diagonal (0 on it)::

        da = u (diag(ds) + (J + J^T) S + S (K + K^T)) v^T        J = F * (u^T du)
             + (du - u u^T du) S^-1 v^T        (only when m > k)  K = F * (v^T dv)
             + u S^-1 (dv^T - dv^T v v^T)      (only when n > k)

    plus, with full_matrices, the terms of the single extra column of the longer side. Where
    singular values repeat, ``u`` and ``v`` are not unique and the gradient through them is
    not defined: like TensorFlow, ``F`` is 0 at exact ties (a finite but arbitrary answer)
    and very large near them, and a zero singular value gets 0 for ``1 / s`` (the gradient
    through ``s`` alone is always defined)."""
    a = node.inputs[0]
    full_matrices = node.attrs["full_matrices"]
    refusal = _svd_refusal(a, full_matrices)
    if refusal is not None:
        raise GradientError(refusal)
    s, u, v = node.outputs
    m, n = _matrix_dims(a)
    k = None if m is None or n is None else min(m, n)
    u_extra = v_extra = du_extra = dv_extra = None
    if full_matrices and m != n:  # the one extra column of u (tall) or of v (wide)
        if m > n:
            u, u_extra = u[..., :k], u[..., k:]
            du, du_extra = (None, None) if du is None else (du[..., :k], du[..., k:])
        else:
            v, v_extra = v[..., :k], v[..., k:]
            dv, dv_extra = (None, None) if dv is None else (dv[..., :k], dv[..., k:])
    inner = None if ds is None else diag(ds)
    if du is not None or dv is not None:
        squares = multiply(s, s)
        reciprocals = _safe_reciprocal(subtract(expand_dims(squares, -2),
                                                expand_dims(squares, -1)))
        # 0 on the diagonal, where the difference is 0. Subtracting the diagonal (0 there)
        # cuts its gradient too: the slope of the safe reciprocal at 0 is 1e20, and a second
        # derivative summing those would lose every other term to rounding.
        gaps = subtract(reciprocals, band_part(reciprocals, 0, 0))
        for d, basis, side in ((du, u, -2), (dv, v, -1)):
            if d is None:
                continue
            j = multiply(gaps, matmul(basis, d, transpose_a=True))
            # (J + J^T) S scales columns by s; S (K + K^T) scales rows.
            term = multiply(add(j, matrix_transpose(j)), expand_dims(s, side))
            inner = term if inner is None else add(inner, term)
    grad = matmul(u, matmul(inner, v, transpose_b=True))
    s_inverse = _safe_reciprocal(s)
    if du is not None and (k is None or m > k):
        rest = subtract(du, matmul(u, matmul(u, du, transpose_a=True)))
        if du_extra is not None:
            rest = subtract(rest, matmul(u_extra, matmul(du_extra, u, transpose_a=True)))
        grad = add(grad, matmul(multiply(rest, expand_dims(s_inverse, -2)), v,
                                transpose_b=True))
    if dv is not None and (k is None or n > k):
        rest = subtract(dv, matmul(v, matmul(v, dv, transpose_a=True)))
        if dv_extra is not None:
            rest = subtract(rest, matmul(v_extra, matmul(dv_extra, v, transpose_a=True)))
        grad = add(grad, matmul(multiply(u, expand_dims(s_inverse, -2)), rest,
                                transpose_b=True))
    return (grad,)


def _singular_values_grad(node, ds):
    """``u diag(ds) v^T``, from the reduced svd recomputed."""
    _, u, v = svd(node.inputs[0])
    return (matmul(multiply(u, expand_dims(ds, -2)), v, transpose_b=True),)


def _eigh_infer(a):
    return (a.dtype, None if a.shape is None else a.shape[:-1]), (a.dtype, a.shape)


def _eigh_grad(node, d_values, d_vectors):
    """``V (diag(de) + F * (V^T dV)) V^T`` with ``F[i, j] = 1 / (e[j] - e[i])`` off the
    diagonal; NumPy reads the lower triangle, so the symmetric part lands there (as in
    TensorFlow)."""
    values, vectors = node.outputs
    inner = None
    if d_vectors is not None:
        gaps = subtract(expand_dims(values, -2), expand_dims(values, -1))
        same = equal(gaps, 0.0)
        factors = where(same, 0.0, divide(1.0, where(same, 1.0, gaps)))
        inner = multiply(factors, matmul(matrix_transpose(vectors), d_vectors))
    if d_values is not None:
        inner = diag(d_values) if inner is None else add(inner, diag(d_values))
    grad = matmul(vectors, matmul(inner, matrix_transpose(vectors)))
    return (subtract(band_part(add(grad, matrix_transpose(grad)), -1, 0), diag(diag_part(grad))),)


QR = register(OpDef("qr", _qr_kernel, _qr_infer, num_outputs=2, gradient=_qr_grad))
SVD = register(OpDef("svd", _svd_kernel, _svd_infer, num_outputs=3,
                     gradient=_svd_grad))
SINGULAR_VALUES = register(OpDef("singular_values", _svd_kernel, _svd_infer,
                                 gradient=_singular_values_grad))
EIGH = register(OpDef("self_adjoint_eig", np.linalg.eigh, _eigh_infer, num_outputs=2,
                      gradient=_eigh_grad))


class Qr(NamedTuple):
    """What ``qr`` returns, with TensorFlow's names."""

    q: Tensor
    r: Tensor


def qr(input, full_matrices: bool = False):  # noqa: A002
    """``(q, r)`` with ``q`` orthonormal columns and ``r`` upper triangular, per matrix."""
    return Qr(*apply_op(QR, (_matrices("qr", input, square=False),),
                        {"full_matrices": bool(full_matrices)}))


def svd(tensor, full_matrices: bool = False, compute_uv: bool = True):
    """``(s, u, v)`` with ``tensor = u @ diag(s) @ v^T`` (TensorFlow's order, and ``v`` rather
    than NumPy's ``vh``); only ``s`` when ``compute_uv`` is False."""
    tensor = _matrices("svd", tensor, square=False)
    attrs = {"full_matrices": bool(full_matrices), "compute_uv": bool(compute_uv)}
    return apply_op(SVD if compute_uv else SINGULAR_VALUES, (tensor,), attrs)


def eigh(tensor):
    """``(e, v)``: the eigenvalues (ascending) and eigenvectors of each symmetric matrix, read
    from its lower triangle."""
    return apply_op(EIGH, (_matrices("eigh", tensor),))
