"""Conv2D, pooling, BatchNormalization, Embedding, LayerNormalization against TensorFlow 2.21
(Keras 3.15): the same models, weights and batches give the same losses, moving statistics
and predictions. keras.utils and the errors for Keras names rt.keras does not have."""

import numpy as np
import pytest

import transpiler.tf as tf

RNG = np.random.default_rng(5)
X = RNG.normal(size=(8, 6, 6, 2)).astype("float32")
Y = RNG.normal(size=(8, 3)).astype("float32")
IDS = RNG.integers(0, 10, size=(8, 5))


def test_conv_batch_norm_pooling_model_fits_like_tensorflow():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 6, 2)),
        tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu"),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Conv2D(5, (2, 2), strides=1),
        tf.keras.layers.AveragePooling2D(pool_size=2, strides=1),
        tf.keras.layers.GlobalAveragePooling2D(),
        tf.keras.layers.Dense(3)])
    assert [w.shape for w in model.get_weights()] == [
        (3, 3, 2, 4), (4,), (4,), (4,), (4,), (4,), (2, 2, 4, 5), (5,), (5, 3), (3,)]
    assert [w.name for w in model.layers[1].weights] == [
        "gamma", "beta", "moving_mean", "moving_variance"]
    assert len(model.trainable_weights) == 8
    weights = [np.linspace(-0.5, 0.5, w.size).reshape(w.shape).astype("float32")
               * (1 if w.ndim > 1 else 0.1) for w in model.get_weights()]
    weights[2:6] = [np.linspace(0.8, 1.2, 4).astype("float32"),
                    np.linspace(-0.1, 0.1, 4).astype("float32"), np.zeros(4, "float32"),
                    np.ones(4, "float32")]
    model.set_weights(weights)
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    history = model.fit(X, Y, epochs=3, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"],
                               [1.129471778869629, 0.7789865732192993, 0.6914293169975281],
                               rtol=1e-6)
    batch_norm = model.layers[1]
    np.testing.assert_allclose(batch_norm.moving_mean.numpy(), [
        0.022586125880479813, 0.0233529731631279, 0.02398229017853737, 0.024947501718997955],
        rtol=1e-6)
    np.testing.assert_allclose(batch_norm.moving_variance.numpy(), [
        0.9649358987808228, 0.9652807116508484, 0.965466320514679, 0.9660610556602478],
        rtol=1e-6)
    np.testing.assert_allclose(model.predict(X[:2], verbose=0).ravel(), [
        -1.2076882123947144, -0.5177363753318787, -0.1104709655046463, -0.666211724281311,
        -0.373786985874176, -0.21617646515369415], rtol=1e-5)


def test_embedding_layer_norm_global_pooling_fit_like_tensorflow():
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(5,), dtype="int32"), tf.keras.layers.Embedding(10, 4),
        tf.keras.layers.LayerNormalization(), tf.keras.layers.GlobalAveragePooling1D(),
        tf.keras.layers.Dense(1)])
    model.set_weights([np.linspace(-1, 1, w.size).reshape(w.shape).astype("float32")
                       for w in model.get_weights()])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(IDS, Y[:, :1], epochs=3, batch_size=4, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"],
                               [8.116555213928223, 1.2570018768310547, 0.989189624786377],
                               rtol=1e-6)


def test_batch_norm_uses_moving_statistics_outside_training_and_when_frozen():
    layer = tf.keras.layers.BatchNormalization(epsilon=0.0)
    x = np.array([[1.0, 2.0], [3.0, 6.0]], "float32")
    np.testing.assert_allclose(layer(x).numpy(), x)  # moving mean 0, variance 1
    np.testing.assert_allclose(layer(x, training=True).numpy(), [[-1, -1], [1, 1]], rtol=1e-6)
    np.testing.assert_allclose(layer.moving_mean.numpy(), [0.02, 0.04], rtol=1e-6)
    layer.trainable = False
    np.testing.assert_allclose(layer(x, training=True).numpy(),
                               (x - [0.02, 0.04]) / np.sqrt(layer.moving_variance.numpy()),
                               rtol=1e-5)
    channels_first = tf.keras.layers.BatchNormalization(axis=1)
    assert channels_first(np.ones((2, 3, 4), "float32"), training=True).shape == (2, 3, 4)
    assert channels_first.gamma.shape == (3,)


def test_layer_names_follow_keras():
    tf.keras.backend.clear_session()
    names = [tf.keras.layers.Conv2D(1, 1).name, tf.keras.layers.MaxPooling2D().name,
             tf.keras.layers.GlobalAveragePooling2D().name, tf.keras.layers.Dense(1).name,
             tf.keras.layers.Dense(1).name]
    assert names == ["conv2d", "max_pooling2d", "global_average_pooling2d", "dense", "dense_1"]


def test_utils_to_categorical_and_set_random_seed():
    np.testing.assert_array_equal(tf.keras.utils.to_categorical([[1], [0], [2]]),
                                  np.eye(3, dtype="float32")[[1, 0, 2]])
    assert tf.keras.utils.to_categorical(np.array([0, 1]), num_classes=4).shape == (2, 4)
    with pytest.raises(ValueError, match="labels must be in"):
        tf.keras.utils.to_categorical([3], num_classes=3)
    kernels = []
    for _ in range(2):
        tf.keras.utils.set_random_seed(7)
        layer = tf.keras.layers.Dense(3)
        layer.build((None, 2))
        kernels.append(layer.kernel.numpy())
        kernels.append(tf.keras.layers.Dropout(0.5)(np.ones((1, 20), "float32"),
                                                    training=True).numpy())
    np.testing.assert_array_equal(kernels[0], kernels[2])
    np.testing.assert_array_equal(kernels[1], kernels[3])


@pytest.mark.parametrize("module, name", [("layers", "ConvLSTM2D"), ("utils", "plot_model"),
                                          ("", "applications"), ("backend", "set_epsilon")])
def test_a_missing_keras_name_is_named_in_the_error(module, name):
    namespace = getattr(tf.keras, module) if module else tf.keras
    qualified = f"keras.{module}.{name}" if module else f"keras.{name}"
    with pytest.raises(AttributeError, match=f"{qualified} is not supported by rt.keras yet"):
        getattr(namespace, name)
