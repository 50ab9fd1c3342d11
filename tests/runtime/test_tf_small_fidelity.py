"""Small behaviours TensorFlow 2.21 shows and the runtime matches: empty lists as integer
tensors, a variable's dtype in TensorFlow's style, and eager TensorArray reads clearing."""

import numpy as np
import pytest

import runtime as rt
import transpiler.tf as tf  # also registers TensorFlow's DType objects (show_dtypes_as)
from runtime import display
from runtime.autodiff.tape import GradientTape
from runtime.errors import InvalidArgumentError


# -- empty lists --------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.bool])
def test_an_empty_list_becomes_an_empty_tensor_of_the_dtype_asked_for(dtype):
    # (An empty float64 list always did: basics.empty_lists_of_other_dtypes has one.)
    assert rt.constant([], dtype).numpy().dtype == dtype
    nested = rt.constant([[], []], dtype).numpy()
    assert (nested.dtype, nested.shape) == (dtype, (2, 0))
    assert rt.Variable([], dtype=dtype).numpy().dtype == dtype
    with pytest.raises(TypeError, match="Python floats do not become integers"):
        rt.constant([1.0, 2.5], dtype)  # a list of floats still does not


# -- a variable's dtype --------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [rt.float64, rt.int64])
def test_a_variable_dtype_shows_as_tensorflow_and_the_graph_still_sees_numpy(dtype):
    display.set_style(display.TENSORFLOW)  # the fixtures set it back
    v = rt.Variable(np.zeros(2, dtype))
    assert str(v.dtype) == f"<dtype: '{dtype.name}'>"
    assert v.dtype == dtype and hash(v.dtype) == hash(dtype) and np.dtype(v.dtype) == dtype
    seen = []

    @rt.function
    def double(x):
        value = v.read_value()
        seen.append(value.dtype)
        return value + x

    double(rt.constant(np.ones(2, dtype)))
    assert isinstance(seen[0], np.dtype)
    assert "dtype=" + dtype.name in repr(v)


def test_a_keras_weight_dtype_prints_as_keras_3_does():
    display.set_style(display.TENSORFLOW)
    layer = rt.keras.layers.Dense(2)
    layer.build((None, 3))
    assert str(layer.kernel.dtype) == "float32"
    assert str(rt.Variable(1.0).dtype) == "<dtype: 'float32'>"


# -- eager TensorArray reads -----------------------------------------------------------------


def _filled(dtype, array_class=tf.TensorArray, **options):
    array = array_class(dtype, size=3, element_shape=[2], **options)
    return array.unstack(np.arange(6).reshape(3, 2).astype(dtype))


@pytest.mark.parametrize("dtype", [rt.float64, rt.int64])
def test_an_eager_read_clears_the_element(dtype):
    array = _filled(dtype)
    np.testing.assert_array_equal(array.read(1).numpy(), [2, 3])
    with pytest.raises(InvalidArgumentError, match="element 1 was read before"):
        array.read(1)
    np.testing.assert_array_equal(array.stack().numpy(), [[0, 1], [0, 0], [4, 5]])
    np.testing.assert_array_equal(array.gather([1, 2]).numpy(), [[0, 0], [4, 5]])
    np.testing.assert_array_equal(array.concat().numpy(), [0, 1, 0, 0, 4, 5])
    np.testing.assert_array_equal(array.read(0).numpy(), [0, 1])  # stack does not clear
    rewritten = array.write(1, np.array([7, 8], dtype))
    assert isinstance(rewritten, tf.TensorArray)
    np.testing.assert_array_equal(rewritten.read(1).numpy(), [7, 8])
    np.testing.assert_array_equal(rewritten.stack().numpy(), [[0, 0], [0, 0], [4, 5]])


def test_reads_do_not_clear_with_clear_after_read_false_or_inside_a_function():
    # The runtime's own arrays clear only when asked to.
    cleared = _filled(rt.int64, rt.TensorArray, clear_after_read=True)
    cleared.read(2)
    with pytest.raises(InvalidArgumentError, match="element 2 was read before"):
        cleared.read(2)
    for kept in (_filled(rt.float64, clear_after_read=False), _filled(rt.float64, rt.TensorArray)):
        assert kept.read(1).numpy().tolist() == kept.read(1).numpy().tolist() == [2, 3]

    @rt.function
    def read_twice(values):
        array = tf.TensorArray(rt.int64, size=3).unstack(values)
        return array.read(1) + array.read(1), array.stack()

    twice, stacked = read_twice(rt.constant(np.array([1, 2, 3], np.int64)))
    assert twice.numpy() == 4 and stacked.numpy().tolist() == [1, 2, 3]


def test_a_cleared_element_gets_no_gradient_through_stack():
    x = rt.constant([1.0, 2.0, 3.0], rt.float64)
    with GradientTape() as tape:
        tape.watch(x)
        array = tf.TensorArray(rt.float64, size=3, element_shape=[]).unstack(x * x)
        first = array.read(0)
        weights = rt.constant([10.0, 100.0, 1000.0], rt.float64)
        loss = rt.reduce_sum(array.stack() * weights) + first
    assert tape.gradient(loss, x).numpy().tolist() == [2.0, 400.0, 6000.0]
