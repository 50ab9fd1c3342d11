"""A Python loop that unrolls into a very large graph warns once, at the user's loop line."""

import inspect
import warnings

import pytest

import runtime as rt
import transpiler
from transpiler import UnrollWarning


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def long_python_loop(x):
    for _ in range(1200):
        x = x * 0.5 + 1.0
    return x


def heavy_python_loop(x):
    for _ in range(500):
        x = rt.nn.softmax(x * 0.5 + 1.0) * 2.0 - rt.exp(x) / 3.0 + rt.sin(x) * rt.cos(x)
    return x


def python_while_loop(x):
    i = 0
    while i < 1100:
        x = x + 1.0
        i += 1
    return x


def retraced_python_loop(x):
    for _ in range(1000):
        x = x + 1.0
    return x


def short_python_loop(x):
    for _ in range(100):
        x = x * 0.5 + 1.0
    return x


def tensor_bound_loop(x, n):
    for _ in rt.range(n):
        x = x * 0.5 + 1.0
    return x


def test_a_loop_of_many_iterations_warns_with_the_count_and_the_fix():
    f = transpiler.function(long_python_loop)
    with pytest.warns(UnrollWarning) as caught:
        f(rt.constant(1.0))
    [warning] = [w for w in caught if w.category is UnrollWarning]
    assert str(warning.message) == (
        "This for loop ran 1,200 times in Python while tracing and added 4,800 nodes to the "
        "graph: its bound is a Python value, so the loop was unrolled, which is slow to trace "
        "and to optimize. Make the bound a tensor to get one graph loop instead, e.g. "
        "`for i in rt.range(n)` or `for i in range(rt.constant(n))`, or loop over a tensor "
        "instead of a Python list.")
    assert warning.filename == __file__
    assert warning.lineno == _line_of(long_python_loop, "for _ in range(1200)")


def test_a_loop_that_adds_many_nodes_warns_with_fewer_iterations():
    f = transpiler.function(heavy_python_loop)
    with pytest.warns(UnrollWarning, match=r"ran 500 times .* added \d{1,2},\d{3} nodes"):
        f(rt.constant([1.0, 2.0]))


def test_an_unrolled_while_loop_says_to_make_its_condition_a_tensor():
    f = transpiler.function(python_while_loop)
    with pytest.warns(UnrollWarning, match=r"This while loop ran 1,100 times .* Make the loop's "
                                           r"condition a tensor"):
        f(rt.constant(0.0))


def test_the_warning_comes_once_although_the_function_traces_again():
    f = transpiler.function(retraced_python_loop)
    with pytest.warns(UnrollWarning):
        f(rt.constant(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnrollWarning)
        f(rt.constant([1.0, 2.0]))


def test_short_loops_eager_runs_and_tensor_bounds_stay_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnrollWarning)
        transpiler.function(short_python_loop)(rt.constant(1.0))
        transpiler.convert(long_python_loop)(1.0)  # plain Python values: nothing is traced
        result = transpiler.function(tensor_bound_loop)(rt.constant(1.0), rt.constant(1200))
    assert float(result) == pytest.approx(2.0)
