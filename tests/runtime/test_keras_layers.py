"""rt.keras layers, activations, initializers, losses and metrics against NumPy formulas."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
RNG = np.random.default_rng(7)


def test_dense_builds_on_first_call_with_glorot_uniform_kernel_and_zero_bias():
    layer = keras.layers.Dense(3, activation="relu")
    assert not layer.built and layer.weights == []
    x = RNG.normal(size=(4, 5)).astype("float32")
    y = layer(x)
    assert layer.built and [w.shape for w in layer.weights] == [(5, 3), (3,)]
    limit = np.sqrt(6 / (5 + 3))
    assert np.all(np.abs(layer.kernel.numpy()) <= limit)
    np.testing.assert_array_equal(layer.bias.numpy(), np.zeros(3, "float32"))
    np.testing.assert_allclose(y.numpy(), np.maximum(x @ layer.kernel.numpy(), 0), rtol=1e-6)


def test_dense_options_activation_callable_no_bias_initializers():
    layer = keras.layers.Dense(2, activation=rt.tanh, use_bias=False,
                               kernel_initializer=keras.initializers.Constant(0.5))
    x = np.ones((1, 3), "float32")
    np.testing.assert_allclose(layer(x).numpy(), np.tanh([[1.5, 1.5]]), rtol=1e-6)
    assert len(layer.trainable_weights) == 1
    layer = keras.layers.Dense(2, bias_initializer="ones", kernel_initializer="zeros")
    np.testing.assert_array_equal(layer(x).numpy(), [[1.0, 1.0]])


def test_layer_subclassing_with_build_add_weight_and_trainable_weights():
    class Scale(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")
            self.c = self.add_weight(name="c", shape=(), initializer="zeros", trainable=False)

        def call(self, inputs):
            return inputs * self.w + self.c

    layer = Scale()
    out = layer(np.array([[1.0, 2.0]], "float32"))
    np.testing.assert_array_equal(out.numpy(), [[1.0, 2.0]])
    assert [w.name for w in layer.trainable_weights] == ["w"]  # Keras 3's: the weight's own
    assert [w.name for w in layer.non_trainable_weights] == ["c"]


def test_flatten_dropout_concatenate_lambda():
    x = RNG.normal(size=(2, 3, 4)).astype("float32")
    assert keras.layers.Flatten()(x).shape == (2, 12)
    drop = keras.layers.Dropout(0.5)
    np.testing.assert_array_equal(drop(x).numpy(), x)  # not training: unchanged
    dropped = drop(np.ones((100, 100), "float32"), training=True).numpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0} and 0.4 < (dropped == 0).mean() < 0.6
    a, b = np.ones((2, 1), "float32"), np.zeros((2, 2), "float32")
    assert keras.layers.concatenate([a, b]).shape == (2, 3)
    assert keras.layers.Concatenate(axis=0)([b, b]).shape == (4, 2)
    np.testing.assert_array_equal(keras.layers.Lambda(lambda t: t * 3)(a).numpy(), a * 3)


def test_training_flag_reaches_nested_dropout():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.drop = keras.layers.Dropout(0.5)

        def call(self, x):
            return self.drop(x)

    x = np.ones((50, 50), "float32")
    np.testing.assert_array_equal(Net()(x).numpy(), x)
    assert (Net()(x, training=True).numpy() == 0).any()


@pytest.mark.parametrize("name, expected", [
    ("relu", lambda x: np.maximum(x, 0)), ("sigmoid", lambda x: 1 / (1 + np.exp(-x))),
    ("tanh", np.tanh), ("linear", lambda x: x), ("softplus", lambda x: np.log1p(np.exp(x))),
    ("elu", lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    ("swish", lambda x: x / (1 + np.exp(-x))),
    ("softmax", lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True)),
    ("gelu", lambda x: np.array([0.8413447, -0.15426877, 0.0], "float32")[:x.shape[-1]]
     if x.tolist() == [1.0, -0.5, 0.0] else None)])
def test_activations_by_name(name, expected):
    x = np.array([1.0, -0.5, 0.0], "float32")
    fn = keras.activations.get(name)
    np.testing.assert_allclose(fn(rt.constant(x)).numpy(), expected(x), rtol=1e-5, atol=1e-7)


def test_activations_get_none_callable_and_unknown():
    assert keras.activations.get(None) is keras.activations.linear
    assert keras.activations.get(rt.tanh) is rt.tanh
    with pytest.raises(ValueError, match="unknown activation 'rleu'"):
        keras.activations.get("rleu")


def test_initializers():
    init = keras.initializers
    np.testing.assert_array_equal(init.Zeros()((2, 2)), np.zeros((2, 2)))
    np.testing.assert_array_equal(init.Constant(3.0)((2,)), [3.0, 3.0])
    seeded = init.GlorotUniform(seed=1)
    np.testing.assert_array_equal(seeded((30, 20)), seeded((30, 20)))  # same seed, same values
    assert np.abs(seeded((30, 20))).max() <= np.sqrt(6 / 50)
    he = init.HeNormal(seed=3)((400, 300)).numpy()  # a tensor, as Keras 3 gives
    assert np.abs(he).max() <= 2 * np.sqrt(2 / 400) / 0.87962566103423978 + 1e-6
    assert abs(he.std() - np.sqrt(2 / 400)) < 0.02 * np.sqrt(2 / 400)
    assert isinstance(init.get("he_normal"), init.HeNormal)
    rt.random.set_seed(5)
    first = init.GlorotUniform()((3, 3))
    rt.random.set_seed(5)
    np.testing.assert_array_equal(init.GlorotUniform()((3, 3)), first)


# -- losses: NumPy formulas; values from TensorFlow 2.21 (Keras 3.15) where noted ----------------

def test_regression_losses():
    y, p = RNG.normal(size=(4, 3)).astype("float32"), RNG.normal(size=(4, 3)).astype("float32")
    np.testing.assert_allclose(keras.losses.MeanSquaredError()(y, p), ((y - p) ** 2).mean(), rtol=1e-6)
    np.testing.assert_allclose(keras.losses.MeanAbsoluteError()(y, p), np.abs(y - p).mean(), rtol=1e-6)
    np.testing.assert_allclose(keras.losses.get("mse")(y, p), ((y - p) ** 2).mean(-1), rtol=1e-6)


def test_crossentropies_of_probabilities_clip_at_epsilon():
    y = np.array([[0.0], [1.0], [1.0]], "float32")
    p = np.array([[0.0], [0.3], [1.0]], "float32")
    q = np.clip(p, 1e-7, 1 - 1e-7)
    expected = -(y * np.log(q) + (1 - y) * np.log(1 - q)).mean()
    np.testing.assert_allclose(keras.losses.BinaryCrossentropy()(y, p), expected, rtol=1e-5)
    logits = np.array([[2.0], [-1.0], [0.5]], "float32")
    expected = (np.maximum(logits, 0) - logits * y + np.log1p(np.exp(-np.abs(logits)))).mean()
    np.testing.assert_allclose(keras.losses.BinaryCrossentropy(from_logits=True)(y, logits),
                               expected, rtol=1e-6)
    onehot = np.array([[0, 1, 0], [1, 0, 0]], "float32")
    probs = np.array([[0.2, 0.5, 0.3], [0.0, 0.5, 0.5]], "float32")
    expected = -(onehot * np.log(np.clip(probs, 1e-7, 1 - 1e-7))).sum(-1).mean()
    np.testing.assert_allclose(keras.losses.CategoricalCrossentropy()(onehot, probs), expected, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.SparseCategoricalCrossentropy()([1, 0], probs),
                               expected, rtol=1e-6)


def test_crossentropy_of_a_sigmoid_or_softmax_output_uses_its_logits_like_keras():
    # TensorFlow 2.21's Keras gives 13.491358757 and 21.156631470 here (the clipped
    # probabilities would give about 10.84).
    y = np.array([[0.0], [1.0], [1.0]], "float32")
    z = rt.constant([[20.0], [-20.0], [0.5]])
    np.testing.assert_allclose(keras.losses.BinaryCrossentropy()(y, keras.activations.sigmoid(z)),
                               13.491358757, rtol=1e-6)
    x = rt.constant([[20.0, 0, -3], [-20.0, 1, 2]])
    onehot = np.array([[0, 1, 0], [1, 0, 0]], "float32")
    probs = keras.activations.softmax(x)
    np.testing.assert_allclose(keras.losses.CategoricalCrossentropy()(onehot, probs), 21.15663147, rtol=1e-6)
    np.testing.assert_allclose(keras.losses.SparseCategoricalCrossentropy()([1, 0], probs), 21.15663147, rtol=1e-6)


def test_metrics_functions_and_accuracy_resolution():
    m = keras.metrics
    y, p = np.array([[1.0], [0.0]], "float32"), np.array([[0.7], [0.6]], "float32")
    np.testing.assert_array_equal(m.binary_accuracy(y, p), [[1.0], [0.0]])  # per element (Keras 3)
    assert m.get("accuracy", (2, 1), (2, 1)).name == "accuracy"
    assert m.get("accuracy", (2, 1), (2, 1))._fn is m.binary_accuracy
    assert m.get("accuracy", (2,), (2, 3))._fn is m.sparse_categorical_accuracy
    assert m.get("accuracy", (2, 3), (2, 3))._fn is m.categorical_accuracy
    np.testing.assert_array_equal(m.sparse_categorical_accuracy([2, 0], [[0, 0, 1], [0, 1, 0]]), [1, 0])
    mae = m.MeanAbsoluteError()
    mae.update_state(np.zeros((2, 1)), np.ones((2, 1)))
    mae.update_state(np.zeros((1, 1)), 4 * np.ones((1, 1)))
    assert mae.result() == pytest.approx(2.0)


def test_an_input_no_model_uses_stops_recording_once_dropped():
    """Ops on eager tensors are recorded while a Keras input is open (raw ops on inputs build
    the functional graph); an Input made and dropped must not leave every later op recorded
    (functions then ran eagerly, and their calls were kept)."""
    import gc

    from runtime.autodiff import recording

    before = recording.active
    rt.keras.Input(shape=(3,))
    gc.collect()
    assert recording.active == before
    kept = rt.keras.Input(shape=(3,))
    assert recording.active == before + 1
    del kept
    gc.collect()
    assert recording.active == before
