"""Gradients where eager2graph differed from TensorFlow's tf.GradientTape: the values
TensorFlow gives (recorded here as literals, or checked as a property with NumPy), eagerly and
traced, in float32 and float64."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

DTYPES = [np.float32, np.float64]
TRACED = pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
EACH_DTYPE = pytest.mark.parametrize("dtype", DTYPES)


def _run(fn, traced, *arrays, dtype):
    tensors = [rt.constant(np.asarray(a, dtype)) for a in arrays]
    return (rt.function(fn) if traced else fn)(*tensors)


def _gradients(fn, arrays, dtype, traced, weights=None):
    """The gradients of ``fn(*inputs)`` (weighted by ``weights``) with respect to each input,
    as NumPy arrays."""
    def gradients(*tensors):
        with rt.GradientTape() as tape:
            tape.watch(tensors)
            y = fn(*tensors)
        seed = None if weights is None else rt.constant(np.asarray(weights, dtype))
        return tape.gradient(y, list(tensors), output_gradients=seed)
    return [g.numpy() for g in _run(gradients, traced, *arrays, dtype=dtype)]


def _second_derivative(fn, x, dtype, traced):
    """The gradient of the sum of ``fn``'s gradient (``fn`` summed), by nested tapes; None if
    the outer tape finds no path."""
    def second(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                y = fn(x)
            first = inner.gradient(y, x)
        return outer.gradient(first, x)
    result = _run(second, traced, x, dtype=dtype)
    return None if result is None else result.numpy()


def _tolerance(dtype) -> float:
    return 1e-5 if dtype == np.float32 else 1e-12


# -- einsum: broadcast dimensions that only one operand has ------------------------------------

_RNG = np.random.default_rng(0)
_A = _RNG.uniform(-1, 1, (2, 3, 4))
_B, _C = _RNG.uniform(-1, 1, (4, 2)), _RNG.uniform(-1, 1, (2, 4))


@TRACED
@EACH_DTYPE
@pytest.mark.parametrize("equation, operands, expected", [
    ("...ij,jk->...ik", (_A, _B),
     lambda dy: (np.einsum("bik,jk->bij", dy, _B), np.einsum("bik,bij->jk", dy, _A))),
    ("jk,...ij->...ik", (_B, _A),
     lambda dy: (np.einsum("bik,bij->jk", dy, _A), np.einsum("bik,jk->bij", dy, _B))),
    ("...ij,kj->...k", (_A, _C),
     lambda dy: (np.broadcast_to(np.einsum("bk,kj->bj", dy, _C)[:, None], _A.shape),
                 np.einsum("bk,bij->kj", dy, _A))),
], ids=["batched-first", "batched-second", "summed-away"])
def test_einsum_gradient_sums_the_broadcast_dimensions_an_operand_lacks(
        equation, operands, expected, dtype, traced):
    dy = np.random.default_rng(1).uniform(0.5, 1.5, np.einsum(equation, *operands).shape)
    grads = _gradients(lambda *xs: rt.einsum(equation, *xs), operands, dtype, traced, dy)
    for grad, want in zip(grads, expected(dy)):
        assert grad.dtype == dtype
        np.testing.assert_allclose(grad, want, rtol=_tolerance(dtype), atol=_tolerance(dtype))


# -- xdivy: both gradients are 0 where x is 0 ---------------------------------------------------


@TRACED
@EACH_DTYPE
def test_xdivy_gradients_are_zero_where_x_is_zero(dtype, traced):
    grads = _gradients(rt.math.xdivy, [[0.0, 0.0, 2.0, -1.0], [0.0, 3.0, 4.0, 2.0]],
                       dtype, traced)
    np.testing.assert_array_equal(grads[0], np.array([0.0, 0.0, 0.25, 0.5], dtype))
    np.testing.assert_array_equal(grads[1], np.array([0.0, 0.0, -0.125, 0.25], dtype))


# -- rectifiers: the second derivative is zeros (TensorFlow's), not None -----------------------


@TRACED
@EACH_DTYPE
@pytest.mark.parametrize("fn, first", [
    (rt.nn.relu, [0, 0, 0, 1, 1, 1]),
    (rt.nn.relu6, [0, 0, 0, 1, 0, 0]),
    (rt.nn.leaky_relu, [0.2, 0.2, np.inf, 1, 1, 1]),
    (rt.nn.crelu, [0, -1, 0, 1, 1, 1]),
], ids=["relu", "relu6", "leaky_relu", "crelu"])
def test_rectifiers_second_derivative_is_zeros(fn, first, dtype, traced):
    second = _second_derivative(fn, [-1.0, 0.0, 1.0, 7.0], dtype, traced)
    assert second is not None
    np.testing.assert_array_equal(second, np.zeros(4, dtype))
    # The first derivative is as before: 0 at 0 and at NaN, an infinite gradient kept only
    # where the function is not flat (and no warning on the way).
    x = [np.nan, -1.0, 0.0, 3.0, 6.0, 7.0]
    weights = np.array([1.0, 1.0, np.inf, 1.0, 1.0, 1.0])
    if fn is rt.nn.crelu:
        weights = np.concatenate([weights, weights])
    with np.errstate(all="raise"):
        gradient = _gradients(fn, [x], dtype, traced, weights)[0]
    np.testing.assert_array_equal(gradient, np.array(first, dtype))


@EACH_DTYPE
def test_relu6_of_nan_is_nan(dtype):
    np.testing.assert_array_equal(rt.nn.relu6(rt.constant(np.array([np.nan, 7.0], dtype))),
                                  np.array([np.nan, 6.0], dtype))


# -- elu: at 0 the positive side's second derivative ------------------------------------------


@TRACED
@EACH_DTYPE
def test_elu_second_derivative_at_zero_is_the_positive_sides(dtype, traced):
    second = _second_derivative(rt.nn.elu, [-1.0, 0.0, 1.0], dtype, traced)
    np.testing.assert_allclose(second, np.array([np.exp(-1.0), 0.0, 0.0], dtype),
                               rtol=_tolerance(dtype))
    first = _gradients(rt.nn.elu, [[-1.0, 0.0, 1.0]], dtype, traced)[0]
    np.testing.assert_allclose(first, np.array([np.exp(-1.0), 1.0, 1.0], dtype),
                               rtol=_tolerance(dtype))


# -- reduce_logsumexp: the weights sum to 1 even where the result is large ---------------------


@TRACED
@EACH_DTYPE
def test_reduce_logsumexp_gradient_is_the_softmax_far_from_zero(dtype, traced):
    # Far enough that the result's rounding (half a unit in its last place) is about 1e-4.
    far = 1e3 if dtype == np.float32 else 1e12
    x = np.array([[-far, -far, -far - 1], [far, far - 1, far]])
    grad = _gradients(lambda t: rt.reduce_logsumexp(t, axis=1), [x], dtype, traced)[0]
    shifted = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(grad, shifted / shifted.sum(1, keepdims=True),
                               rtol=_tolerance(dtype) / 10)


# -- lstsq: the regularizer keeps the precision of the dtype ------------------------------------


@TRACED
def test_lstsq_l2_regularizer_is_not_rounded_to_float32(traced):
    rng = np.random.default_rng(2)
    a, b = rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (4, 2))
    solution = _run(lambda m, r: rt.linalg.lstsq(m, r, l2_regularizer=0.1), traced, a, b,
                    dtype=np.float64).numpy()
    np.testing.assert_allclose(solution, np.linalg.solve(a.T @ a + 0.1 * np.eye(3), a.T @ b),
                               rtol=1e-12)


# -- the form of gradients of gathers: rows (IndexedSlices) exactly where TensorFlow gives them --


@EACH_DTYPE
def test_gather_nd_of_whole_rows_gives_rows(dtype):
    params = rt.constant(np.arange(8.0, dtype=dtype).reshape(4, 2))
    with rt.GradientTape() as tape:
        tape.watch(params)
        y = rt.gather_nd(params, [[1], [3], [1]])
    grad = tape.gradient(y, params, output_gradients=rt.constant(np.full((3, 2), 2.0, dtype)))
    assert isinstance(grad, rt.IndexedSlices)
    np.testing.assert_array_equal(grad.indices.numpy(), [1, 3, 1])
    np.testing.assert_array_equal(rt.convert_to_tensor(grad).numpy(),
                                  np.array([[0, 0], [4, 4], [0, 0], [2, 2]], dtype))


@EACH_DTYPE
def test_repeat_gives_a_dense_gradient(dtype):
    x = rt.constant(np.ones((3, 2), dtype))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.repeat(x, [1, 0, 2], axis=0)
    grad = tape.gradient(y, x)
    assert isinstance(grad, rt.Tensor)
    np.testing.assert_array_equal(grad.numpy(), np.array([[1, 1], [0, 0], [2, 2]], dtype))


# -- second derivatives through weighted_moments, the svd and max pooling -----------------------


@TRACED
@EACH_DTYPE
def test_weighted_moments_variance_has_the_exact_second_derivative(dtype, traced):
    # The gradient of the variance, 2 w (x - mean) / sum(w), sums to 0 whatever x is: its own
    # gradient is 0 (not 2 w / sum(w), as with the mean held constant).
    weights = np.array([[0.5, 1.0, 2.0, 1.5], [1.0, 1.0, 3.0, 0.5]], dtype)
    second = _second_derivative(
        lambda x: rt.nn.weighted_moments(x, axes=[1], frequency_weights=weights)[1],
        [[0.3, -1.2, 2.0, 0.7], [1.0, 0.0, -0.5, 2.5]], dtype, traced)
    np.testing.assert_allclose(second, np.zeros((2, 4)), atol=10 * _tolerance(dtype))


def _pinv_first_gradient(a, v):
    """``sum(v * pinv(a))``'s gradient with respect to ``a``."""
    with rt.GradientTape() as tape:
        tape.watch(a)
        y = rt.reduce_sum(rt.linalg.pinv(a) * v)
    return tape.gradient(y, a)


@TRACED
@EACH_DTYPE
def test_svd_second_derivative_matches_finite_differences(dtype, traced):
    rng = np.random.default_rng(3)
    a0, v, w = rng.uniform(-1, 1, (3, 4)), rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (3, 4))

    def second(a):
        with rt.GradientTape() as tape:
            tape.watch(a)
            y = rt.reduce_sum(_pinv_first_gradient(a, v.astype(dtype)) * w.astype(dtype))
        return tape.gradient(y, a)
    result = _run(second, traced, a0, dtype=dtype).numpy()
    step, numeric = 1e-6, np.zeros_like(a0)
    for index in np.ndindex(a0.shape):
        sides = []
        for sign in (1, -1):
            moved = a0.copy()
            moved[index] += sign * step
            sides.append(np.sum(_pinv_first_gradient(rt.constant(moved), v).numpy() * w))
        numeric[index] = (sides[0] - sides[1]) / (2 * step)
    np.testing.assert_allclose(result, numeric, rtol=1e-3 if dtype == np.float32 else 1e-6,
                               atol=1e-3 if dtype == np.float32 else 1e-6)


@TRACED
@EACH_DTYPE
def test_max_pool_second_derivative_goes_to_each_windows_first_maximum(dtype, traced):
    x = np.array([[1.0, 2.0, 0.0], [2.0, 0.0, 3.0], [1.0, 1.0, 1.0]]).reshape(1, 3, 3, 1)
    second = _second_derivative(
        lambda t: rt.reduce_sum(rt.square(rt.nn.max_pool2d(t, 2, 1, "VALID"))), x, dtype, traced)
    # 2 for every window whose first maximum (row-major) is there, as TensorFlow gives.
    np.testing.assert_array_equal(second[0, :, :, 0],
                                  np.array([[0, 2, 0], [2, 0, 4], [0, 0, 0]], dtype))
