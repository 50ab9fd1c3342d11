"""rt.keras models and training: fit/evaluate/predict against numbers from TensorFlow 2.21
(Keras 3.15) stored here, the seed notebook's subclassed model and the physics group's
functional model."""

import numpy as np
import pytest

import runtime as rt

keras = rt.keras

X = np.random.default_rng(0).normal(size=(50, 3)).astype("float32")
Y = (X @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
INITIAL = [np.linspace(-1, 1, 12).reshape(3, 4).astype("float32"), np.full((4,), 0.1, "float32"),
           np.linspace(0.5, -0.5, 4).reshape(4, 1).astype("float32"), np.array([0.2], "float32")]


def small_model():
    model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(1)])
    model.set_weights(INITIAL)
    return model


# From TensorFlow: the same model, weights and data; fit(epochs=2, batch_size=16,
# shuffle=False, validation_split=0.2) after compile(optimizer, "mse", metrics=["mae"]).
TF_RESULTS = {
    "sgd": ({"loss": [4.1257829666, 2.7392392158], "mae": [1.5509598255, 1.2883980274],
             "val_loss": [3.4148316383, 2.0382332802], "val_mae": [1.4559123516, 1.1602106094]},
            [[[-0.5042024255, -0.6965923309, -0.9296401739, -1.0678145885],
              [-0.8100703359, -0.2121694237, 0.4591209888, 0.9696174860],
              [0.8621938825, 0.7459493876, 0.4604581594, 0.2407448739]],
             [0.2750605345, 0.1491584778, -0.0135348476, -0.1388582289],
             [[0.4930299520], [0.0220928658], [-0.5445803404], [-1.0069624186]], [0.4191036820]]),
    "adam": ({"loss": [4.3292527199, 4.1194128990], "val_loss": [3.8761017323, 3.7832169533]},
             [[[-0.9419966340, -0.7609768510, -0.6940950155, -0.5106828213],
               [-0.3292005658, -0.1467701793, 0.1486126781, 0.3316009939],
               [0.5130543709, 0.6951940060, 0.7582260966, 0.9420059323]],
              [0.1527560800, 0.1450085938, 0.0612387955, 0.0750784278],
              [[0.4458226264], [0.1153488830], [-0.2243003547], [-0.4953998327]], [0.2375364155]]),
    "rmsprop": ({"loss": [4.2424368858, 3.8296852112], "val_loss": [3.7677826881, 3.6153316498]},
                [[[-0.8926127553, -0.7222071290, -0.7501472831, -0.5560722351],
                  [-0.3807170093, -0.1933144182, 0.2172363698, 0.3962738514],
                  [0.5713260174, 0.7402014136, 0.6864812374, 0.8829099536]],
                 [0.1950206310, 0.1649172753, 0.0165764503, 0.0389343873],
                 [[0.4374255538], [0.1230728626], [-0.2903648317], [-0.5365138054]], [0.2617251277]]),
    "rmsprop_centered_momentum": (
        {"loss": [4.2141790390, 3.4416365623], "val_loss": [3.6338539124, 3.2136001587]},
        [[[-0.7935202718, -0.6439227462, -0.8703372478, -0.6512310505],
          [-0.4789732099, -0.2787276506, 0.3526584208, 0.5236438513],
          [0.6723022461, 0.8198262453, 0.5440464020, 0.7601393461]],
         [0.2637208402, 0.1972236633, -0.0574649200, -0.0214853771],
         [[0.4163956046], [0.1189136952], [-0.4345484972], [-0.6012403965]], [0.3025712073]]),
    "adamw": ({"loss": [4.3290681839, 4.1184015274], "val_loss": [3.8752408028, 3.7819778919]},
              [[[-0.9361597300, -0.7562289834, -0.6901458502, -0.5078240037],
                [-0.3274263144, -0.1460845023, 0.1479257047, 0.3298198283],
                [0.5101831555, 0.6912266016, 0.7534798980, 0.9361643195]],
               [0.1520072669, 0.1442883313, 0.0607229546, 0.0745032653],
               [[0.4429838955], [0.1144887432], [-0.2231831551], [-0.4925925434]], [0.2362445146]]),
    "adam_exponential_decay": (
        {"loss": [4.3315324783, 4.1818890572], "val_loss": [3.8960480690, 3.8574366570]},
        [[[-0.9645361304, -0.7830119729, -0.6714965105, -0.4888340533],
          [-0.3073881567, -0.1253889352, 0.1260332018, 0.3084872663],
          [0.4901546240, 0.6723482013, 0.7819310427, 0.9648154378]],
         [0.1324254423, 0.1284017712, 0.0758160800, 0.0832441896],
         [[0.4662215710], [0.1340607852], [-0.2017710954], [-0.4918009937]], [0.2239636779]]),
}


def make_optimizer(name):
    opt = keras.optimizers
    return {"sgd": lambda: opt.SGD(0.05, momentum=0.9, nesterov=True),
            "adam": lambda: opt.Adam(0.01), "rmsprop": lambda: opt.RMSprop(0.01),
            "rmsprop_centered_momentum": lambda: opt.RMSprop(0.01, momentum=0.5, centered=True),
            "adamw": lambda: opt.AdamW(0.01, weight_decay=0.1),
            "adam_exponential_decay": lambda: opt.Adam(opt.schedules.ExponentialDecay(0.01, 3, 0.5)),
            }[name]()


@pytest.mark.parametrize("name", sorted(TF_RESULTS))
def test_fit_matches_tensorflow_losses_and_weights(name):
    history, weights = TF_RESULTS[name]
    model = small_model()
    model.compile(make_optimizer(name), "mse", metrics=["mae"])
    result = model.fit(X, Y, epochs=2, batch_size=16, shuffle=False, validation_split=0.2,
                       verbose=0)
    for key, values in history.items():
        np.testing.assert_allclose(result.history[key], values, rtol=2e-6, err_msg=key)
    for got, expected in zip(model.get_weights(), weights):
        np.testing.assert_allclose(got, np.array(expected, "float32"), rtol=1e-5, atol=1e-6)
    assert result.epoch == [0, 1]
    # One trace for the full batches, one for the last, smaller one; none per batch.
    assert model._compiled.train_step.tracing_count == 2


def test_fit_matches_a_numpy_reimplementation_of_sgd():
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(3,))])
    w, b = np.full((3, 1), 0.1, "float32"), np.zeros(1, "float32")
    model.set_weights([w, b])
    model.compile(keras.optimizers.SGD(0.1), "mse")
    model.fit(X, Y, epochs=3, batch_size=10, shuffle=False, verbose=0)
    for _ in range(3):
        for i in range(0, 50, 10):
            xb, yb = X[i:i + 10], Y[i:i + 10]
            error = xb @ w + b - yb
            w = w - np.float32(0.1) * (2 * xb.T @ error / 10)
            b = b - np.float32(0.1) * (2 * error.sum(0) / 10)
    np.testing.assert_allclose(model.get_weights()[0], w, rtol=1e-5)
    np.testing.assert_allclose(model.get_weights()[1], b, rtol=1e-5, atol=1e-6)


def test_with_tensorflow_when_installed():
    tf = pytest.importorskip("tensorflow")
    tf_model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                    tf.keras.layers.Dense(4, activation="tanh"),
                                    tf.keras.layers.Dense(1)])
    tf_model.set_weights(INITIAL)
    tf_model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    expected = tf_model.fit(X, Y, epochs=2, batch_size=16, shuffle=False, verbose=0).history
    model = small_model()
    model.compile(keras.optimizers.Adam(0.01), "mse")
    got = model.fit(X, Y, epochs=2, batch_size=16, shuffle=False, verbose=0).history
    np.testing.assert_allclose(got["loss"], expected["loss"], rtol=2e-6)


def test_evaluate_predict_and_progress_lines(capsys):
    model = small_model()
    model.compile("adam", "mse", metrics=["mae", "accuracy"])
    model.fit(X, Y, epochs=2, batch_size=16, verbose=1)
    out = capsys.readouterr().out
    assert "Epoch 1/2" in out and "Epoch 2/2" in out
    assert "4/4 ━━━━━━━━━━━━━━━━━━━━" in out and "/step - accuracy: 0.0000e+00 - loss: " in out
    model.fit(X, Y, epochs=1, batch_size=16, verbose=2, validation_data=(X[:5], Y[:5]))
    line, = capsys.readouterr().out.splitlines()  # no "Epoch 1/1" line, as in Keras
    assert line.startswith("4/4 - ") and "/step - accuracy: " in line and " - val_loss: " in line
    model.fit(X, Y, epochs=1, verbose=0)
    assert capsys.readouterr().out == ""
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert sorted(logs) == ["accuracy", "loss", "mae"]
    y_pred = model.predict(X, batch_size=7, verbose=0)
    assert y_pred.shape == (50, 1) and y_pred.dtype == np.float32
    np.testing.assert_allclose(logs["loss"], ((y_pred - Y) ** 2).mean(), rtol=1e-5)
    assert model.evaluate(X, Y, verbose=0) == pytest.approx([logs["loss"], logs["mae"], logs["accuracy"]])


def test_validation_split_takes_the_last_samples_like_keras():
    xx = np.arange(10, dtype="float32").reshape(10, 1)
    model = keras.Sequential([keras.Input(shape=(1,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile("sgd", "mse")
    history = model.fit(xx, xx, validation_split=0.25, epochs=1, verbose=0, batch_size=100, shuffle=False)
    assert history.history["loss"] == [pytest.approx(13.0)]  # TF: 13.0, val_loss 34.70467
    assert history.history["val_loss"] == [pytest.approx(34.70467, rel=1e-6)]


def test_early_stopping_restores_best_weights_like_keras(capsys):
    xx = np.arange(10, dtype="float32").reshape(10, 1)
    model = keras.Sequential([keras.Input(shape=(1,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(keras.optimizers.SGD(0.5), "mse")
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=1, restore_best_weights=True, verbose=1)
    history = model.fit(xx, xx, epochs=10, verbose=0, batch_size=100, callbacks=[stop])
    # TensorFlow: loss [28.5, 22687.129], epochs [0, 1], weights back to [[28.5]], [4.5].
    np.testing.assert_allclose(history.history["loss"], [28.5, 22687.129], rtol=1e-6)
    assert history.epoch == [0, 1] and stop.stopped_epoch == 1 and stop.best_epoch == 0
    np.testing.assert_allclose(model.get_weights()[0], [[28.5]], rtol=1e-6)
    out = capsys.readouterr().out
    assert "Epoch 2: early stopping" in out
    assert "Restoring model weights from the end of the best epoch: 1." in out


def test_learning_rate_scheduler_and_model_checkpoint(tmp_path):
    xx = np.arange(10, dtype="float32").reshape(10, 1)
    model = keras.Sequential([keras.Input(shape=(1,)), keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(keras.optimizers.SGD(0.5), "mse")
    schedule = keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5)
    path = str(tmp_path / "ckpt-{epoch:02d}.weights.npz")
    history = model.fit(xx, xx, epochs=2, verbose=0, batch_size=5, callbacks=[
        schedule, keras.callbacks.ModelCheckpoint(path, monitor="loss", save_best_only=True)])
    assert history.history["learning_rate"] == [0.25, 0.125]
    assert model.optimizer.learning_rate.numpy() == np.float64(0.125)
    assert (tmp_path / "ckpt-01.weights.npz").exists()


def test_weights_round_trip_through_npz(tmp_path):
    model = small_model()
    path = tmp_path / "model.weights.h5"
    model.save_weights(path)
    other = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(4, activation="tanh"),
                              keras.layers.Dense(1)])
    other.load_weights(path)
    for a, b in zip(other.get_weights(), INITIAL):
        np.testing.assert_array_equal(a, b)
    with np.load(path, allow_pickle=False) as archive:
        assert list(archive["names"]) == [w.name for w in model.weights]
    with pytest.raises(ValueError, match="holds 4 weights"):
        keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1)]).load_weights(path)


class SeedModel(keras.Model):
    """The seed notebook's model: Flatten, 100 Dense layers, Dropout, Dense."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flatten = keras.layers.Flatten(input_shape=(28, 28))
        self.my_layers = [keras.layers.Dense(64, activation="relu") for _ in range(100)]
        self.dropout = keras.layers.Dropout(0.2)
        self.dense_2 = keras.layers.Dense(10)

    def call(self, x):
        x = self.flatten(x)
        for layer in self.my_layers:
            x = layer(x)
        x = self.dropout(x)
        return self.dense_2(x)


def test_seed_subclassed_model_eager_and_graph_agree_and_trains():
    data = rt.random.uniform([20, 28, 28])
    model = SeedModel()
    eager = model(data)
    assert eager.shape == (20, 10) and len(model.layers) == 103
    assert len(model.trainable_variables) == 2 * 101
    assert [w.shape for w in model.weights[:2]] == [(784, 64), (64,)]
    model.call = rt.function(model.call)
    np.testing.assert_allclose(model(data).numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)
    model.compile(keras.optimizers.Adam(1e-3),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
    labels = np.arange(20) % 10
    history = model.fit(data, labels, epochs=2, batch_size=10, verbose=0)
    assert sorted(history.history) == ["accuracy", "loss"]


def test_physics_functional_model_with_raw_ops_on_inputs():
    inputs = keras.Input(shape=(5))
    qq, x_b, t, phi, k = rt.split(inputs, num_or_size_splits=5, axis=1)
    kinematics = keras.layers.concatenate([qq, x_b, t])
    x1 = keras.layers.Dense(100, activation="tanh",
                            kernel_initializer=keras.initializers.HeNormal())(kinematics)
    x2 = keras.layers.Dense(100, activation="tanh",
                            kernel_initializer=keras.initializers.HeNormal())(x1)
    outputs = keras.layers.Dense(4, activation="linear",
                                 kernel_initializer=keras.initializers.HeNormal())(x2)
    total = keras.layers.concatenate([inputs, outputs * 1.0 + phi])
    model = keras.Model(inputs=inputs, outputs=total)
    assert inputs.shape == (None, 5)
    assert [type(layer).__name__ for layer in model.layers] == \
        ["InputLayer", "Concatenate", "Dense", "Dense", "Dense", "Concatenate"]
    data = np.random.default_rng(1).normal(size=(32, 5)).astype("float32")
    got = model(data).numpy()
    w = model.get_weights()
    h = np.tanh(np.tanh(data[:, :3] @ w[0] + w[1]) @ w[2] + w[3]) @ w[4] + w[5]
    np.testing.assert_allclose(got, np.concatenate([data, h + data[:, 3:4]], 1), rtol=2e-5, atol=1e-5)
    lr = keras.optimizers.schedules.ExponentialDecay(0.0085, decay_steps=100, decay_rate=0.96)
    model.compile(optimizer=keras.optimizers.Adam(lr), loss=keras.losses.MeanSquaredError())
    target = np.zeros((32, 9), "float32")
    history = model.fit(data, target, epochs=5, batch_size=8, verbose=0, validation_data=(data, target),
                        callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss", patience=100)])
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_functional_model_with_two_inputs_and_summary(capsys):
    a, b = keras.Input(shape=(2,), name="a"), keras.Input(shape=(3,), name="b")
    merged = keras.layers.concatenate([keras.layers.Dense(4)(a), b])
    model = keras.Model([a, b], keras.layers.Dense(1)(merged))
    out = model([np.ones((6, 2), "float32"), np.ones((6, 3), "float32")])
    assert out.shape == (6, 1)
    model.compile("sgd", "mae")
    model.fit([np.ones((6, 2)), np.ones((6, 3))], np.zeros((6, 1)), epochs=1, verbose=0)
    model.summary()
    text = capsys.readouterr().out
    # Keras 3 counts the optimizer's variables (iterations, learning rate) once it is built.
    assert "dense" in text and "(None, 4)" in text and "Total params: 22" in text
    assert "Trainable params: 20 (80.00 B)" in text and "Optimizer params: 2" in text


def test_symbolic_inputs_refuse_values_and_bools():
    x = keras.Input(shape=(2,))
    with pytest.raises(TypeError, match="symbolic Keras tensor"):
        bool(x)
    keras.Model(x, keras.layers.Dense(1)(x))  # closes the input's recording


def test_fit_evaluate_predict_on_an_rt_data_dataset_match_arrays():
    x, y = X, X.sum(1, keepdims=True)
    results = []
    for data in (rt.data.Dataset.from_tensor_slices((x, y)).batch(16), None):
        model = keras.Sequential([keras.Input(shape=(3,)), keras.layers.Dense(1, kernel_initializer="zeros")])
        model.compile(keras.optimizers.SGD(0.1), "mse")
        if data is None:
            results.append(model.fit(x, y, epochs=3, batch_size=16, shuffle=False, verbose=0).history["loss"])
        else:
            results.append(model.fit(data, epochs=3, verbose=0).history["loss"])
            assert model.predict(data, verbose=0).shape == (50, 1)
    np.testing.assert_allclose(results[0], results[1], rtol=1e-7)


def test_shuffled_fits_repeat_after_the_same_seed():
    """``keras.utils.set_random_seed`` makes ``fit(shuffle=True)`` repeat, as in Keras (its
    shuffling draws from the seeded stream)."""
    rng = np.random.RandomState(0)
    x = rng.randn(96, 3).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5], np.float32))[:, None]

    def trained():
        rt.keras.utils.set_random_seed(3)
        model = rt.keras.Sequential([rt.keras.layers.Dense(4, activation="relu"),
                                     rt.keras.layers.Dense(1)])
        model.compile(optimizer=rt.keras.optimizers.SGD(0.05), loss="mse")
        history = model.fit(x, y, batch_size=8, epochs=2, shuffle=True, verbose=0)
        return history.history["loss"], [w.numpy() for w in model.weights]
    (first_losses, first), (again_losses, again) = trained(), trained()
    assert first_losses == again_losses
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
