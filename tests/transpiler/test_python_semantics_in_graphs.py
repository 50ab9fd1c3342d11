"""Graphs keep Python's meaning, or refuse: loop counters act as Python ints, in-place
changes of Python objects under tensor control flow are rejected, asserts raise AssertionError."""

import numpy as np
import pytest

import runtime as rt
from transpiler import function


def weighted_by_position(x):
    s = 0.0
    for i, v in enumerate(x):
        s += v * i
    return s


def positions_times_values(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * i
    return s


def collect_in_loop(n):
    out = []
    for i in range(n):
        out.append(i)
    return len(out)


def collect_in_branch(x):
    seen = []
    if x > 0:
        seen.append(x)
    return len(seen)


def temporary_list_per_iteration(n):
    total = 0
    for i in range(n):
        parts = []
        parts.append(i)
        parts.append(i * 2)
        total += parts[0] + parts[1]
    return total


def positive(x):
    assert x > 0, "x must be positive"
    return x


@pytest.mark.parametrize("fn", [weighted_by_position, positions_times_values])
def test_loop_counters_take_the_dtype_python_ints_would(fn):
    x = np.array([1.5, 2.0, -3.0], np.float32)
    got = function(fn)(rt.constant(x))
    assert got.dtype == rt.float32
    np.testing.assert_allclose(got.numpy(), fn(x), rtol=1e-6)


@pytest.mark.parametrize("fn, args", [(collect_in_loop, (0, 3)), (collect_in_branch, (-1, 1))])
def test_a_local_list_appended_under_tensor_control_flow_is_staged(fn, args):
    for arg in args:
        assert int(function(fn)(rt.constant(arg))) == fn(arg)
        assert function(fn)(arg) == fn(arg)  # Python values: plain Python


def test_a_list_made_inside_the_loop_body_is_fine():
    assert int(function(temporary_list_per_iteration)(rt.constant(4))) == \
        temporary_list_per_iteration(4)


def test_a_failed_assert_in_a_graph_is_an_assertion_error():
    fn = function(positive)
    assert float(fn(rt.constant(2.0))) == 2.0
    with pytest.raises(AssertionError, match="x must be positive"):
        fn(rt.constant(-1.0))
    with pytest.raises(rt.errors.InvalidArgumentError):
        fn(rt.constant(-1.0))
