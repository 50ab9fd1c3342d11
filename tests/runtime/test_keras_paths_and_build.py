"""Keras 3's bookkeeping that programs print or rely on: a weight's path, default weight
names, a subclassed model's build (which makes no weights), the float32 learning rate of
Keras' optimizers, and the numbers of the one-line progress style."""

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import display
from runtime.keras.progress import format_value

keras = rt.keras


class ScaledLayer(keras.layers.Layer):
    """Weights made in __init__ (no layer scope yet), in build, and by a sub-layer."""

    def __init__(self):
        super().__init__()
        self.gain = self.add_weight(shape=(2,), initializer="ones")
        self.inner = keras.layers.Dense(1, kernel_initializer="ones")

    def build(self, input_shape):
        self.offset = self.add_weight(shape=(1,), initializer="zeros")

    def call(self, x):
        return self.inner(x * self.gain) + self.offset


def test_weight_paths_name_the_layers_they_were_made_in():
    keras.backend.clear_session()
    inner = ScaledLayer()
    outer = keras.Sequential([keras.Input((2,), dtype="float64"), keras.layers.Dense(2)])
    inner(np.ones((1, 2)))
    assert [(w.name, w.path) for w in inner.weights] == [
        ("variable", "scaled_layer/variable"), ("variable_1", "scaled_layer/variable_1"),
        ("kernel", "scaled_layer/dense/kernel"), ("bias", "scaled_layer/dense/bias")]
    assert [w.path for w in outer.weights] == ["sequential/dense_1/kernel",
                                               "sequential/dense_1/bias"]
    mean = keras.metrics.Mean()
    assert [v.path for v in mean.variables] == ["mean/total", "mean/count"]


def test_a_weight_prints_as_keras_shows_it_only_in_tensorflows_style():
    keras.backend.clear_session()
    layer = keras.layers.Dense(2, kernel_initializer="ones", dtype="float64")
    layer.build((None, 1))
    assert repr(layer.kernel).startswith("<rt.Variable 'kernel'")
    assert repr(layer) == "<rt.keras Dense 'dense'>"
    display.set_style(display.TENSORFLOW)
    assert repr(layer.kernel) == "<Variable path=dense/kernel, shape=(1, 2), dtype=float64, " \
                                 "value=[[1. 1.]]>"
    assert repr(layer) == "<Dense name=dense, built=True>"
    counter = keras.metrics.Sum(dtype="int64")
    assert repr(counter.variables[0]) == "<Variable path=sum/total, shape=(), dtype=int64, " \
                                         "value=0>"


def test_building_a_subclassed_model_makes_no_weights_until_it_is_called():
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    net = Net()
    with pytest.warns(UserWarning, match=r"makes no weights: its layers dense"):
        net.build((None, 4))
    assert net.built and net.weights == [] and net.count_params() == 0
    assert net(np.ones((2, 4), "float32")).shape == (2, 3)
    assert [tuple(w.shape) for w in net.weights] == [(4, 3), (3,)]


def test_a_subclassed_model_called_on_keras_inputs_builds_without_a_word():
    class Inner(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2, dtype="float64")

        def call(self, x):
            return self.dense(x)

    inputs = keras.Input((3,), dtype="float64")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = keras.Model(inputs, Inner()(inputs))
    assert model(np.ones((1, 3))).dtype == np.float64 and len(model.weights) == 2


@pytest.mark.parametrize("model_dtype", ["float32", "float64"])
def test_keras_optimizers_hold_a_numeric_learning_rate_in_float32(model_dtype):
    optimizer = keras.optimizers.Adam(0.01)
    assert optimizer.learning_rate.dtype == np.float32
    assert float(optimizer.learning_rate) == float(np.float32(0.01))
    variable = rt.Variable(np.ones(2, model_dtype))
    optimizer.apply_gradients([(rt.constant(np.ones(2, model_dtype)), variable)])
    assert variable.dtype == model_dtype
    assert rt.optimizers.Adam(0.01).learning_rate.dtype == np.float64  # the runtime's own


def test_the_one_line_progress_style_writes_negative_numbers_in_e_notation():
    assert format_value(-0.2084) == "-0.2084"
    assert format_value(-0.2084, by_size=False) == "-2.0840e-01"
    assert format_value(0.5, by_size=False) == "0.5000"
    assert format_value(0.0005) == format_value(0.0005, by_size=False) == "5.0000e-04"


def test_keras_optimizer_variables_have_keras_names_and_paths():
    keras.backend.clear_session()
    layer = keras.layers.Dense(1, dtype="float64")
    layer.build((None, 2))
    w = rt.Variable(np.ones(2, np.int64).astype(np.float64), name="w")
    optimizer = keras.optimizers.SGD(0.1, momentum=0.9, use_ema=True)
    optimizer.apply_gradients([(rt.ones_like(v), v) for v in [w, *layer.trainable_variables]])
    names = [v.name for v in optimizer.variables]
    assert names[:2] == ["iteration", "learning_rate"]
    assert sorted(names[2:]) == ["dense_bias_average", "dense_bias_momentum",
                                 "dense_kernel_average", "dense_kernel_momentum", "w_average",
                                 "w_momentum"]  # Keras orders these kind by kind
    assert {v.path for v in optimizer.variables} == {f"sgd/{name}" for name in names}
    assert optimizer.iterations.dtype == np.int64 and int(optimizer.iterations) == 1
    assert [v.name for v in rt.optimizers.Adam(0.1).variables] == ["iterations", "learning_rate"]
