"""``rt.is_tensor``, ``rt.executing_eagerly``, ``rt.TensorShape`` and ``rt.debugging``."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def test_is_tensor_and_executing_eagerly():
    assert rt.is_tensor(rt.constant(1.0)) and not rt.is_tensor(np.ones(2))
    assert not rt.is_tensor(1.0) and rt.is_tensor(rt.Variable(1.0))  # as tf.is_tensor
    seen = []

    @rt.function
    def f(x):
        seen.append((rt.executing_eagerly(), rt.is_tensor(x)))
        return x

    assert rt.executing_eagerly()
    f(rt.constant(1.0))
    assert seen == [(False, True)]
    rt.config.run_functions_eagerly(True)
    try:
        f(rt.constant(2.0))
    finally:
        rt.config.run_functions_eagerly(False)
    assert seen[-1] == (True, True)


def test_tensor_shape():
    shape = rt.TensorShape([2, None, 3])
    assert shape.rank == shape.ndims == 3 and shape.as_list() == [2, None, 3]
    assert shape == (2, None, 3) and shape[0] == 2 and shape[1:] == rt.TensorShape([None, 3])
    assert len(shape) == 3 and list(shape) == [2, None, 3]
    assert not shape.is_fully_defined() and shape.num_elements() is None
    assert shape.is_compatible_with([2, 5, 3]) and not shape.is_compatible_with([2, 5])
    assert not shape.is_compatible_with([1, 5, 3])
    assert shape.merge_with([None, 4, 3]) == [2, 4, 3]
    assert rt.TensorShape([2, 3]).num_elements() == 6
    assert rt.TensorShape([2]).concatenate([3]) == [2, 3]
    unknown = rt.TensorShape(None)
    assert unknown.rank is None and unknown.is_compatible_with([1, 2])
    with pytest.raises(ValueError, match="unknown TensorShape"):
        unknown.as_list()
    with pytest.raises(ValueError, match="not compatible"):
        shape.merge_with([3, None, 3])
    assert str(shape) == "(2, None, 3)" and repr(shape) == "TensorShape([2, None, 3])"
    x = rt.constant(np.ones((2, 3)))
    assert rt.TensorShape(x.shape) == x.shape == (2, 3)  # .shape stays a tuple
    spec = rt.function(lambda t: t).get_concrete_function(rt.TensorSpec([None, 3]))
    assert rt.TensorShape(spec.graph.outputs[0].shape).as_list() == [None, 3]


def test_debugging_assertions_eagerly_and_traced():
    rt.debugging.assert_equal(rt.constant([1, 2]), [1, 2])
    rt.debugging.assert_less([1.0, 2.0], 3.0)
    with pytest.raises(InvalidArgumentError, match="assert_equal failed"):
        rt.debugging.assert_equal([1, 2], [1, 3])
    with pytest.raises(InvalidArgumentError, match="custom: assert_less failed"):
        rt.debugging.assert_less([1, 5], [2, 5], message="custom")

    @rt.function
    def checked(x, y):
        rt.debugging.assert_less(x, y)
        return x + y

    assert checked(rt.constant(1.0), rt.constant(2.0)).numpy() == 3.0
    with pytest.raises(InvalidArgumentError, match="assert_less failed"):
        checked(rt.constant(3.0), rt.constant(2.0))


def test_check_numerics():
    x = rt.constant([1.0, 2.0])
    assert rt.debugging.check_numerics(x, "ok").numpy().tolist() == [1.0, 2.0]
    with pytest.raises(InvalidArgumentError, match="bad: check_numerics found NaN or Inf"):
        rt.debugging.check_numerics([1.0, np.nan], "bad")
    traced = rt.function(lambda t: rt.debugging.check_numerics(t * 2.0, "doubled"))
    assert traced(x).numpy().tolist() == [2.0, 4.0]
    with pytest.raises(InvalidArgumentError, match="doubled"):
        traced(rt.constant([np.inf, 1.0]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.debugging.check_numerics(x * 3.0, "m")
    assert tape.gradient(y, x).numpy().tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="floating-point"):
        rt.debugging.check_numerics([1, 2], "ints")


def test_get_static_value():
    assert rt.get_static_value(3) == 3 and rt.get_static_value([1, 2]) == [1, 2]
    np.testing.assert_array_equal(rt.get_static_value(rt.constant([1.0, 2.0])), [1.0, 2.0])
    assert rt.get_static_value(rt.Variable(1.0)) is None
    seen = {}

    @rt.function
    def f(x):
        seen["input"], seen["shape"] = rt.get_static_value(x), rt.get_static_value(rt.shape(x))
        return x

    f(rt.constant([1.0]))
    assert seen["input"] is None
    np.testing.assert_array_equal(seen["shape"], [1])
