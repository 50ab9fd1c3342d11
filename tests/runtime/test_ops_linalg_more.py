"""``rt.linalg`` beyond matmul: values against NumPy on random inputs (eagerly and traced),
TensorFlow's argument conventions, errors naming the op and shapes, gradients against finite
differences, and save/load of graphs using the new ops."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import runtime as rt
from runtime.errors import GradientError, InvalidArgumentError, ShapeError

from tests.runtime.test_gradients_math import RNG, check_gradients

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def _both(fn, *arrays):
    """``fn`` eagerly and traced, on the same inputs."""
    eager = fn(*[rt.constant(a) for a in arrays])
    traced = rt.function(fn)(*[rt.constant(a) for a in arrays])
    return eager, traced


def _close(pair, expected, rtol=1e-6, atol=1e-8):
    pair = pair if isinstance(pair, tuple) else (pair,)
    for value in pair:
        np.testing.assert_allclose(value.numpy(), expected, rtol=rtol, atol=atol)


def _well_conditioned(*shape):
    n = shape[-1]
    return RNG.uniform(-1, 1, shape) + n * np.eye(n)


def _spd(*shape):
    a = RNG.uniform(-1, 1, shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


# -- matmul options ---------------------------------------------------------------------------


@pytest.mark.parametrize("flags", [dict(transpose_a=True), dict(transpose_b=True),
                                   dict(adjoint_a=True, adjoint_b=True),
                                   dict(transpose_a=True, adjoint_b=True)])
def test_matmul_transpose_flags(flags):
    a, b = RNG.normal(size=(2, 3, 3)), RNG.normal(size=(2, 3, 3))
    ta = np.swapaxes(a, -1, -2) if flags.get("transpose_a") or flags.get("adjoint_a") else a
    tb = np.swapaxes(b, -1, -2) if flags.get("transpose_b") or flags.get("adjoint_b") else b
    for impl in (rt.matmul, rt.linalg.matmul):
        _close(_both(lambda x, y: impl(x, y, **flags), a, b), ta @ tb)
    check_gradients(lambda x, y: rt.matmul(x, y, **flags), a, b)


def test_matmul_flag_errors():
    with pytest.raises(ValueError, match="transpose_a and adjoint_a"):
        rt.matmul(np.eye(2), np.eye(2), transpose_a=True, adjoint_a=True)
    with pytest.raises(InvalidArgumentError, match=r"matmul.*\(2, 3\)"):
        rt.matmul(np.ones((2, 3)), np.ones((2, 3)))
    with pytest.raises(ShapeError, match=r"matmul: shapes \(2, 3\) and \(2, 3\)"):
        rt.function(rt.matmul)(np.ones((2, 3)), np.ones((2, 3)))
    assert rt.matmul(np.ones((2, 3)), np.ones((2, 3)), transpose_b=True).shape == (2, 2)


def test_matrix_transpose_and_its_errors():
    x = RNG.normal(size=(2, 3, 4))
    _close(_both(rt.linalg.matrix_transpose, x), np.swapaxes(x, -1, -2))
    with pytest.raises(ShapeError, match="rank 2 or more"):
        rt.linalg.matrix_transpose(np.ones(3))


# -- einsum and tensordot ---------------------------------------------------------------------


EQUATIONS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
             ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]), ("i,i->", [(4,), (4,)]),
             ("i,j->ij", [(3,), (2,)]), ("ij->ji", [(2, 3)]), ("ij->", [(2, 3)]),
             ("...ij,...jk->...ik", [(2, 2, 3), (3, 2)]), ("ij,kj->ik", [(2, 3), (4, 3)]),
             # a repeated subscript (a diagonal): its gradient lands on the diagonal
             ("ii->", [(3, 3)]), ("ii->i", [(3, 3)]), ("iij->j", [(2, 2, 4)]),
             ("...ii->...", [(2, 3, 3)]), ("ij,jj->i", [(2, 3), (3, 3)]),
             ("iji->j", [(2, 3, 2)]), ("iii->", [(2, 2, 2)])]


@pytest.mark.parametrize("equation,shapes", EQUATIONS)
def test_einsum_matches_numpy_with_gradients(equation, shapes):
    arrays = [RNG.normal(size=s) for s in shapes]
    _close(_both(lambda *xs: rt.einsum(equation, *xs), *arrays), np.einsum(equation, *arrays))
    traced = rt.function(lambda *xs: rt.einsum(equation, *xs)).get_concrete_function(
        *[rt.TensorSpec(s, rt.float64) for s in shapes])
    assert traced.graph.outputs[0].shape == np.einsum(equation, *arrays).shape
    check_gradients(lambda *xs: rt.linalg.einsum(equation, *xs), *arrays)


def test_einsum_errors():
    with pytest.raises(TypeError, match="same dtype"):
        rt.einsum("ij,jk->ik", np.ones((2, 2), np.float32), np.ones((2, 2)))
    with pytest.raises(ShapeError, match="subscript 'j'"):
        rt.function(lambda a, b: rt.einsum("ij,jk->ik", a, b))(np.ones((2, 3)), np.ones((4, 2)))
    with pytest.raises(ValueError, match="names 2 operands"):
        rt.einsum("ij,jk->ik", np.ones((2, 2)))


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(0, 2))
def test_tensordot_matches_numpy(m, n, k, axes):
    a, b = RNG.normal(size=(m, n, k)), RNG.normal(size=(n, k, m))
    if axes == 1:
        b = RNG.normal(size=(k, m))
    elif axes == 2:
        b = RNG.normal(size=(n, k))
    _close(_both(lambda x, y: rt.linalg.tensordot(x, y, axes), a, b),
           np.tensordot(a, b, axes))
    pairs = ([0, -1], [1, 0])
    c = RNG.normal(size=(k, m, n))
    _close(rt.tensordot(a, c, pairs), np.tensordot(a, c, pairs))


def test_tensordot_gradient_and_errors():
    check_gradients(lambda x, y: rt.linalg.tensordot(x, y, [[1], [0]]),
                    RNG.normal(size=(2, 3)), RNG.normal(size=(3, 2)))
    with pytest.raises(ShapeError, match="differ in size"):
        rt.linalg.tensordot(np.ones((2, 3)), np.ones((2, 3)), 1)


# -- norms ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ord_,axis", [("euclidean", None), (1, None), (np.inf, 0), (2, -1),
                                       (3, 1), ("fro", (0, 1)), (1, (0, 1)), (np.inf, (0, 1)),
                                       (2, (0, 1)), ("euclidean", (1, 0))])
def test_norm_matches_numpy(ord_, axis):
    x = RNG.normal(size=(3, 4))
    np_ord = None if ord_ == "euclidean" else ord_
    if axis is None:
        expected = np.linalg.norm(x.ravel(), np_ord)
    elif isinstance(axis, tuple) and ord_ == "euclidean":
        expected = np.linalg.norm(x, "fro", axis)
    else:
        expected = np.linalg.norm(x, np_ord, axis)
    _close(_both(lambda t: rt.linalg.norm(t, ord_, axis), x), expected)
    assert rt.linalg.norm(x, ord_, axis, keepdims=True).numpy().ndim == 2
    if ord_ != 2 or not isinstance(axis, tuple):
        check_gradients(lambda t: rt.linalg.norm(t, ord_, axis), x)


def test_norm_errors():
    with pytest.raises(TypeError, match="norm needs a floating-point"):
        rt.linalg.norm(np.ones(3, np.int32))
    with pytest.raises(ValueError, match="ord must be"):
        rt.linalg.norm(np.ones((2, 2)), ord=-1)
    with pytest.raises(ValueError, match="must differ"):
        rt.linalg.norm(np.ones((2, 2)), axis=(0, 0))


# -- inverses, determinants, solves, decompositions --------------------------------------------


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_inverse_determinants_and_solve(dtype):
    a, b = _well_conditioned(2, 3, 3).astype(dtype), RNG.normal(size=(2, 3, 2)).astype(dtype)
    rtol = 1e-4 if dtype == np.float32 else 1e-8
    _close(_both(rt.linalg.inv, a), np.linalg.inv(a), rtol)
    _close(_both(lambda x: rt.linalg.inv(x, adjoint=True), a),
           np.linalg.inv(np.swapaxes(a, -1, -2)), rtol)
    _close(_both(rt.linalg.det, a), np.linalg.det(a), rtol)
    sign, logdet = np.linalg.slogdet(a)
    for pair in _both(rt.linalg.slogdet, a):
        np.testing.assert_allclose(pair[0].numpy(), sign, rtol)
        np.testing.assert_allclose(pair[1].numpy(), logdet, rtol)
        assert pair[1].dtype == dtype
    _close(_both(rt.linalg.solve, a, b), np.linalg.solve(a, b), rtol, 1e-5)
    _close(_both(lambda x, y: rt.linalg.solve(x, y, adjoint=True), a, b),
           np.linalg.solve(np.swapaxes(a, -1, -2), b), rtol, 1e-5)
    for fn in (rt.linalg.inv, rt.linalg.det):
        assert fn(a).dtype == dtype


def test_linalg_gradients():
    a, b = _well_conditioned(2, 3, 3), RNG.normal(size=(2, 3, 2))
    check_gradients(rt.linalg.inv, a, rtol=1e-5)
    check_gradients(rt.linalg.det, a, rtol=1e-5)
    check_gradients(lambda x: rt.linalg.slogdet(x)[1], a, rtol=1e-5)
    check_gradients(rt.linalg.solve, a, b, rtol=1e-5)
    check_gradients(lambda x, y: rt.linalg.solve(x, y, adjoint=True), a, b, rtol=1e-5)
    # Cholesky reads the lower triangle: differentiate through a symmetric input.
    check_gradients(lambda x: rt.linalg.cholesky(rt.matmul(x, x, transpose_b=True)),
                    _well_conditioned(3, 3), rtol=1e-5)
    check_gradients(lambda x: rt.linalg.eigh(x + rt.linalg.matrix_transpose(x))[0],
                    RNG.normal(size=(3, 3)), rtol=1e-5)
    check_gradients(lambda x: rt.reduce_sum(rt.abs(rt.linalg.eigh(
        x + rt.linalg.matrix_transpose(x))[1][..., 0])), RNG.normal(size=(3, 3)), rtol=1e-5)


def test_decompositions_match_numpy():
    a = RNG.normal(size=(2, 4, 3))
    for q, r in _both(rt.linalg.qr, a):
        np.testing.assert_allclose(q.numpy() @ r.numpy(), a, atol=1e-12)
        assert q.shape == (2, 4, 3) and r.shape == (2, 3, 3)
        np.testing.assert_allclose(np.tril(r.numpy()[0], -1), 0, atol=1e-12)
    q, r = rt.linalg.qr(a, full_matrices=True)
    assert q.shape == (2, 4, 4) and r.shape == (2, 4, 3)
    for s, u, v in _both(rt.linalg.svd, a):
        np.testing.assert_allclose(s.numpy(), np.linalg.svd(a, compute_uv=False))
        np.testing.assert_allclose(u.numpy() * s.numpy()[:, None, :] @ np.swapaxes(
            v.numpy(), -1, -2), a, atol=1e-12)
    _close(_both(lambda x: rt.linalg.svd(x, compute_uv=False), a),
           np.linalg.svd(a, compute_uv=False))
    spd = _spd(2, 3, 3)
    _close(_both(rt.linalg.cholesky, spd), np.linalg.cholesky(spd))
    e, v = rt.linalg.eigh(spd)
    np.testing.assert_allclose(e.numpy(), np.linalg.eigh(spd)[0])
    np.testing.assert_allclose(v.numpy() * e.numpy()[:, None, :] @ np.swapaxes(v.numpy(), 1, 2),
                               spd, atol=1e-12)


def test_decomposition_errors():
    with pytest.raises(InvalidArgumentError, match="inv: the matrix is not invertible"):
        rt.linalg.inv(np.zeros((2, 2)))
    with pytest.raises(InvalidArgumentError, match="cholesky: the matrix is not positive"):
        rt.function(rt.linalg.cholesky)(rt.constant(-np.eye(2)))
    with pytest.raises(ShapeError, match=r"det needs square matrices, got shape \(2, 3\)"):
        rt.linalg.det(np.ones((2, 3)))
    with pytest.raises(TypeError, match="float32 or float64"):
        rt.linalg.inv(np.eye(2, dtype=np.int32))
    with pytest.raises(ShapeError, match="solve: rhs must have shape"):
        rt.function(rt.linalg.solve)(np.eye(3), np.ones((2, 1)))
    x = rt.constant(RNG.normal(size=(3, 2)))  # tall with full_matrices: no gradient
    with pytest.raises(GradientError, match="qr: no gradient .* full_matrices=True"):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.linalg.qr(x, full_matrices=True)[0]
        tape.gradient(y, x)


# -- diagonals, bands, trace ------------------------------------------------------------------


def test_diagonals_bands_and_trace():
    x, d = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 3))
    _close(_both(rt.linalg.diag_part, x), np.diagonal(x, axis1=-2, axis2=-1))
    _close(_both(rt.linalg.diag, d), np.stack([np.diag(row) for row in d]))
    _close(_both(rt.linalg.trace, x), np.trace(x, axis1=-2, axis2=-1))
    for lower, upper in [(0, -1), (-1, 0), (1, 1), (0, 0), (-1, -1)]:
        keep = np.ones((3, 4), bool)
        i, j = np.indices((3, 4))
        if lower >= 0:
            keep &= i - j <= lower
        if upper >= 0:
            keep &= j - i <= upper
        _close(_both(lambda t: rt.linalg.band_part(t, lower, upper), x), np.where(keep, x, 0))
        check_gradients(lambda t: rt.linalg.band_part(t, lower, upper), x)
    check_gradients(rt.linalg.diag_part, x)
    check_gradients(rt.linalg.diag_part, np.swapaxes(x, 1, 2))
    check_gradients(rt.linalg.diag, d)
    check_gradients(rt.linalg.trace, x)
    assert rt.linalg.diag_part(np.arange(4, dtype=np.int64).reshape(2, 2)).dtype == rt.int64
    with pytest.raises(ShapeError, match="diag_part needs a tensor of rank 2"):
        rt.linalg.diag_part(np.ones(3))


def test_graphs_with_linalg_ops_save_and_load(tmp_path):
    def fn(a, b):
        return (rt.linalg.trace(rt.linalg.inv(a)) + rt.linalg.det(a)
                + rt.reduce_sum(rt.einsum("ij,jk->ik", a, b)) + rt.linalg.norm(b)
                + rt.reduce_sum(rt.linalg.band_part(a, 0, 1)) + rt.linalg.svd(a, compute_uv=False)[0]
                + rt.linalg.qr(a)[1][0, 0] + rt.linalg.eigh(a)[0][0]
                + rt.linalg.slogdet(a)[1] + rt.reduce_sum(rt.linalg.solve(a, b))
                + rt.linalg.cholesky(rt.matmul(a, a, transpose_b=True))[0, 0]
                + rt.reduce_sum(rt.linalg.diag(rt.linalg.diag_part(a))))
    a, b = _well_conditioned(3, 3), RNG.normal(size=(3, 2))
    concrete = rt.function(fn).get_concrete_function(rt.constant(a), rt.constant(b))
    rt.save(concrete, str(tmp_path / "g"))
    loaded = rt.load(str(tmp_path / "g"))
    np.testing.assert_allclose(loaded(rt.constant(a), rt.constant(b)).numpy(),
                               fn(rt.constant(a), rt.constant(b)).numpy())
