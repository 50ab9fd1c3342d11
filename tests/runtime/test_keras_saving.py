"""model.save / keras.models.load_model: structure as JSON and weights as .npz in one zip
archive (nothing pickled); models that are Python code are refused with a way out."""

import json
import zipfile

import numpy as np
import pytest

import transpiler.tf as tf

RNG = np.random.default_rng(3)


class Scaled(tf.keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, x):
        return x * self.factor

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


def test_sequential_round_trip_gives_the_same_predictions(tmp_path):
    x = RNG.normal(size=(4, 6, 6, 2)).astype("float32")
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 6, 2)), tf.keras.layers.Conv2D(3, 3, activation="relu"),
        tf.keras.layers.BatchNormalization(), tf.keras.layers.MaxPooling2D(),
        tf.keras.layers.Flatten(), tf.keras.layers.Dropout(0.1),
        tf.keras.layers.Dense(2, activation="softmax")])
    model.compile("adam", "mse")
    model.fit(x, np.ones((4, 2), "float32"), epochs=1, verbose=0)  # moving statistics move
    path = tmp_path / "model.keras"
    model.save(path)
    loaded = tf.keras.models.load_model(path)
    assert [type(layer).__name__ for layer in loaded.layers] == \
        [type(layer).__name__ for layer in model.layers]
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    with zipfile.ZipFile(path) as archive:
        # optimizer.npz: the compiled model's optimizer variables (load_model restores them)
        assert sorted(archive.namelist()) == ["config.json", "model.weights.npz",
                                              "optimizer.npz"]
        assert json.loads(archive.read("config.json"))["class_name"] == "Sequential"


def test_functional_two_inputs_and_a_custom_layer_round_trip(tmp_path):
    a, b = tf.keras.Input(shape=(3,)), tf.keras.Input(shape=(2,))
    h = Scaled(3.0)(tf.keras.layers.Dense(4, activation="tanh")(a))
    out = tf.keras.layers.Dense(1)(tf.keras.layers.concatenate([h, b]))
    model = tf.keras.Model([a, b], out, name="two")
    model.save(tmp_path / "two.keras")
    with pytest.raises(ValueError, match="custom_objects"):
        tf.keras.models.load_model(tmp_path / "two.keras")
    loaded = tf.keras.models.load_model(tmp_path / "two.keras", custom_objects={"Scaled": Scaled})
    xs = [RNG.normal(size=(5, 3)).astype("float32"), RNG.normal(size=(5, 2)).astype("float32")]
    np.testing.assert_array_equal(loaded.predict(xs, verbose=0), model.predict(xs, verbose=0))
    scaled = [layer for layer in loaded.layers if isinstance(layer, Scaled)]
    assert loaded.name == "two" and scaled[0].factor == 3.0


def test_models_that_are_code_are_refused_with_a_way_out(tmp_path):
    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    sub = Sub()
    sub(np.ones((1, 2), "float32"))
    with pytest.raises(NotImplementedError, match="subclassed model .*save_weights"):
        sub.save(tmp_path / "sub.keras")
    inputs = tf.keras.Input(shape=(4,))
    first, _ = tf.split(inputs, 2, axis=1)
    raw = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(first))
    with pytest.raises(NotImplementedError, match="raw op"):
        raw.save(tmp_path / "raw.keras")
    lam = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Lambda(lambda t: t)])
    with pytest.raises(NotImplementedError, match="Lambda"):
        lam.save(tmp_path / "lambda.keras")


def _saved_compiled_model(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
    model.compile("adam", "mse", metrics=["mae"])
    path = tmp_path / "model.keras"
    model.save(path)
    return path


def _rewritten(path, target, change):
    """A copy of the saved model at ``target`` with ``change(name, data) -> data`` applied."""
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(target, "w") as copy:
        for name in source.namelist():
            copy.writestr(name, change(name, source.read(name)))
    return target


def test_compile_names_in_a_file_must_be_rt_keras_optimizers_losses_and_metrics(tmp_path):
    path = _saved_compiled_model(tmp_path)

    def with_compile(**changes):
        def change(name, data):
            if name != "config.json":
                return data
            config = json.loads(data)
            for key, value in changes.items():
                config["compile_config"][key] = value
            return json.dumps(config)
        return change

    config = json.loads(zipfile.ZipFile(path).read("config.json"))
    assert "compile_config" in config
    optimizer = dict(config["compile_config"]["optimizer"], class_name="np")
    hostile = _rewritten(path, tmp_path / "optimizer.keras", with_compile(optimizer=optimizer))
    with pytest.raises(ValueError, match="'np' is not an optimizer of rt.keras"):
        tf.keras.models.load_model(hostile)
    loss = {"module": "losses", "class_name": "np", "config": {}}
    hostile = _rewritten(path, tmp_path / "loss.keras", with_compile(loss=loss))
    with pytest.raises(ValueError, match="'np', which is not a loss or metric"):
        tf.keras.models.load_model(hostile)
    loaded = tf.keras.models.load_model(hostile, compile=False)  # the way out it names
    assert loaded.predict(np.ones((1, 2), "float32"), verbose=0).shape == (1, 1)


def test_a_member_that_would_inflate_too_far_is_not_read(tmp_path, monkeypatch):
    from runtime.keras import saving
    path = _saved_compiled_model(tmp_path)
    monkeypatch.setattr(saving, "_MAX_CONFIG_BYTES", 100)
    with pytest.raises(ValueError, match="config.json would inflate to more than 100 bytes"):
        tf.keras.models.load_model(path)
    monkeypatch.setattr(saving, "_MAX_CONFIG_BYTES", 2**20)
    monkeypatch.setattr(saving, "_MAX_ARRAY_BYTES", 100)
    with pytest.raises(ValueError, match="would inflate to more than 100 bytes"):
        tf.keras.models.load_model(path)
