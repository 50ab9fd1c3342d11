"""Returns inside tensor control flow: values, fall-off-the-end errors and their locations."""

import inspect

import numpy as np
import pytest

import runtime as rt
from transpiler import function


def returns_on_one_path(x):
    if x > 0:  # the deciding if
        return x


def loops_forever_until_return(n):
    i = 0
    while True:
        i += 1
        if i > n:
            return i


def returns_pair_from_loop(n):
    for i in range(n):
        if i * i > n:
            return i, i * 2
    return -1, -2


def returns_in_nested_loops(n):
    total = 0
    for i in range(n):
        for j in range(i):
            total += j
            if total > 10:
                return total * 100
    return total


def _line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if marker in text)


def test_value_on_some_paths_and_none_on_others_is_an_error_naming_the_if():
    with pytest.raises(ValueError, match="returns None on some paths") as error:
        function(returns_on_one_path)(rt.constant(1))
    assert f"test_returns.py:{_line_of(returns_on_one_path, 'the deciding if')}" in str(error.value)


def test_python_values_keep_python_semantics():
    assert function(returns_on_one_path)(-1) is None
    assert function(returns_on_one_path)(2) == 2


def test_while_true_with_return_is_not_a_fall_through():
    fn = function(loops_forever_until_return)
    for n in range(6):
        assert fn(rt.constant(n)).numpy() == loops_forever_until_return(n)


# Each parametrized case makes a new function of the same Python function: the runtime's
# RetracingWarning about that is expected here.
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
@pytest.mark.parametrize("n", [0, 1, 3, 10, 20])
def test_structured_return_from_a_tensor_loop(n):
    got = function(returns_pair_from_loop)(rt.constant(n))
    assert tuple(int(v) for v in got) == returns_pair_from_loop(n)


@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")  # as above
@pytest.mark.parametrize("n", [0, 2, 4, 5, 9])
def test_return_from_nested_tensor_loops(n):
    assert int(function(returns_in_nested_loops)(rt.constant(n))) == returns_in_nested_loops(n)


def test_return_value_dtype_follows_the_loop():
    def first_negative(x):
        for v in x:
            if v < 0:
                return v
        return 0.0

    data = np.array([1.5, 2.0, -3.25, -1.0], np.float32)
    got = function(first_negative)(rt.constant(data))
    assert got.dtype == rt.float32 and got.numpy() == np.float32(-3.25)
    assert function(first_negative)(rt.constant(data[:2])).numpy() == 0.0
