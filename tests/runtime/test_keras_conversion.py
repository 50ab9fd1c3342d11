"""Layers' ``call`` converted while traced: a Python ``if`` on a tensor in a custom layer works
inside ``fit`` (Keras 3 on TensorFlow 2.21 refuses the layer), and a ``tf.function`` may stand
as a layer's ``call``. Written as a TensorFlow user writes them, with ``import transpiler.tf``."""

import numpy as np
import pytest

import transpiler.tf as tf
from runtime import conversion
from runtime.errors import OperatorNotAllowedInGraphError

RNG = np.random.default_rng(0)
# The first 16 samples are positive and the last 16 negative: with batch_size=16 and no
# shuffling, the two batches take the two branches of ``Flip.call``.
X = np.concatenate([np.abs(RNG.normal(size=(16, 3))), -np.abs(RNG.normal(size=(16, 3)))]
                   ).astype("float32")
Y = X.sum(axis=1, keepdims=True)


class Flip(tf.keras.layers.Layer):
    def call(self, x):
        if tf.reduce_sum(x) > 0:
            return x * 2.0
        return -x


class MaxScaled(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

    @tf.function
    def call(self, x, training=None):
        if tf.reduce_max(x) > 1.0:
            x = x / tf.reduce_max(x)
        return x * self.w


class Gated(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")

    def call(self, x, training=None):
        y = self.dense(x)
        if training:
            y = y * 1.0
        for _ in tf.range(2):
            if tf.reduce_mean(y) < 0:
                y = -y
        return y


def fit_losses(layer, run_eagerly=False):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), layer,
                                 tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(tf.keras.optimizers.SGD(0.01), "mse", run_eagerly=run_eagerly)
    return model.fit(X, Y, epochs=2, batch_size=16, shuffle=False, verbose=0).history["loss"]


def test_python_if_on_a_tensor_in_call_works_inside_fit():
    graph = fit_losses(Flip())
    np.testing.assert_allclose(graph, fit_losses(Flip(), run_eagerly=True), rtol=1e-6)
    # Both branches ran: Flip doubles the positive batch and negates the negative one.
    w = np.ones((3, 1), "float32")
    first_batch = np.mean((2 * X[:16] @ w - Y[:16]) ** 2)
    assert graph[0] > 0.5 * first_batch


def test_a_tf_function_as_call_trains_like_tensorflow():
    # TensorFlow 2.21 (Keras 3.15), the same file with `import tensorflow as tf`.
    np.testing.assert_allclose(fit_losses(MaxScaled()), [0.8974332213401794, 0.8454900979995728],
                               rtol=1e-6)
    layer = MaxScaled()
    np.testing.assert_allclose(layer(np.array([[2.0, 4.0]], "float32")).numpy(), [[0.5, 1.0]])


def test_subclassed_model_call_with_if_and_loop_on_tensors_in_fit_and_predict():
    model = Gated()
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    history = model.fit(X, 2 * np.abs(Y) + 1, epochs=2, batch_size=16, shuffle=False, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]
    eager = model(X).numpy()
    np.testing.assert_allclose(model.predict(X, verbose=0), eager, rtol=1e-6)
    assert eager.mean() >= 0  # the loop flips the batch while its mean is negative


def test_without_the_converter_the_if_fails_with_the_graph_error():
    saved = conversion._converter
    conversion.set_converter(None)
    try:
        model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), Flip()])
        with pytest.raises(OperatorNotAllowedInGraphError, match="Python bool"):
            tf.function(lambda x: model(x))(X)
    finally:
        conversion.set_converter(saved)
