"""The ``rt.nn`` activations and losses: values against NumPy written from TensorFlow's
definitions, gradients against finite differences (eagerly and traced), TensorFlow's gradient
conventions, dtypes and errors."""

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError, ShapeError

from tests.runtime.test_gradients_math import RNG, check_gradients, gradient, graph_gradient

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def _logits(*shape):
    return RNG.uniform(-3, 3, shape)


def _distribution(*shape):
    weights = RNG.uniform(0.1, 1.0, shape)
    return weights / weights.sum(-1, keepdims=True)


def _np_log_softmax(x, axis=-1):
    shifted = x - x.max(axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))


# -- values -----------------------------------------------------------------------------------


def test_activation_values():
    x = np.array([[-800.0, -2.0, 0.0], [0.5, 3.0, 800.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # stable: no overflow anywhere
        np.testing.assert_allclose(rt.nn.log_softmax(x).numpy(), _np_log_softmax(x), rtol=1e-15)
        np.testing.assert_allclose(rt.nn.log_softmax(x, axis=0).numpy(), _np_log_softmax(x, 0))
        assert rt.nn.log_softmax(x, axis=None).numpy().tolist() == \
            rt.nn.log_softmax(x).numpy().tolist()  # None is the last axis, as in TensorFlow
        np.testing.assert_allclose(rt.nn.softplus(x).numpy(),
                                   [[0.0, np.log1p(np.exp(-2.0)), np.log(2.0)],
                                    [np.log1p(np.exp(0.5)), np.log1p(np.exp(3.0)), 800.0]])
        assert rt.nn.leaky_relu(x).numpy().tolist() == [[-160.0, -0.4, 0.0], [0.5, 3.0, 800.0]]
        assert rt.nn.leaky_relu(x, alpha=0.5).numpy()[0, 1] == -1.0
        assert rt.nn.l2_loss(np.array([[1.0, 2.0], [3.0, -4.0]])).numpy() == 15.0
        assert rt.nn.sigmoid is rt.sigmoid and rt.nn.tanh is rt.tanh


def test_activations_keep_the_float_dtype():
    for dtype in (np.float32, np.float64):
        x = np.array([[-1.0, 0.5, 2.0]], dtype)
        for fn in (rt.nn.log_softmax, rt.nn.softplus, rt.nn.leaky_relu, rt.nn.l2_loss,
                   rt.nn.softmax, rt.nn.relu):
            assert fn(x).dtype == dtype
            assert rt.function(fn)(rt.constant(x)).dtype == dtype
    assert rt.nn.leaky_relu(rt.constant([1, -2])).dtype == rt.float32  # as TensorFlow
    with pytest.raises(TypeError, match="floating-point"):
        rt.nn.log_softmax([1, 2])
    with pytest.raises(TypeError, match="floating-point"):
        rt.nn.softplus(rt.constant([1, 2]))


def test_loss_values():
    logits, labels = _logits(4, 3), _distribution(4, 3)
    expected = -np.sum(labels * _np_log_softmax(logits), -1)
    loss = rt.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    np.testing.assert_allclose(loss.numpy(), expected, rtol=1e-14)
    along_0 = rt.nn.softmax_cross_entropy_with_logits(labels.T, logits.T, axis=0)
    np.testing.assert_allclose(along_0.numpy(), expected, rtol=1e-14)
    classes = np.array([0, 2, 1, 2])
    sparse = rt.nn.sparse_softmax_cross_entropy_with_logits(labels=classes, logits=logits)
    np.testing.assert_allclose(sparse.numpy(), -_np_log_softmax(logits)[np.arange(4), classes])
    z = RNG.uniform(0, 1, (4, 3))
    big = np.array([[-100.0, 0.0, 100.0]])
    sigmoid_loss = rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=logits)
    p = 1 / (1 + np.exp(-logits))
    np.testing.assert_allclose(sigmoid_loss.numpy(), -z * np.log(p) - (1 - z) * np.log(1 - p))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stable = rt.nn.sigmoid_cross_entropy_with_logits(labels=[[1.0, 1.0, 0.0]], logits=big)
    np.testing.assert_allclose(stable.numpy(), [[100.0, np.log(2.0), 100.0]])
    assert stable.dtype == rt.float64


def test_losses_keep_float32():
    logits = np.float32([[1.0, -1.0, 0.5]])
    assert rt.nn.softmax_cross_entropy_with_logits([[0.0, 1.0, 0.0]], logits).dtype == rt.float32
    assert rt.nn.sparse_softmax_cross_entropy_with_logits([1], logits).dtype == rt.float32
    assert rt.nn.sigmoid_cross_entropy_with_logits(labels=[[0, 1, 1]], logits=logits).dtype \
        == rt.float32
    (g,) = gradient(lambda t: rt.nn.sparse_softmax_cross_entropy_with_logits([1], t), logits)
    assert g.dtype == np.float32


# -- gradients --------------------------------------------------------------------------------

ACTIVATIONS = [
    ("relu", rt.nn.relu, np.array([[-1.5, -0.2, 0.3], [0.7, -2.0, 1.1]])),
    ("softmax", rt.nn.softmax, _logits(2, 4)),
    ("softmax_axis0", lambda x: rt.nn.softmax(x, axis=0), _logits(3, 2, 2)),
    ("log_softmax", rt.nn.log_softmax, _logits(2, 4)),
    ("log_softmax_axis1", lambda x: rt.nn.log_softmax(x, axis=1), _logits(2, 3, 2)),
    ("softplus", rt.nn.softplus, _logits(2, 3) * 5),
    ("leaky_relu", rt.nn.leaky_relu, np.array([[-1.5, -0.2, 0.3], [0.7, -2.0, 1.1]])),
    ("leaky_relu_alpha", lambda x: rt.nn.leaky_relu(x, alpha=0.01), np.array([-1.5, 0.3])),
    ("l2_loss", rt.nn.l2_loss, _logits(2, 3)),
    ("sigmoid", rt.nn.sigmoid, _logits(2, 3)),
    ("tanh", rt.nn.tanh, _logits(2, 3)),
]


@pytest.mark.parametrize("name, fn, x", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_gradient_matches_finite_differences(name, fn, x):
    check_gradients(fn, x)
    check_gradients(fn, x, signature=[rt.TensorSpec((None,) * x.ndim, rt.float64)])


LOSSES = [
    ("softmax_xent", lambda z, x: rt.nn.softmax_cross_entropy_with_logits(labels=z, logits=x),
     _distribution(4, 3), _logits(4, 3)),
    ("softmax_xent_axis0", lambda z, x: rt.nn.softmax_cross_entropy_with_logits(z, x, axis=0),
     _distribution(2, 3).T.copy(), _logits(3, 2)),
    ("softmax_xent_3d", lambda z, x: rt.nn.softmax_cross_entropy_with_logits(z, x, axis=1),
     np.moveaxis(_distribution(2, 4, 3), 2, 1).copy(), _logits(2, 3, 4)),
    ("softmax_xent_broadcast_labels", rt.nn.softmax_cross_entropy_with_logits,
     _distribution(1, 3), _logits(4, 3)),
    ("sigmoid_xent", lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
     RNG.uniform(0, 1, (2, 3)), _logits(2, 3)),
]


@pytest.mark.parametrize("name, fn, labels, logits", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_gradients_reach_labels_and_logits(name, fn, labels, logits):
    check_gradients(fn, labels, logits)


def test_softmax_cross_entropy_gradients_are_tensorflows():
    labels, logits = _distribution(3, 4), _logits(3, 4)
    for run in (gradient, graph_gradient):
        dlabels, dlogits = run(rt.nn.softmax_cross_entropy_with_logits, labels, logits)
        # softmax - labels cancels where the two are close: to the last bits of the terms
        # (the shared RNG makes the inputs depend on which tests ran before).
        np.testing.assert_allclose(dlogits, np.exp(_np_log_softmax(logits)) - labels,
                                   rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(dlabels, -_np_log_softmax(logits), rtol=1e-14)


def test_sparse_softmax_cross_entropy_gradient():
    logits, labels = _logits(2, 3, 4), np.array([[0, 3, 1], [2, 2, 0]])

    def fn(x):
        return rt.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=x)
    check_gradients(fn, logits)
    seedless = gradient(fn, logits)[0]
    np.testing.assert_allclose(seedless, np.exp(_np_log_softmax(logits)) - np.eye(4)[labels],
                               rtol=1e-14)
    unknown = [rt.TensorSpec((None, None, None), rt.float64)]
    check_gradients(fn, logits, signature=unknown)
    # labels are indices: they get no gradient, even when watched
    for run in (gradient, graph_gradient):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            grads = run(lambda z, x: rt.nn.sparse_softmax_cross_entropy_with_logits(z, x),
                        labels, logits)
        assert grads[0] is None and grads[1].shape == logits.shape


def test_sigmoid_cross_entropy_gradient_at_zero_logits_is_half_minus_labels():
    labels = np.array([0.0, 0.25, 1.0])
    for run in (gradient, graph_gradient):
        dlabels, dlogits = run(
            lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
            labels, np.zeros(3))
        assert dlogits.tolist() == [0.5, 0.25, -0.5]
        assert dlabels.tolist() == [0.0, 0.0, 0.0]


def test_relu_and_leaky_relu_at_zero():
    for run in (gradient, graph_gradient):
        assert run(rt.nn.relu, [0.0])[0].tolist() == [0.0]
        assert run(rt.nn.leaky_relu, np.array([0.0, -1.0, 1.0]))[0].tolist() == [0.2, 0.2, 1.0]


def test_second_derivatives_through_the_losses():
    """The rules are built from differentiable ops, so nested tapes give Hessian-vector
    products: d/dx of (softmax(x) - z) . v is the softmax Jacobian applied to v."""
    logits, labels = _logits(3), _distribution(3)
    v = np.array([1.0, -2.0, 0.5])
    x = rt.constant(logits)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            loss = rt.nn.softmax_cross_entropy_with_logits(labels, x)
        g = inner.gradient(loss, x)
        directional = rt.reduce_sum(g * v)
    p = np.exp(_np_log_softmax(logits))
    np.testing.assert_allclose(outer.gradient(directional, x).numpy(),
                               (np.diag(p) - np.outer(p, p)) @ v, rtol=1e-13)
    x = rt.constant(logits)
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            loss = rt.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=x)
        g = inner.gradient(loss, x)
    np.testing.assert_allclose(outer.gradient(g, x).numpy(), 1 / (1 + np.exp(-logits)) ** 2
                               * np.exp(-logits), rtol=1e-13)


def test_a_training_step_lowers_the_loss_eagerly_and_traced():
    features, classes = RNG.normal(size=(16, 3)), RNG.integers(0, 4, 16)
    w, b = rt.Variable(np.zeros((3, 4))), rt.Variable(np.zeros(4))

    def step():
        with rt.GradientTape() as tape:
            logits = rt.nn.leaky_relu(rt.matmul(features, w) + b, alpha=0.5)
            loss = rt.reduce_mean(rt.nn.sparse_softmax_cross_entropy_with_logits(
                labels=classes, logits=logits)) + 1e-3 * rt.nn.l2_loss(w)
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(0.5 * dw)
        b.assign_sub(0.5 * db)
        return loss

    first = step().numpy()
    for _ in range(5):
        step()
    traced = rt.function(step)
    losses = [traced().numpy() for _ in range(20)]
    assert losses[-1] < losses[0] < first


# -- errors -----------------------------------------------------------------------------------


def test_sparse_labels_out_of_range_raise():
    logits = _logits(2, 3)
    message = "label value of 3 which is outside the valid range of \\[0, 3\\)"
    with pytest.raises(InvalidArgumentError, match=message):
        rt.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 3], logits=logits)
    traced = rt.function(lambda z, x: rt.nn.sparse_softmax_cross_entropy_with_logits(z, x))
    with pytest.raises(InvalidArgumentError, match=message):
        traced(rt.constant([0, 3]), rt.constant(logits))
    with pytest.raises(InvalidArgumentError, match="label value of -1"):
        traced(rt.constant([-1, 0]), rt.constant(logits))


def test_loss_argument_errors():
    logits = _logits(2, 3)
    with pytest.raises(TypeError, match="labels must be integer class indices"):
        rt.nn.sparse_softmax_cross_entropy_with_logits(labels=[0.0, 1.0], logits=logits)
    with pytest.raises(ShapeError, match="the shape of logits without its last axis"):
        rt.nn.sparse_softmax_cross_entropy_with_logits(labels=[0, 1, 2], logits=logits)
    with pytest.raises(ShapeError, match="labels must have the same shape as logits"):
        rt.nn.sigmoid_cross_entropy_with_logits(labels=np.zeros((3, 2)), logits=logits)
    with pytest.raises(ShapeError, match="same rank"):
        rt.nn.softmax_cross_entropy_with_logits(np.zeros(3), logits)
    with pytest.raises(ShapeError, match="cannot be broadcast"):
        rt.nn.softmax_cross_entropy_with_logits(np.zeros((2, 4)), logits)
    with pytest.raises(TypeError, match="same dtype"):
        rt.nn.softmax_cross_entropy_with_logits(np.float32(np.zeros((2, 3))), logits)
    with pytest.raises(ValueError, match="needs both labels= and logits="):
        rt.nn.sigmoid_cross_entropy_with_logits(logits=logits)
    with pytest.raises(TypeError, match="alpha must be a Python number"):
        rt.nn.leaky_relu(logits, alpha=rt.constant(0.1))
    traced = rt.function(lambda z, x: rt.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x),
                         input_signature=[rt.TensorSpec((None,), rt.float64)] * 2)
    with pytest.raises(InvalidArgumentError, match="same shape"):
        traced(np.array([1.0, 0.0]), np.array([1.0, 0.0, 2.0]))
