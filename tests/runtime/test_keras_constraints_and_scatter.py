"""Variable constraints (TensorFlow's ``constraint=`` argument, applied by every optimizer),
``Variable.scatter_update`` and friends, and what ``load_model(compile=False)`` gives back.
Values are TensorFlow 2.21's."""

import numpy as np
import pytest

import transpiler.tf as tf


def _rows(values, indices):
    return tf.IndexedSlices(tf.constant(values), tf.constant(indices), (3, 2))


def test_scatter_update_add_and_sub_take_rows():
    v = tf.Variable([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    v.scatter_update(_rows([[5.0, 5.0], [7.0, 7.0]], [2, 0]))
    np.testing.assert_array_equal(v.numpy(), [[7, 7], [1, 1], [5, 5]])
    v.scatter_add(_rows([[1.0, 1.0], [7.0, 7.0]], [1, 1]))  # a repeated row adds up
    np.testing.assert_array_equal(v.numpy(), [[7, 7], [9, 9], [5, 5]])

    @tf.function
    def step():
        v.scatter_sub(_rows([[1.0, 1.0]], [0]))

    step()
    np.testing.assert_array_equal(v.numpy(), [[6, 6], [9, 9], [5, 5]])
    with pytest.raises(TypeError, match="takes an IndexedSlices"):
        v.scatter_update([[1.0, 1.0]])


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Adagrad", "Lion", "Ftrl"])
def test_every_optimizer_applies_the_constraint(name):
    v = tf.Variable([1.0, -2.0], constraint=lambda z: tf.clip_by_value(z, 0.0, 0.5))
    getattr(tf.keras.optimizers, name)(0.1).apply_gradients([(tf.constant([1.0, 1.0]), v)])
    assert v.numpy().min() >= 0.0 and v.numpy().max() <= 0.5


def test_a_constraint_must_be_callable():
    with pytest.raises(ValueError, match="must be a callable"):
        tf.Variable(1.0, constraint="non_neg")


def test_load_model_without_compile_and_a_subclassed_checkpoint(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.Adam(0.01), tf.keras.losses.Huber(delta=0.5),
                  metrics=[tf.keras.metrics.AUC(curve="PR")])
    model.save(tmp_path / "m.keras")
    assert tf.keras.models.load_model(tmp_path / "m.keras", compile=False).optimizer is None
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert loaded._compile_args["metrics"][0].curve == "PR"
    assert loaded.loss.fn_kwargs["delta"] == 0.5

    class Sub(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1)

        def call(self, x):
            return self.dense(x)

    sub = Sub()
    sub.compile("sgd", "mse")
    with pytest.warns(UserWarning, match="subclassed model"):
        sub.fit(np.ones((2, 3), "float32"), np.ones((2, 1), "float32"), verbose=0,
                callbacks=[tf.keras.callbacks.ModelCheckpoint(str(tmp_path / "s.keras"))])
    sub.load_weights(tmp_path / "s.keras")
