"""Assignment expressions (``:=``) bind in the function, wherever the converter moves the
expression: into a loop's test, or into the lazy operands of ``and``/``or``/ternaries."""

import numpy as np
import pytest

import runtime as rt
import transpiler


def halvings(n):
    count = 0
    while (n := n // 2) > 0:
        count += 1
    return count, n


def halvings_with_break(n):
    count = 0
    while (n := n // 2) > 0:
        count += 1
        if count > 2:
            break
    return count, n


def halvings_with_continue(n):
    odd = 0
    while (n := n // 2) > 0:
        if n % 2 == 0:
            continue
        odd += 1
    return odd, n


def bound_in_and(a, x):
    if a and (b := x * 2) > 3:
        return b
    return -1


def bound_in_ternary(x):
    y = (z := x + 1) if x > 0 else 0
    return y + (z if x > 0 else 0)


def bound_in_chained_comparison(x):
    if 0 < (y := x * 3) < 100:
        return y
    return 0


PYTHON_CASES = [
    (halvings, [(37,), (1,), (0,), (1000,)]),
    (halvings_with_break, [(100,), (5,)]),
    (halvings_with_continue, [(1000,), (3,)]),
    (bound_in_and, [(True, 3), (False, 3), (True, 1)]),
    (bound_in_ternary, [(2,), (-2,)]),
    (bound_in_chained_comparison, [(5,), (50,)]),
]


@pytest.mark.parametrize("fn, arguments", PYTHON_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_converted_code_binds_like_python(fn, arguments):
    converted = transpiler.convert(fn)
    for args in arguments:
        assert converted(*args) == fn(*args)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("fn", [halvings, halvings_with_continue])
def test_a_tensor_loop_whose_test_binds_is_staged(fn, dtype):
    graph = transpiler.function(fn)
    for n in (37, 1, 1000, 0):
        count, last = graph(rt.constant(n, dtype))
        assert (int(count), int(last)) == fn(n)
        assert last.dtype == dtype


def test_a_float_tensor_loop_whose_test_binds():
    def shrink(x):
        steps = 0
        while (x := x / 3.0) > 1.0:
            steps += 1
        return steps, x
    graph = transpiler.function(shrink)
    for x in (100.0, 0.5, 81.0):
        steps, last = graph(rt.constant(x, rt.float64))
        expected_steps, expected_last = shrink(np.float64(x))
        assert int(steps) == expected_steps and float(last) == expected_last
