"""Bad input to the public API gets a clear error naming the argument and the fix, or works."""

import functools

import numpy as np
import pytest

import runtime as rt
import transpiler


def sign_times(x, y):
    if x > 0:
        return x * y
    return -x * y


class Layer:
    def __call__(self, x):
        if x > 0:
            return x
        return -x


def test_a_numpy_function_is_refused_with_the_fix():
    with pytest.raises(TypeError, match=r"cannot wrap the NumPy function <ufunc .sin.>: it is not a "
                                         r"Python function.*rt\.sin"):
        transpiler.function(np.sin)


def test_a_partial_is_converted():
    fn = transpiler.function(functools.partial(sign_times, y=rt.constant(2.0)))
    assert fn(rt.constant(-3.0)).numpy() == 6.0


def test_a_callable_object_is_converted():
    fn = transpiler.function(Layer())
    assert fn(rt.constant(-3.0)).numpy() == 3.0


def test_an_rt_function_is_wrapped_as_it_is():
    inner = rt.function(lambda x: x + 1)
    assert transpiler.function(inner)(rt.constant(1.0)).numpy() == 2.0


def test_minus_one_in_a_tensor_spec_means_any_size():
    assert rt.TensorSpec([-1, 3]).shape == (None, 3)


@pytest.mark.parametrize("shape, bad", [([2.5], "2.5"), ([-2], "-2"), ([True], "True")])
def test_a_tensor_spec_size_that_is_not_a_size_is_refused(shape, bad):
    with pytest.raises(TypeError, match=rf"has the size {bad}; each size must be a non-negative "
                                        rf"int, or None \(or -1\)"):
        rt.TensorSpec(shape)


def test_a_tensor_spec_shape_that_is_a_string_is_refused():
    with pytest.raises(TypeError, match=r"shape must be a list or tuple of sizes .* got str 'ab'"):
        rt.TensorSpec("ab")


def test_an_input_signature_that_is_not_a_list_is_refused():
    with pytest.raises(TypeError, match=r"input_signature of sign_times must be a list or tuple "
                                        r".* got int 5"):
        transpiler.function(sign_times, input_signature=5)


@pytest.mark.parametrize("array", [np.array(["a", "b"]), np.array([1, None], dtype=object),
                                   [np.array(["a"])]])
def test_string_and_object_arrays_name_the_argument(array):
    fn = transpiler.function(lambda x: x)
    with pytest.raises(TypeError, match=r"argument 'x' holds an array of dtype (str32|object), "
                                        r"which cannot be a tensor"):
        fn(array)


def test_an_unexpected_keyword_is_named():
    def one(x):
        return x
    with pytest.raises(TypeError, match=r"one\(\): got an unexpected keyword argument 'z'\. Its "
                                        r"parameters are x\."):
        transpiler.function(one)(z=1)


def test_a_missing_argument_is_still_named():
    def two(x, y):
        return x + y
    with pytest.raises(TypeError, match=r"two\(\): missing a required argument: 'y'"):
        transpiler.function(two)(1)
