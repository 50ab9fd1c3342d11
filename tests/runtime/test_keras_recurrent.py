"""SimpleRNN, LSTM and GRU (their numbers against TensorFlow are in tests/keras_programs):
gradients through time against central differences, one trace per fit, reversed sequences,
initial states, and the options rt.keras refuses instead of ignoring."""

import numpy as np
import pytest

import runtime as rt
import transpiler.tf as tf

RNG = np.random.default_rng(9)
X = RNG.normal(size=(3, 4, 2))


def _layer(cls, **kwargs):
    layer = cls(3, dtype="float64", **kwargs)
    layer.build((None, 4, 2))
    layer.set_weights([RNG.uniform(-0.6, 0.6, w.shape) for w in layer.get_weights()])
    return layer


def _directional_check(f, gradient, array, directions=2, eps=1e-6):
    """``gradient . d`` against the central difference of ``f`` along random directions
    ``d`` (two calls per direction, instead of two per entry)."""
    for _ in range(directions):
        d = RNG.normal(size=array.shape)
        numeric = (f(array + eps * d) - f(array - eps * d)) / (2 * eps)
        assert float(np.sum(gradient * d)) == pytest.approx(numeric, rel=1e-6, abs=1e-9)


@pytest.mark.parametrize("cls, kwargs", [(tf.keras.layers.SimpleRNN, {}),
                                         (tf.keras.layers.LSTM, {}),
                                         (tf.keras.layers.GRU, {}),
                                         (tf.keras.layers.GRU, {"reset_after": False}),
                                         (tf.keras.layers.LSTM, {"go_backwards": True})])
def test_gradients_through_time_match_finite_differences(cls, kwargs):
    layer = _layer(cls, return_sequences=True, **kwargs)

    def loss_of(x):
        return float(np.sum(np.sin(layer(rt.constant(x)).numpy())))

    x = rt.constant(X)
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.reduce_sum(rt.sin(layer(x)))
    dx, dkernel = tape.gradient(loss, [x, layer.recurrent_kernel])
    _directional_check(loss_of, dx.numpy(), X)
    kernel = layer.recurrent_kernel.numpy()

    def loss_of_kernel(k):
        layer.recurrent_kernel.assign(k)
        return loss_of(X)

    _directional_check(loss_of_kernel, dkernel.numpy(), kernel)
    layer.recurrent_kernel.assign(kernel)


def test_fit_traces_the_recurrent_loop_once():
    model = tf.keras.Sequential([tf.keras.Input(shape=(4, 2)), tf.keras.layers.LSTM(3),
                                 tf.keras.layers.Dense(1)])
    model.compile("adam", "mse")
    model.fit(X.astype("float32"), np.ones((3, 1), "float32"), epochs=3, batch_size=3, verbose=0)
    assert model._compiled.train_step.tracing_count == 1
    graph = model._compiled.train_step.get_concrete_function(
        rt.TensorSpec((3, 4, 2), "float32"), rt.TensorSpec((3, 1), "float32"), None).graph
    assert sum(node.op.name == "while_loop" for node in graph.nodes) == 2  # forward, backward


def test_go_backwards_reads_the_sequence_from_its_end():
    forward = _layer(tf.keras.layers.GRU, return_sequences=True)
    backward = tf.keras.layers.GRU(3, dtype="float64", go_backwards=True, return_sequences=True)
    backward.build((None, 4, 2))
    backward.set_weights(forward.get_weights())
    np.testing.assert_allclose(backward(X).numpy(), forward(X[:, ::-1]).numpy(), rtol=1e-12)


def test_initial_state_is_the_state_before_the_first_step():
    layer = _layer(tf.keras.layers.LSTM, return_state=True)
    _, h, c = layer(X[:, :2])
    split = layer(X[:, 2:], initial_state=[h, c])
    whole = layer(X)
    for got, expected in zip(split, whole):
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="initial_state must hold 2"):
        layer(X, initial_state=[h])


@pytest.mark.parametrize("option", [{"dropout": 0.2}, {"recurrent_dropout": 0.1},
                                    {"stateful": True}])
def test_options_that_would_be_ignored_are_refused(option):
    with pytest.raises(NotImplementedError, match=f"LSTM: {next(iter(option))} is not supported"):
        tf.keras.layers.LSTM(2, **option)


def test_weights_shapes_and_unit_forget_bias():
    lstm = tf.keras.layers.LSTM(2)
    lstm.build((None, 5, 3))
    assert [w.shape for w in lstm.get_weights()] == [(3, 8), (2, 8), (8,)]
    np.testing.assert_array_equal(lstm.get_weights()[2], [0, 0, 1, 1, 0, 0, 0, 0])
    q = lstm.get_weights()[1]
    np.testing.assert_allclose(q @ q.T, np.eye(2), atol=1e-6)  # orthogonal recurrent kernel
    gru = tf.keras.layers.GRU(2)
    gru.build((None, 5, 3))
    assert [w.shape for w in gru.get_weights()] == [(3, 6), (2, 6), (2, 6)]
