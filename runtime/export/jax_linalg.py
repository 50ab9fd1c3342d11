"""Einstein summation, inverses, determinants, solves and decompositions in JAX, with the
graph's conventions: ``svd`` gives ``(s, u, v)`` (``v``, not NumPy's ``vh``), ``eigh`` and
``cholesky`` read only the lower triangle (JAX would symmetrize the input by default),
eigenvalues ascend.

Where the graph's kernel raises (a singular matrix for ``inv`` and ``solve``: LAPACK's LU
meets a zero pivot; a matrix that is not positive definite for ``cholesky``: JAX returns
NaN), the call raises the graph's error through a host check (``jax_checks``).

Singular vectors and eigenvectors are defined up to the sign of each one (of each pair
``u[:, i]``, ``v[:, i]`` for ``svd``): JAX's LAPACK and NumPy's agree to rounding on most
inputs, but on some float32 matrices they pick opposite signs for a vector. Both results are
valid decompositions, and whatever is computed from the vectors in a sign-independent way
(``u @ diag(s) @ v^T``, projections, the gradients of ``s``) agrees.
"""

from __future__ import annotations

import numpy as np

import jax.numpy as jnp
from jax import lax

from runtime.export.jax_arrays import kernel_message
from runtime.export.jax_checks import check
from runtime.export.jax_math import operands, out_dtype
from runtime.ops import decompositions_ops as d
from runtime.ops import einsum_ops


def _einsum(node, *values):
    """Bools sum products as counts and test them (NumPy's bool einsum is or-of-ands)."""
    equation, dtype = node.attrs["equation"], out_dtype(node)
    if dtype == np.bool_:
        counts = jnp.einsum(equation, *operands(node, values, np.dtype(np.int32)),
                            preferred_element_type=np.int32)
        return counts != 0
    precision = lax.Precision.HIGHEST if dtype.kind == "f" else None
    return jnp.einsum(equation, *operands(node, values), precision=precision,
                      preferred_element_type=dtype)


def _raise_like_the_kernel(node, ok, *arrays) -> None:
    check(node, ok, lambda *values: kernel_message(node.op, *values, **node.attrs), *arrays)


def _check_invertible(node, matrix, *arrays) -> None:
    """NumPy's ``inv`` and ``solve`` raise when LAPACK's LU factorization meets an exactly
    zero pivot; the same factorization in JAX tells when."""
    lu = lax.linalg.lu(matrix)[0]
    _raise_like_the_kernel(node, jnp.all(jnp.diagonal(lu, axis1=-2, axis2=-1) != 0), *arrays)


def _inv(node, a):
    (a,) = operands(node, (a,))
    _check_invertible(node, a, a)
    return jnp.linalg.inv(a)


def _solve(node, matrix, rhs):
    matrix, rhs = operands(node, (matrix, rhs))
    _check_invertible(node, matrix, matrix, rhs)
    return jnp.linalg.solve(matrix, rhs)


def _cholesky(node, a):
    """``lax``'s factorization reads the lower triangle, as NumPy's does, and gives NaN where
    NumPy raises (a pivot that is not positive). A matrix holding NaN gives NaN without an
    error in both."""
    (a,) = operands(node, (a,))
    factor = lax.linalg.cholesky(a, symmetrize_input=False)
    failed = jnp.any(jnp.isnan(factor), axis=(-2, -1))
    nan_input = jnp.any(jnp.isnan(jnp.tril(a)), axis=(-2, -1))
    _raise_like_the_kernel(node, ~failed | nan_input, a)
    return factor


def _det(node, a):
    return jnp.linalg.det(*operands(node, (a,)))


def _slogdet(node, a):
    sign, log_abs = jnp.linalg.slogdet(*operands(node, (a,)))
    return [sign, log_abs]


def _qr(node, a):
    mode = "complete" if node.attrs["full_matrices"] else "reduced"
    q, r = jnp.linalg.qr(*operands(node, (a,)), mode=mode)
    return [q, r]


def _svd(node, a):
    u, s, vh = jnp.linalg.svd(*operands(node, (a,)), full_matrices=node.attrs["full_matrices"])
    return [s, u, jnp.swapaxes(vh, -1, -2)]


def _singular_values(node, a):
    return jnp.linalg.svd(*operands(node, (a,)), compute_uv=False)


def _eigh(node, a):
    vectors, values = lax.linalg.eigh(*operands(node, (a,)), lower=True, symmetrize_input=False)
    return [values, vectors]


LOWERINGS = {
    einsum_ops.EINSUM: _einsum,
    d.INV: _inv,
    d.SOLVE: _solve,
    d.CHOLESKY: _cholesky,
    d.DET: _det,
    d.SLOGDET: _slogdet,
    d.QR: _qr,
    d.SVD: _svd,
    d.SINGULAR_VALUES: _singular_values,
    d.EIGH: _eigh,
}
