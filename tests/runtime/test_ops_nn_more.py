"""The ``rt.nn`` additions of issue 13: activations, normalization, dropout, embedding lookup,
convolutions and pooling against naive NumPy references (eagerly and traced), errors, and
gradients against finite differences."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import runtime as rt
from runtime.errors import ShapeError

from tests.runtime.test_gradients_math import RNG, check_gradients

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")

_ERF = np.vectorize(math.erf)


def _both(fn, *arrays):
    return fn(*[rt.constant(a) for a in arrays]), rt.function(fn)(*[rt.constant(a) for a in arrays])


def _close(pair, expected, rtol=1e-6, atol=1e-9):
    for value in pair:
        np.testing.assert_allclose(value.numpy(), expected, rtol=rtol, atol=atol)


# -- activations ------------------------------------------------------------------------------


ACTIVATIONS = {
    "elu": (rt.nn.elu, lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0)))),
    "selu": (rt.nn.selu, lambda x: 1.0507009873554805 * np.where(
        x > 0, x, 1.6732632423543772 * np.expm1(np.minimum(x, 0)))),
    "gelu": (rt.nn.gelu, lambda x: 0.5 * x * (1 + _ERF(x / np.sqrt(2)))),
    "gelu_tanh": (lambda x: rt.nn.gelu(x, approximate=True), lambda x: 0.5 * x * (1 + np.tanh(
        np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))),
    "silu": (rt.nn.silu, lambda x: x / (1 + np.exp(-x))),
    "swish": (rt.nn.swish, lambda x: x / (1 + np.exp(-x))),
    "relu6": (rt.nn.relu6, lambda x: np.clip(x, 0, 6)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations(name, dtype):
    fn, reference = ACTIVATIONS[name]
    x = RNG.uniform(-8, 8, (3, 4)).astype(dtype)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for value in _both(fn, x):
        assert value.dtype == dtype
        np.testing.assert_allclose(value.numpy(), reference(x.astype(np.float64)), rtol, 1e-6)
    check_gradients(fn, RNG.uniform(-3, 3, (2, 3)) + 0.01)


def test_activation_edges():
    assert rt.nn.relu6(rt.constant([-1, 3, 9])).numpy().tolist() == [0, 3, 6]
    assert np.isfinite(rt.nn.elu(np.array([1000.0])).numpy()).all()
    with pytest.raises(TypeError, match="elu needs a floating-point"):
        rt.nn.elu(rt.constant([1, 2]))


# -- normalization, bias, dropout, embeddings -------------------------------------------------


def test_bias_add_moments_batch_norm_l2_normalize():
    x, b = RNG.normal(size=(2, 3, 4)), RNG.normal(size=4)
    _close(_both(rt.nn.bias_add, x, b), x + b)
    with pytest.raises(ShapeError, match=r"bias_add.*\(2, 3, 4\).*\(3,\)"):
        rt.nn.bias_add(x, np.ones(3))
    for keepdims in (False, True):
        mean, variance = rt.nn.moments(x, [0, 1], keepdims=keepdims)
        np.testing.assert_allclose(mean.numpy(), x.mean((0, 1), keepdims=keepdims))
        np.testing.assert_allclose(variance.numpy(), x.var((0, 1), keepdims=keepdims))
    m, v, off, sc = x.mean((0, 1)), x.var((0, 1)), RNG.normal(size=4), RNG.normal(size=4)
    _close(_both(lambda *a: rt.nn.batch_normalization(*a, 1e-3), x, m, v, off, sc),
           (x - m) * sc / np.sqrt(v + 1e-3) + off)
    np.testing.assert_allclose(rt.nn.batch_normalization(x, m, v, None, None, 1e-3).numpy(),
                               (x - m) / np.sqrt(v + 1e-3))
    _close(_both(lambda t: rt.nn.l2_normalize(t, -1), x),
           x / np.sqrt((x ** 2).sum(-1, keepdims=True)))
    _close(_both(rt.nn.l2_normalize, x), x / np.sqrt((x ** 2).sum()))
    check_gradients(lambda t: rt.nn.moments(t, [1])[1], x)
    check_gradients(lambda t, var, scale: rt.nn.batch_normalization(t, m, var, off, scale, 1e-3),
                    x, v + 1, sc)
    check_gradients(lambda mean, offset: rt.nn.batch_normalization(x, mean, v, offset, sc, 1e-3),
                    m, off)
    check_gradients(lambda t: rt.nn.l2_normalize(t, 1), x)
    check_gradients(rt.nn.bias_add, x, b)


def test_dropout():
    x = np.ones((100, 50))
    rt.random.set_seed(3)
    first = rt.nn.dropout(x, 0.25, seed=7).numpy()
    assert set(np.unique(first)) == {0.0, 1 / 0.75}
    assert 0.2 < (first == 0).mean() < 0.3
    rt.random.set_seed(3)
    assert (rt.nn.dropout(x, 0.25, seed=7).numpy() == first).all()
    shared = rt.nn.dropout(x, 0.5, noise_shape=[100, 1]).numpy()
    assert (shared == shared[:, :1]).all()
    assert rt.nn.dropout(x, 0.5, training=False).numpy().tolist() == x.tolist()
    traced = rt.function(lambda t: rt.nn.dropout(t, 0.5))
    assert not (traced(rt.constant(x)).numpy() == traced(rt.constant(x)).numpy()).all()
    with pytest.raises(ValueError, match=r"rate must be a number in \[0, 1\)"):
        rt.nn.dropout(x, 1.0)
    t = rt.constant(x[:2, :3])
    with rt.GradientTape() as tape:
        tape.watch(t)
        y = rt.nn.dropout(t, 0.5, seed=1)
    assert set(np.unique(tape.gradient(y, t).numpy())) <= {0.0, 2.0}


def test_embedding_lookup():
    params, ids = RNG.normal(size=(5, 3)), np.array([[0, 4], [2, 2]])
    _close(_both(rt.nn.embedding_lookup, params, ids), params[ids])
    clipped = rt.nn.embedding_lookup(params * 10, ids, max_norm=1.0).numpy()
    np.testing.assert_allclose(np.linalg.norm(clipped, axis=-1), 1.0)
    check_gradients(lambda p: rt.nn.embedding_lookup(p, ids), params)
    with pytest.raises(TypeError, match="ids must be integers"):
        rt.nn.embedding_lookup(params, [0.5])


# -- convolution and pooling ------------------------------------------------------------------


def _reference_conv2d(x, f, strides, padding, dilations):
    kh, kw = (np.array(f.shape[:2]) - 1) * dilations + 1
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, ow = -(-h // strides[0]), -(-w // strides[1])
        ph = max((oh - 1) * strides[0] + kh - h, 0)
        pw = max((ow - 1) * strides[1] + kw - w, 0)
        x = np.pad(x, ((0, 0), (ph // 2, ph - ph // 2), (pw // 2, pw - pw // 2), (0, 0)))
    else:
        oh, ow = (h - kh) // strides[0] + 1, (w - kw) // strides[1] + 1
    out = np.zeros((n, oh, ow, f.shape[3]))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * strides[0]:i * strides[0] + kh:dilations[0],
                      j * strides[1]:j * strides[1] + kw:dilations[1], :]
            out[:, i, j, :] = np.tensordot(patch, f, axes=([1, 2, 3], [0, 1, 2]))
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(3, 7), st.integers(3, 7), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from(["SAME", "VALID"]), st.integers(1, 2), st.booleans())
def test_conv2d_matches_reference(h, w, kh, kw, padding, step, dilate):
    strides, dilations = ((1, 1), (step, step)) if dilate else ((step, 1), (1, 1))
    if padding == "VALID" and ((kh - 1) * dilations[0] >= h or (kw - 1) * dilations[1] >= w):
        return  # the window is larger than the input: no output positions
    x, f = RNG.normal(size=(2, h, w, 2)), RNG.normal(size=(kh, kw, 2, 3))
    expected = _reference_conv2d(x, f, strides, padding, np.array(dilations))
    _close(_both(lambda a, b: rt.nn.conv2d(a, b, list(strides), padding,
                                           dilations=list(dilations)), x, f), expected,
           atol=1e-12)


@pytest.mark.parametrize("strides,padding,dilations", [(1, "SAME", 1), (2, "VALID", 1),
                                                       (2, "SAME", 1), (1, "SAME", 2)])
def test_conv_gradients(strides, padding, dilations):
    x, f = RNG.normal(size=(1, 5, 4, 2)), RNG.normal(size=(3, 2, 2, 2))
    check_gradients(lambda a, b: rt.nn.conv2d(a, b, strides, padding, dilations=dilations), x, f)
    check_gradients(lambda a, b: rt.nn.conv1d(a, b, strides, padding, dilations=dilations),
                    x[0], f[0])


def test_conv_second_derivative_and_errors():
    x, f = rt.constant(RNG.normal(size=(1, 4, 4, 1))), rt.constant(RNG.normal(size=(2, 2, 1, 1)))
    with rt.GradientTape() as outer:
        outer.watch(f)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = rt.reduce_sum(rt.square(rt.nn.conv2d(x, f, 1, "VALID")))
        gx = inner.gradient(y, x)
        z = rt.reduce_sum(gx)
    assert outer.gradient(z, f).shape == (2, 2, 1, 1)
    x1 = RNG.normal(size=(2, 6, 3))
    np.testing.assert_allclose(rt.nn.conv1d(x1, np.ones((2, 3, 1)), 2, "VALID").numpy()[..., 0],
                               x1.sum(-1)[:, 0:5:2] + x1.sum(-1)[:, 1:6:2])
    with pytest.raises(ShapeError, match="3 channels but the filters expect 2"):
        rt.nn.conv2d(np.ones((1, 3, 3, 3)), np.ones((1, 1, 2, 1)), 1, "SAME")
    with pytest.raises(ValueError, match="padding must be 'SAME' or 'VALID'"):
        rt.nn.conv2d(np.ones((1, 3, 3, 1)), np.ones((1, 1, 1, 1)), 1, "FULL")
    with pytest.raises(ValueError, match="data_format"):
        rt.nn.conv2d(np.ones((1, 3, 3, 1)), np.ones((1, 1, 1, 1)), 1, "SAME", "NCHW")
    with pytest.raises(TypeError, match="same dtype"):
        rt.nn.conv2d(np.ones((1, 3, 3, 1)), np.ones((1, 1, 1, 1), np.float32), 1, "SAME")


def _reference_pool(x, k, s, padding, reduce):
    n, h, w, c = x.shape
    if padding == "SAME":
        oh, ow = -(-h // s), -(-w // s)
        ph, pw = max((oh - 1) * s + k - h, 0), max((ow - 1) * s + k - w, 0)
        top, left = ph // 2, pw // 2
    else:
        oh, ow, top, left = (h - k) // s + 1, (w - k) // s + 1, 0, 0
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s - top, j * s - left
            patch = x[:, max(r0, 0):r0 + k, max(c0, 0):c0 + k, :]
            out[:, i, j, :] = reduce(patch, axis=(1, 2))
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 7), st.integers(2, 7), st.integers(1, 3), st.integers(1, 3),
       st.sampled_from(["SAME", "VALID"]))
def test_pools_match_reference(h, w, k, s, padding):
    x = RNG.normal(size=(2, h, w, 3))
    if padding == "VALID" and (k > h or k > w):
        return
    _close(_both(lambda t: rt.nn.max_pool2d(t, k, s, padding), x),
           _reference_pool(x, k, s, padding, np.max))
    _close(_both(lambda t: rt.nn.avg_pool2d(t, [k, k], [1, s, s, 1], padding), x),
           _reference_pool(x, k, s, padding, np.mean))


@pytest.mark.parametrize("k,s,padding", [(2, 2, "VALID"), (3, 1, "SAME"), (3, 2, "SAME")])
def test_pool_gradients(k, s, padding):
    x = RNG.permutation(60).reshape(1, 5, 4, 3) / 7.0  # distinct values: one maximum each
    check_gradients(lambda t: rt.nn.max_pool2d(t, k, s, padding), x)
    check_gradients(lambda t: rt.nn.avg_pool2d(t, k, s, padding), x)
    assert rt.nn.max_pool2d(rt.constant(np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1)), 2,
                            2, "VALID").numpy().ravel().tolist() == [5, 7, 13, 15]
    with pytest.raises(ShapeError, match="max_pool2d needs an input of shape"):
        rt.nn.max_pool2d(np.ones((4, 4)), 2, 2, "VALID")


def test_graphs_with_nn_ops_save_and_load(tmp_path):
    def fn(x, f):
        y = rt.nn.conv2d(x, f, 1, "SAME")
        return (rt.reduce_sum(rt.nn.max_pool2d(y, 2, 2, "SAME"))
                + rt.reduce_sum(rt.nn.avg_pool2d(rt.nn.gelu(y), 2, 1, "VALID")))
    x, f = RNG.normal(size=(1, 4, 4, 2)), RNG.normal(size=(2, 2, 2, 3))
    def grads(x, f):
        with rt.GradientTape() as tape:
            tape.watch([x, f])
            y = fn(x, f)
        return [y] + tape.gradient(y, [x, f])
    concrete = rt.function(grads).get_concrete_function(rt.constant(x), rt.constant(f))
    rt.save(concrete, str(tmp_path / "g"))
    loaded = rt.load(str(tmp_path / "g"))
    for a, b in zip(loaded(rt.constant(x), rt.constant(f)), grads(rt.constant(x), rt.constant(f))):
        np.testing.assert_allclose(a.numpy(), b.numpy())
