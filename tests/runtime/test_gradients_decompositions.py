"""Gradients of ``qr``, ``svd`` and the singular values (and so of the spectral norm).

Each rule is checked against central finite differences in float64, with the tape run
eagerly and inside a ``transpiler.function`` graph, on matrices whose singular values are
well apart. Singular vectors are unique only up to sign, so the losses through ``u`` and
``v`` are sign-blind (their squares, a rank-one truncation). NumPy does not make ``r``'s
diagonal positive, but its signs do not change under the small steps of the finite
differences, so plain losses of ``q`` and ``r`` are smooth there. Then float32, second
derivatives, TensorFlow's answers, ties between singular values, and the cases without a
gradient.
"""

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime.errors import GradientError
from tests.runtime.gradient_helpers import numeric_gradient, tape_gradients

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")

RNG = np.random.default_rng(20261207)


def _distinct(*shape) -> np.ndarray:
    """Random matrices whose singular values are 1, 1.5, 2, ... (apart from each other and
    from zero), so every gradient below is well defined."""
    m, n = shape[-2:]
    k = min(m, n)
    left = np.linalg.qr(RNG.normal(size=shape[:-2] + (m, k)))[0]
    right = np.linalg.qr(RNG.normal(size=shape[:-2] + (n, k)))[0]
    values = 1.0 + 0.5 * RNG.permutation(k)
    return (left * values) @ np.swapaxes(right, -1, -2)


def check_against_differences(fn, a: np.ndarray, tolerance: float = 1e-7) -> float:
    """The tape's gradient of ``sum(seed * fn(a))`` eagerly and in a ``transpiler.function``
    graph agree, have ``a``'s dtype and shape and match central differences; returns the
    largest difference from them."""
    seed = RNG.uniform(0.5, 1.5, np.shape(fn(rt.constant(a)).numpy()))

    @transpiler.function
    def graph_gradient(x):
        return tape_gradients(fn, [x], [0], seed)[0]

    eager = tape_gradients(fn, [rt.constant(a)], [0], seed)[0]
    graph = graph_gradient(rt.constant(a))
    assert eager.dtype == graph.dtype == a.dtype and eager.shape == graph.shape == a.shape
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)
    error = np.abs(eager.numpy() - numeric_gradient(fn, [a], 0, seed)).max()
    assert error < tolerance, error
    return error


def _rank_one(x):
    """The best rank-one approximation ``s0 u0 v0^T``: through all three outputs, and blind to
    the signs of the singular vectors."""
    s, u, v = rt.linalg.svd(x)
    return rt.matmul(u[..., :1] * rt.expand_dims(s[..., :1], -1), v[..., :1], transpose_b=True)


SHAPES = [(3, 3), (5, 3), (3, 5), (2, 4, 3), (2, 3, 4)]

SVD_LOSSES = [
    ("s", lambda x: rt.linalg.svd(x)[0]),
    ("u_squared", lambda x: rt.square(rt.linalg.svd(x)[1])),
    ("v_squared", lambda x: rt.square(rt.linalg.svd(x)[2])),
    ("rank_one", _rank_one),
    ("singular_values", lambda x: rt.linalg.svd(x, compute_uv=False)),
    ("spectral_norm", lambda x: rt.linalg.norm(x, ord=2, axis=(-2, -1))),
]


# -- svd ------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("name, fn", SVD_LOSSES, ids=[name for name, _ in SVD_LOSSES])
def test_svd_gradients_match_finite_differences(name, fn, shape):
    check_against_differences(fn, _distinct(*shape))


@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 3, 4)], ids=str)
def test_svd_full_matrices_gradients_when_dimensions_differ_by_at_most_one(shape):
    # The one extra column of the longer side is fixed up to sign: its square is smooth.
    check_against_differences(lambda x: rt.square(rt.linalg.svd(x, full_matrices=True)[1]),
                              _distinct(*shape))
    check_against_differences(lambda x: rt.square(rt.linalg.svd(x, full_matrices=True)[2]),
                              _distinct(*shape))


def test_spectral_norm_gradient_is_the_top_singular_pair():
    a = _distinct(2, 4, 3)
    x = rt.constant(a)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.norm(x, ord=2, axis=(-2, -1))
    u, _, vh = np.linalg.svd(a)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), u[..., :1] @ vh[..., :1, :],
                               atol=1e-12)


def test_svd_gradient_without_static_matrix_dimensions():
    """With ``full_matrices=False`` the rule needs no static shape: it adds the terms that
    vanish for a square side instead of leaving them out."""
    a = _distinct(4, 3)
    seed = RNG.uniform(0.5, 1.5, (4, 3))

    def u_squared(x):
        return rt.square(rt.linalg.svd(x)[1])

    traced = transpiler.function(lambda x: tape_gradients(u_squared, [x], [0], seed)[0],
                                 input_signature=[rt.TensorSpec([None, None], rt.float64)])
    np.testing.assert_allclose(traced(rt.constant(a)).numpy(),
                               numeric_gradient(u_squared, [a], 0, seed), atol=1e-7)


# -- qr -------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (2, 4, 3)], ids=str)
@pytest.mark.parametrize("output", [0, 1], ids=["q", "r"])
def test_qr_gradients_match_finite_differences(output, shape):
    check_against_differences(lambda x: rt.linalg.qr(x)[output], _distinct(*shape))


def test_qr_gradient_through_both_outputs_and_full_matrices_of_a_square():
    def both(x):
        q, r = rt.linalg.qr(x, full_matrices=True)
        return rt.matmul(q, rt.sin(r))

    check_against_differences(both, _distinct(2, 3, 3))


def test_qr_without_a_gradient_says_why():
    tall = rt.constant(RNG.normal(size=(4, 2)))
    message = (r"qr: no gradient for a matrix of shape \(4, 2\) with full_matrices=True: q's "
               r"last 2 columns are an arbitrary orthonormal basis")
    with pytest.raises(GradientError, match=message):
        tape_gradients(lambda x: rt.linalg.qr(x, full_matrices=True)[0], [tall], [0], None)
    graph = transpiler.function(lambda x: tape_gradients(
        lambda y: rt.linalg.qr(y, full_matrices=True)[1], [x], [0], None))
    with pytest.raises(GradientError, match=message):
        graph(tall)
    unknown = transpiler.function(lambda x: tape_gradients(lambda y: rt.linalg.qr(y)[1], [x],
                                                           [0], None),
                                  input_signature=[rt.TensorSpec([None, None], rt.float64)])
    with pytest.raises(GradientError, match=r"\(None, None\).*matrix dimensions .* unknown"):
        unknown(tall)


def test_svd_full_matrices_without_a_gradient_says_why():
    tall = rt.constant(RNG.normal(size=(5, 2)))
    with pytest.raises(GradientError, match=r"svd: no gradient for a matrix of shape \(5, 2\) "
                                            r"with full_matrices=True: the last 3 columns of u"):
        tape_gradients(lambda x: rt.linalg.svd(x, full_matrices=True)[1], [tall], [0], None)


# -- dtypes, second derivatives, ties ---------------------------------------------------------


def _mixed_loss(x):
    s, u, v = rt.linalg.svd(x)
    q, r = rt.linalg.qr(x)
    weights = np.linspace(0.5, 1.5, 12).reshape(4, 3)
    return (rt.reduce_sum(rt.square(u) * weights) + rt.reduce_sum(s * s * s)
            + rt.reduce_sum(rt.square(v)[..., :1]) + rt.reduce_sum(rt.square(r) * weights[:3])
            + rt.reduce_sum(rt.square(q) * weights))


def _gradient(fn, x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_float32_gradients_follow_float64():
    a = _distinct(4, 3)
    low = _gradient(_mixed_loss, rt.constant(a.astype(np.float32)))
    assert low.dtype == rt.float32
    np.testing.assert_allclose(low.numpy(), _gradient(_mixed_loss, rt.constant(a)).numpy(),
                               rtol=1e-4, atol=1e-4)


def test_second_derivatives_match_differences_of_the_gradient():
    a, weights = _distinct(4, 3), RNG.normal(size=(4, 3))

    def weighted_gradient(x):
        return rt.reduce_sum(_gradient(_mixed_loss, x) * weights)

    eager = _gradient(weighted_gradient, rt.constant(a)).numpy()
    graph = transpiler.function(lambda x: _gradient(weighted_gradient, x))(rt.constant(a))
    np.testing.assert_allclose(graph.numpy(), eager, rtol=1e-10, atol=1e-10)
    expected = numeric_gradient(weighted_gradient, [a], 0, np.ones(()))
    np.testing.assert_allclose(eager, expected, atol=1e-6)


def test_repeated_singular_values_give_tensorflows_finite_answer():
    """At a tie the singular vectors are not unique and neither is the gradient through them.
    Like TensorFlow, the rule takes ``1 / (s_j^2 - s_i^2)`` as 0 at an exact tie (so the
    answer is finite, if arbitrary) and as very large near one; through ``s`` alone the
    gradient is always defined."""
    seed = RNG.uniform(0.5, 1.5, (3, 3))
    through_u = tape_gradients(lambda x: rt.linalg.svd(x)[1], [rt.constant(np.eye(3))], [0],
                               seed)[0]
    np.testing.assert_array_equal(through_u.numpy(), np.zeros((3, 3)))
    near = np.diag([2.0, 1.0 + 1e-9, 1.0])
    through_u = tape_gradients(lambda x: rt.linalg.svd(x)[1], [rt.constant(near)], [0],
                               seed)[0]
    assert np.all(np.isfinite(through_u.numpy())) and np.abs(through_u.numpy()).max() > 1e7
    through_s = tape_gradients(lambda x: rt.linalg.svd(x, compute_uv=False),
                               [rt.constant(np.eye(3))], [0], np.ones(3))[0]
    np.testing.assert_allclose(through_s.numpy(), np.eye(3), atol=1e-12)


# -- against TensorFlow -----------------------------------------------------------------------


def test_gradients_match_tensorflow():
    """TensorFlow's kernels may pick other signs for the columns of ``u``, ``v`` and ``q``, so
    the losses are sign-blind. (Importing TensorFlow takes several seconds: one test.)"""
    tf = pytest.importorskip("tensorflow")

    def loss(module, svd, qr, x):
        s, u, v = svd(x)
        q, r = qr(x)
        return (module.reduce_sum(s * weights[..., :1, :s.shape[-1]])
                + module.reduce_sum(module.square(u) * weights[..., :u.shape[-1]])
                + module.reduce_sum(module.square(v)[..., :1])
                + module.reduce_sum(module.square(q) * weights[..., :q.shape[-1]])
                + module.reduce_sum(module.square(r)[..., :1, :]))

    for shape in [(5, 3), (2, 4, 4)]:
        a, weights = _distinct(*shape), RNG.uniform(0.5, 1.5, shape)
        ours = _gradient(lambda x: loss(rt, rt.linalg.svd, rt.linalg.qr, x), rt.constant(a))
        x = tf.constant(a)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = loss(tf, tf.linalg.svd, tf.linalg.qr, x)
        np.testing.assert_allclose(ours.numpy(), tape.gradient(y, x).numpy(), atol=1e-10)
    a = _distinct(2, 3, 4)
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.linalg.svd(x, compute_uv=False) ** 2)
    ours = _gradient(lambda t: rt.reduce_sum(rt.linalg.svd(t, compute_uv=False) ** 2),
                     rt.constant(a))
    np.testing.assert_allclose(ours.numpy(), tape.gradient(y, x).numpy(), atol=1e-10)
