"""fit/evaluate options and the bugs the Keras programs found (their numbers against
TensorFlow are in tests/keras_programs): metrics of evaluate's first batch, predict's traces
counted per model, sample and class weights, regularization losses, Variable conversions."""

import warnings

import numpy as np
import pytest

import runtime as rt
import transpiler.tf as tf

RNG = np.random.default_rng(3)
X = RNG.normal(size=(10, 3)).astype("float32")
Y = RNG.normal(size=(10, 1)).astype("float32")


def _model(**dense_options):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(2, activation="tanh", **dense_options),
                                 tf.keras.layers.Dense(1)])
    model.set_weights([np.linspace(-0.5, 0.5, w.size).reshape(w.shape).astype("float32")
                       for w in model.get_weights()])
    return model


def test_evaluate_counts_the_first_batch_in_its_metrics():
    # The metrics' names were read before the first step resolved them: the first batch was
    # left out of every metric (mse != loss on the first evaluate).
    model = _model()
    model.compile("sgd", "mse", metrics=["mse"])
    scores = model.evaluate(X, Y, batch_size=4, return_dict=True, verbose=0)
    assert scores["mse"] == pytest.approx(scores["loss"], rel=1e-6)


def test_predict_traces_are_counted_per_model():
    # predict's step was one function for every model: five models predicting warned of
    # retracing.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(6):
            _model().predict(X, verbose=0)


def test_sample_weight_scales_each_sample_of_the_loss():
    model = _model()
    model.compile("sgd", "mse")
    weights = np.linspace(0, 2, 10).astype("float32")
    errors = ((model.predict(X, verbose=0) - Y) ** 2)[:, 0]
    got = model.evaluate(X, Y, sample_weight=weights, batch_size=10, verbose=0)
    assert got == pytest.approx(float(np.mean(errors * weights)), rel=1e-5)


def test_class_weight_weighs_samples_by_their_label():
    labels = np.array([0, 1] * 5)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    model.compile(tf.keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
    plain = model.fit(X, labels, batch_size=10, epochs=1, verbose=0).history["loss"][0]
    zeroed = model.fit(X, labels, class_weight={1: 0.0}, batch_size=10, epochs=1,
                       verbose=0).history["loss"][0]
    per_sample = tf.keras.losses.SparseCategoricalCrossentropy(reduction="none")(
        labels, model.predict(X, verbose=0)).numpy()
    assert plain == pytest.approx(float(per_sample.mean()), rel=1e-5)
    assert zeroed == pytest.approx(float(per_sample[labels == 0].sum() / 10), rel=1e-5)
    with pytest.raises(ValueError, match="class_weight or sample_weight, not both"):
        model.fit(X, labels, class_weight={0: 1.0}, sample_weight=np.ones(10), verbose=0)


def test_regularization_losses_are_added_to_the_loss():
    model = _model(kernel_regularizer=tf.keras.regularizers.l2(0.1),
                   bias_regularizer="l1", activity_regularizer=tf.keras.regularizers.l1(0.01))
    kernel, bias = model.get_weights()[:2]
    assert [float(v) for v in model.losses] == pytest.approx(
        [0.1 * float(np.sum(kernel ** 2)), 0.01 * float(np.sum(np.abs(bias)))])
    model.compile("sgd", "mse", metrics=["mse"])
    scores = model.evaluate(X, Y, batch_size=10, return_dict=True, verbose=0)
    hidden = np.tanh(X @ kernel + bias)
    activity = 0.01 * np.abs(hidden).sum() / 10  # divided by the batch size, as Keras 3 does
    penalty = 0.1 * np.sum(kernel ** 2) + 0.01 * np.sum(np.abs(bias)) + activity
    assert scores["loss"] == pytest.approx(scores["mse"] + penalty, rel=1e-5)
    assert len(model.losses) == 3  # the activity penalty of the last call, not of every call
    model.layers[0].trainable = False
    assert len(model.losses) == 1  # a frozen layer's weights are not penalized


def test_regularizers_by_name_and_saved_with_the_model(tmp_path):
    assert tf.keras.regularizers.get("l2").l2 == 0.01
    with pytest.raises(ValueError, match="unknown regularizer 'l3'"):
        tf.keras.regularizers.get("l3")
    model = _model(kernel_regularizer=tf.keras.regularizers.L1L2(0.5, 0.25))
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    regularizer = loaded.layers[0].kernel_regularizer
    assert (type(regularizer).__name__, regularizer.l1, regularizer.l2) == ("L1L2", 0.5, 0.25)
    assert [float(v) for v in loaded.losses] == pytest.approx([float(v) for v in model.losses])


def test_functional_layers_start_with_input_layers_and_get_layer():
    a = tf.keras.Input(shape=(2,), name="a")
    out = tf.keras.layers.Dense(1, name="out")(a)
    model = tf.keras.Model(a, out)
    assert [(type(layer).__name__, layer.name) for layer in model.layers] == [
        ("InputLayer", "a"), ("Dense", "out")]
    assert model.get_layer("out") is model.layers[1] and model.get_layer(index=0).name == "a"
    with pytest.raises(ValueError, match="no layer named 'b'; its layers are a, out"):
        model.get_layer("b")


def test_scalar_variables_convert_to_python_numbers():
    optimizer = tf.keras.optimizers.Adam(0.25)
    assert float(optimizer.learning_rate) == 0.25 and int(optimizer.iterations) == 0
    with pytest.raises(TypeError, match="ambiguous"):
        float(rt.Variable([1.0, 2.0]))


def test_conv1d_matches_conv2d_over_a_height_of_one():
    x = RNG.normal(size=(2, 7, 3)).astype("float32")
    conv1 = tf.keras.layers.Conv1D(4, 3, strides=2, padding="same")
    conv2 = tf.keras.layers.Conv2D(4, (1, 3), strides=(1, 2), padding="same")
    conv1.build((None, 7, 3))
    conv2.build((None, 1, 7, 3))
    kernel, bias = conv1.get_weights()
    conv2.set_weights([kernel[None], bias])
    np.testing.assert_allclose(conv1(x).numpy(), conv2(x[:, None]).numpy()[:, 0], rtol=1e-6)
    pooled = tf.keras.layers.MaxPooling1D(3, strides=2, padding="same")(x).numpy()
    assert pooled.shape == (2, 4, 3)
    np.testing.assert_array_equal(pooled[:, 1], x[:, 1:4].max(axis=1))


def test_callback_hooks_reach_subclasses_and_lambda_callbacks_only():
    seen = []

    class OnBatch(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            seen.append(("subclass", batch))

    lambda_callback = tf.keras.callbacks.LambdaCallback(
        on_train_batch_begin=lambda batch, logs: seen.append(("lambda", batch)))
    model = _model()
    model.compile("sgd", "mse")
    model.fit(X, Y, batch_size=5, epochs=1, verbose=0,
              callbacks=[OnBatch(), lambda_callback, tf.keras.callbacks.History()])
    assert seen == [("lambda", 0), ("subclass", 0), ("lambda", 1), ("subclass", 1)]


def test_a_model_compiled_without_a_loss_needs_its_own_train_step():
    model = _model()
    model.compile("sgd")
    with pytest.raises(ValueError, match="compiled without a loss: give compile\\(loss=...\\), "
                                         "or override train_step"):
        model.fit(X, Y, verbose=0)
    assert [m.name for m in model.metrics] == ["loss"]


def test_super_train_step_updates_the_compiled_metrics():
    class Logged(tf.keras.Model):
        def train_step(self, data):
            return super().train_step(data)

    inputs = tf.keras.Input(shape=(3,))
    model = Logged(inputs, tf.keras.layers.Dense(1)(inputs))
    plain = tf.keras.Model(inputs, model.layers[1](inputs))
    for m in (model, plain):
        m.compile(tf.keras.optimizers.SGD(0.0), "mse", metrics=["mae"])
    logged = model.fit(X, Y, batch_size=4, epochs=1, verbose=0).history
    expected = plain.fit(X, Y, batch_size=4, epochs=1, verbose=0).history
    assert logged.keys() == expected.keys() == {"loss", "mae"}
    for key in expected:
        assert logged[key] == pytest.approx(expected[key], rel=1e-6)


@pytest.mark.parametrize("key", ["loss", "batch_loss"])
def test_an_own_train_step_logs_the_metrics_named_as_its_results_like_keras(key):
    # Keras 3's fit logs model.metrics' results when the step's result names are theirs: an
    # untouched loss tracker's 0 for {"loss": loss}, the last batch's value for another name.
    # Numbers from TensorFlow 2.21 / Keras 3.15.1 running this test's program (tf.keras, same
    # weights, shuffle=False), traced and with run_eagerly=True alike.
    class OwnStep(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {key: loss}

    expected = [0.0, 0.0] if key == "loss" else [3.6262569427490234, 0.5092079043388367]
    for eager in (False, True):
        inputs = tf.keras.Input(shape=(3,))
        model = OwnStep(inputs, tf.keras.layers.Dense(1)(inputs))
        model.set_weights([np.full((3, 1), 0.5, "float32"), np.zeros(1, "float32")])
        model.compile(tf.keras.optimizers.SGD(0.1), "mse", run_eagerly=eager)
        history = model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0).history
        assert list(history) == [key]
        assert history[key] == pytest.approx(expected, rel=1e-6, abs=1e-7)


def test_steps_per_epoch_carries_the_iterator_across_epochs_like_keras():
    # TensorFlow 2.21 gives this sequence (and two warnings) for 4 batches, 3 steps per epoch.
    seen = []
    callback = tf.keras.callbacks.LambdaCallback(
        on_train_batch_end=lambda batch, logs: seen.append(batch),
        on_epoch_end=lambda epoch, logs: seen.append("|"))
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.warns(UserWarning, match="Your input ran out of data") as caught:
        model.fit(np.ones((16, 3)), np.ones((16, 1)), batch_size=4, steps_per_epoch=3, epochs=4,
                  shuffle=False, verbose=0, callbacks=[callback])
    assert seen == [0, 1, 2, "|", 0, "|", 0, 1, 2, "|", 0, "|"]
    assert len(caught) == 2


def test_a_sequential_model_is_built_in_one_call_per_layer():
    # Each add ran the whole model again on the probe: n layers took n * (n + 1) / 2 calls.
    calls = []

    class Counted(tf.keras.layers.Layer):
        def call(self, inputs):
            calls.append(1)
            return inputs

    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), Counted()] +
                                [tf.keras.layers.Dense(3) for _ in range(4)])
    assert len(calls) == 1 and len(model.get_weights()) == 8
    model.pop()
    model.add(tf.keras.layers.Dense(2))
    assert [w.shape for w in model.get_weights()][-2:] == [(3, 2), (2,)]


def test_noise_layers_change_their_input_only_in_training():
    images = np.ones((2, 3, 3, 4), "float32")
    layers = tf.keras.layers
    dropped = layers.SpatialDropout2D(0.5, seed=1)(images, training=True).numpy()
    per_map = dropped.reshape(2, 9, 4)
    assert np.all((per_map == 0).all(axis=1) | (per_map == 2.0).all(axis=1))  # whole maps
    assert not np.array_equal(layers.GaussianNoise(1.0, seed=1)(images, training=True).numpy(),
                              images)
    noise = layers.GaussianDropout(0.5, seed=1)(images, training=True).numpy()
    assert noise.shape == images.shape and not np.array_equal(noise, images)
    np.testing.assert_array_equal(layers.GaussianDropout(0.5)(images).numpy(), images)
