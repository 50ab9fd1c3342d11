"""rt.export.jax for convolutions, pools, their gradient ops, einsum and linear algebra: each
gives the graph's results under ``jax.jit`` (floats to 1e-5 of the largest magnitude), with
TensorFlow's SAME padding (odd totals), strides and dilations; a CNN's gradient graph exports
and agrees with ``jax.grad`` of the exported forward pass; the errors the graph's linear
algebra raises are raised by the call. Few functions hold many ops, since jit compiles are
what these tests cost."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
from tests.runtime.test_export_jax import assert_same  # noqa: E402

FLOATS = [np.float32, np.float64]
RNG = np.random.RandomState(11)


@pytest.fixture(autouse=True, scope="module")
def x64():
    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", previous)


def _random(*shape, dtype=np.float32):
    return RNG.randn(*shape).astype(dtype)


def _compare(fn, *arrays, specs=None):
    concrete = rt.function(fn).get_concrete_function(*(specs or arrays))
    exported = rt.export.jax(concrete)
    assert_same(concrete(*arrays), jax.jit(exported)(*arrays))
    return exported


def _convolutions_and_gradients(x, f, v, k):
    """SAME with odd totals (7 rows, 6 columns; 3x2 filters), strides, dilations, VALID,
    conv1d and both pools, and the gradients through all of them (the backprop ops)."""
    with rt.GradientTape() as tape:
        tape.watch([x, f])
        outputs = [rt.nn.conv2d(x, f, 1, "SAME"), rt.nn.conv2d(x, f, (2, 3), "SAME"),
                   rt.nn.conv2d(x, f, 1, "SAME", dilations=(2, 3)),
                   rt.nn.conv2d(x, f, (3, 2), "VALID"), rt.nn.conv1d(v, k, 2, "SAME"),
                   rt.nn.max_pool2d(x, (3, 2), (2, 2), "SAME"), rt.nn.max_pool2d(x, 2, 3, "VALID"),
                   rt.nn.avg_pool2d(x, (3, 2), (2, 1), "SAME"),
                   rt.nn.avg_pool2d(x, 3, (1, 2), "VALID")]
        loss = sum(rt.reduce_sum(out * out * (i + 1.0)) for i, out in enumerate(outputs))
    return outputs, tape.gradient(loss, [x, f])


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_convolutions_pools_and_their_gradient_ops(dtype):
    _compare(_convolutions_and_gradients, _random(2, 7, 6, 3, dtype=dtype),
             _random(3, 2, 3, 4, dtype=dtype), _random(2, 9, 3, dtype=dtype),
             _random(3, 3, 2, dtype=dtype))


def test_max_pools_keep_nan_and_send_gradients_to_the_first_maximum_and_pool_integers():
    x = np.array([[1.0, np.nan, 2.0, 2.0], [3.0, 0.5, 2.0, 1.0],
                  [-np.inf, -np.inf, np.nan, 5.0], [-np.inf, -np.inf, np.nan, np.inf]],
                 np.float32).reshape(1, 4, 4, 1)

    def fn(x, i):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.nn.max_pool2d(x, 2, 2, "VALID") + rt.nn.max_pool2d(x, 3, 1, "SAME")[:, ::2, ::2]
            loss = rt.reduce_sum(y * 3.0)
        return y, tape.gradient(loss, x), rt.nn.max_pool2d(i, 2, 2, "SAME")
    ints = RNG.randint(-2**31, 2**31 - 1, size=(2, 5, 5, 2)).astype(np.int32)
    _compare(fn, x, ints)


def _cnn(images, filters, weights):
    hidden = rt.nn.max_pool2d(rt.nn.relu(rt.nn.conv2d(images, filters, 1, "SAME")), 2, 2, "SAME")
    return rt.nn.softmax(rt.matmul(rt.reshape(hidden, [-1, 16]), weights))


def test_a_cnn_and_its_gradient_graph_export_and_agree_with_jax_grad():
    images, filters, weights = _random(3, 4, 4, 1), _random(3, 3, 1, 4), _random(16, 3)
    labels = np.eye(3, dtype=np.float32)[[0, 2, 1]]

    def loss(images, filters, weights):
        return rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(
            labels, rt.log(_cnn(images, filters, weights))))

    def gradients(images, filters, weights):
        with rt.GradientTape() as tape:
            tape.watch([filters, weights])
            value = loss(images, filters, weights)
        return tape.gradient(value, [filters, weights])
    batch = rt.TensorSpec([None, 4, 4, 1], rt.float32)
    specs = [batch, rt.TensorSpec(filters.shape, rt.float32),
             rt.TensorSpec(weights.shape, rt.float32)]
    _compare(_cnn, images, filters, weights, specs=specs)
    exported_gradients = _compare(gradients, images, filters, weights, specs=specs)
    forward = rt.export.jax(rt.function(loss).get_concrete_function(*specs))
    by_jax = jax.jit(jax.grad(forward, argnums=(1, 2)))(images, filters, weights)
    for ours, theirs in zip(jax.jit(exported_gradients)(images, filters, weights), by_jax):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


# -- einsum and linear algebra ----------------------------------------------------------------


def _einsums(a, b, v, square):
    return (rt.einsum("bij,jk->bik", a, b), rt.einsum("...j,jk", a, b), rt.einsum("ii->i", square),
            rt.einsum("ii", square), rt.einsum("bij->jb", a), rt.einsum("i,j->ij", v, v),
            rt.einsum("bij,i,jk->bk", a, v, b), rt.tensordot(a, b, 1))


def test_einsum_in_floats_integers_and_bools():
    values = [RNG.randn(*shape) * 40 for shape in ((2, 3, 4), (4, 5), (3,), (3, 3))]

    def every_dtype(floats, doubles, bytes_, bools):
        return [_einsums(*arrays) for arrays in (floats, doubles, bytes_, bools)]
    _compare(every_dtype, *[[v.astype(t) for v in values]
                            for t in (np.float32, np.float64, np.int8, np.bool_)])


def _decompositions(m, rhs, spd, tall):
    """The vectors of svd and eigh are left out: see test_vectors_agree_up_to_their_signs."""
    return (rt.linalg.inv(m), rt.linalg.det(m), rt.linalg.slogdet(m), rt.linalg.solve(m, rhs),
            rt.linalg.cholesky(spd), rt.linalg.qr(tall), rt.linalg.qr(tall, full_matrices=True),
            rt.linalg.qr(rt.transpose(tall, [0, 2, 1])), rt.linalg.svd(tall, compute_uv=False),
            rt.linalg.eigh(spd)[0])


def _linalg_args(dtype):
    m = _random(2, 3, 3, dtype=dtype)
    spd = m @ np.swapaxes(m, -1, -2) + 3 * np.eye(3, dtype=dtype)
    # cholesky and eigh read the lower triangle only, as NumPy does: the upper one is noise.
    spd = np.tril(spd) + np.triu(_random(3, 3, dtype=dtype), 1)
    return m, _random(2, 3, 2, dtype=dtype), spd, _random(2, 4, 3, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=["float32", "float64"])
def test_inverses_determinants_solves_and_decompositions(dtype):
    _compare(_decompositions, *_linalg_args(dtype))


def test_vectors_agree_up_to_their_signs():
    m, _, spd, tall = _linalg_args(np.float32)

    @rt.function
    def vectors(a, s):
        return rt.linalg.svd(a), rt.linalg.svd(a, full_matrices=True), rt.linalg.eigh(s)
    graph = [np.asarray(t) for t in rt.nest.flatten(vectors(tall, spd))]
    exported = jax.jit(rt.export.jax(vectors.get_concrete_function(tall, spd)))
    ours = [np.asarray(t) for t in jax.tree_util.tree_leaves(exported(tall, spd))]
    for index, (g, o) in enumerate(zip(graph, ours)):
        assert (g.dtype, g.shape) == (o.dtype, o.shape)
        if g.ndim == 3:  # vectors in columns: compare each with its sign matched
            o = o * np.sign(np.sum(g * o, axis=-2, keepdims=True))
        np.testing.assert_allclose(o, g, rtol=1e-5, atol=1e-5, err_msg=f"output {index}")


def test_singular_and_indefinite_matrices_make_the_call_raise_the_graphs_error():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    indefinite = np.array([[1.0, 0.0], [0.0, -1.0]], np.float32)

    @rt.function
    def checked(a, s):
        return rt.linalg.inv(a), rt.linalg.solve(a, s), rt.linalg.cholesky(s)
    exported = jax.jit(rt.export.jax(checked.get_concrete_function(singular, indefinite)))
    good = np.eye(2, dtype=np.float32) * 2
    assert_same(checked(good, good), exported(good, good))
    with pytest.raises(Exception, match="(inv|solve): the matrix is not invertible"):
        jax.block_until_ready(exported(singular, good))
    with pytest.raises(Exception, match="cholesky: the matrix is not positive definite"):
        jax.block_until_ready(exported(good, indefinite))
    nan = np.array([[np.nan, 0.0], [0.0, 1.0]], np.float32)  # NumPy gives NaN, no error
    assert_same(checked(good, nan), exported(good, nan))
