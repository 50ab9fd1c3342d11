"""``rt.linalg.triangular_solve``, ``logdet``, ``pinv``, ``lstsq`` and ``expm``: written with
the ops of ``decompositions_ops`` and ``linalg_ops``, so they run eagerly and in graphs, export wherever
those ops do, and have their gradients (of any order) without rules of their own.
"""

from __future__ import annotations

import numpy as np

from runtime.control_flow import while_loop
from runtime.ops.array_ops import cast, range as range_of, shape, where
from runtime.ops.decompositions_ops import (_as_matrix_factor, _matrices, cholesky, eigh, solve,
                                            svd)
from runtime.ops.layout_ops import eye
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.linalg_ops import matmul, matrix_transpose
from runtime.ops.math_ops import (abs, add, ceil, divide, equal, greater, less, log,  # noqa: A004
                                  maximum, multiply, pow)
from runtime.ops.matrix_structure_ops import band_part, diag_part
from runtime.ops.norm_ops import norm
from runtime.ops.reduce_ops import reduce_max, reduce_sum
from runtime.tensor import Tensor


def _size(matrices: Tensor, axis: int):
    """One dimension of ``matrices``: an int when known while tracing, else a scalar tensor."""
    known = None if matrices.shape is None else matrices.shape[axis]
    return known if known is not None else shape(matrices)[axis]


def _identity(size) -> Tensor:
    """The float64 identity matrix of ``size`` rows (an int or a scalar tensor)."""
    if isinstance(size, int):
        return eye(size, dtype=np.float64)
    positions = range_of(size)
    return cast(equal(positions[:, None], positions[None, :]), np.float64)


def triangular_solve(matrix, rhs, lower: bool = True, adjoint: bool = False) -> Tensor:
    """``X`` with ``matrix @ X = rhs`` reading only the lower (or upper) triangle of each
    matrix; ``adjoint`` solves with its transpose. The matrix's gradient is triangular too."""
    matrix = _matrices("triangular_solve", matrix)
    triangle = band_part(matrix, -1, 0) if lower else band_part(matrix, 0, -1)
    return solve(triangle, rhs, adjoint=adjoint)


def logdet(matrix) -> Tensor:
    """``log(det(matrix))`` of each symmetric positive definite matrix, from its Cholesky
    factor (no overflow where ``det`` would)."""
    factor = cholesky(_matrices("logdet", matrix))
    return multiply(reduce_sum(log(diag_part(factor)), axis=-1), 2.0)


def pinv(a, rcond=None, validate_args: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix ``[..., M, N]``, from its singular value
    decomposition; singular values below ``rcond`` times the largest count as zero (default
    ``10 * max(M, N)`` machine epsilons, as in TensorFlow)."""
    a = _matrices("pinv", a, square=False)
    if rcond is None:
        rcond = multiply(cast(maximum(_size(a, -2), _size(a, -1)), a.dtype),
                         10.0 * np.finfo(a.dtype).eps)
    s, u, v = svd(a)
    cutoff = multiply(reduce_max(s, axis=-1, keepdims=True), rcond)
    kept = greater(s, cutoff)
    inverse = where(kept, divide(1.0, where(kept, s, 1.0)), 0.0)  # no 1/0, even unselected
    return matmul(multiply(v, inverse[..., None, :]), u, transpose_b=True)


# Taylor series of exp to this degree is exact to float64 rounding on matrices of 1-norm <= 1
# (the remainder is below 1/19! ~ 8e-18 of the norm).
_TAYLOR_DEGREE = 18


def lstsq(matrix, rhs, l2_regularizer=0.0, fast: bool = True) -> Tensor:
    """The ``X`` that minimizes ``|matrix @ X - rhs|² + l2_regularizer * |X|²`` for each
    matrix ``[..., M, N]`` and right-hand sides ``[..., M, K]``. ``fast`` (TensorFlow's
    default) solves the normal equations by Cholesky, as TensorFlow does: the matrix must have
    full rank (or ``l2_regularizer > 0``), else the factorization fails; ``fast=False`` gives
    the minimum-norm solution of any matrix, from its pseudo-inverse."""
    a = _matrices("lstsq", matrix, square=False)
    b = convert_to_tensor(rhs, a.dtype)
    if not fast:
        if l2_regularizer:
            raise ValueError("lstsq: l2_regularizer needs fast=True, as in TensorFlow.")
        return matmul(pinv(a), b)
    rows, columns = _size(a, -2), _size(a, -1)
    if not isinstance(rows, int) or not isinstance(columns, int):
        raise ValueError("lstsq needs the matrix's last two dimensions known while tracing; "
                         "give the function an input_signature with those sizes.")
    transposed = matrix_transpose(a)
    if rows >= columns:
        gram = add(matmul(transposed, a), _regularizer(l2_regularizer, columns, a.dtype))
        return _cholesky_solve(cholesky(gram), matmul(transposed, b))
    gram = add(matmul(a, transposed), _regularizer(l2_regularizer, rows, a.dtype))
    return matmul(transposed, _cholesky_solve(cholesky(gram), b))


def _regularizer(l2_regularizer, size: int, dtype) -> Tensor:
    # A Python number converts straight to ``dtype``: cast would round 0.1 to float32 first.
    weight = (cast(l2_regularizer, dtype) if isinstance(l2_regularizer, Tensor)
              else convert_to_tensor(l2_regularizer, dtype))
    return multiply(cast(_identity(size), dtype), weight)


def _cholesky_solve(factor: Tensor, rhs: Tensor) -> Tensor:
    """``X`` with ``L @ L^T @ X = rhs``, by two triangular solves with the factor ``L``."""
    return triangular_solve(factor, triangular_solve(factor, rhs, lower=True), lower=True,
                            adjoint=True)


def expm(input) -> Tensor:  # noqa: A002 - TensorFlow's argument name
    """The matrix exponential of each square matrix, by scaling and squaring: ``exp(A) =
    exp(A / 2**s) ** (2**s)`` with ``s`` chosen so that ``A / 2**s`` has 1-norm at most 1,
    whose exponential a Taylor series gives. Computed in float64 and cast back."""
    matrix = _matrices("expm", input)
    wide = cast(matrix, np.float64)
    norms = reduce_max(reduce_sum(abs(wide), axis=-2), axis=-1)  # the 1-norm of each matrix
    squarings = maximum(ceil(log(maximum(norms, 1.0)) / np.log(2.0)), 0.0)
    scaled = divide(wide, _as_matrix_factor(pow(2.0, squarings)))
    identity = _identity(_size(wide, -1))
    result = identity
    for k in range(_TAYLOR_DEGREE, 0, -1):  # Horner: I + A/1 (I + A/2 (I + ...))
        result = add(identity, divide(matmul(scaled, result), float(k)))

    def more(step, value):
        return less(step, reduce_max(squarings))

    def square(step, value):
        squared = where(_as_matrix_factor(less(step, squarings)), matmul(value, value), value)
        return add(step, 1.0), squared

    _, result = while_loop(more, square, (cast(0.0, np.float64), result))
    return cast(result, matrix.dtype)


def eigvalsh(tensor) -> Tensor:
    """The eigenvalues of self-adjoint matrices, in ascending order."""
    return eigh(tensor)[0]


def normalize(tensor, ord="euclidean", axis=None):  # noqa: A002 - TensorFlow's name
    """``(tensor / norm, norm)``: the tensor scaled to norm 1 along ``axis`` (see ``norm``),
    and that norm (its reduced dimensions kept)."""
    magnitude = norm(tensor, ord=ord, axis=axis, keepdims=True)
    return divide(tensor, magnitude), magnitude
