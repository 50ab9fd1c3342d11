"""Counted integer reductions run as array code with exactly the loop's results."""

import numpy as np
import pytest

import runtime as rt
from runtime import executor
from transpiler import function


def sum_of_squares(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def two_sums_from_start(start, n, k):
    a = 0
    b = 7
    for i in range(start, n):
        a += i * k - 3
        b += -i
    return a, b


def float_sum(n):
    s = 0.0
    for i in range(n):
        s += 0.1
    return s


def printing_sum(n):
    s = 0
    for i in range(n):
        s += i
        rt.print(i)
    return s


def looped(fn, monkeypatch):
    """``fn`` traced with the vectorized form switched off."""
    monkeypatch.setattr(executor, "VECTORIZED_MAX_LENGTH", -1)
    return function(fn)


def plan(fn, *specs) -> str:
    return function(fn).get_concrete_function(*specs).plan_source


I32 = rt.TensorSpec([], rt.int32)


def test_the_reduction_is_vectorized_and_keeps_a_loop_for_long_ranges():
    source = plan(sum_of_squares, I32)
    assert "np_arange" in source and "while True" in source


@pytest.mark.parametrize("n", [-5, 0, 1, 2, 1000, 40_000, 65_536])
def test_same_results_as_the_loop_including_wraparound(n, monkeypatch):
    vectorized = function(sum_of_squares)(rt.constant(n)).numpy()
    assert vectorized == looped(sum_of_squares, monkeypatch)(rt.constant(n)).numpy()
    with np.errstate(over="ignore"):
        i = np.arange(max(n, 0), dtype=np.int32)
        assert vectorized == np.add.reduce(i * i, dtype=np.int32)


@pytest.mark.parametrize("start, n, k", [(0, 10, 3), (5, 3, 2), (-4, 20, -7), (0, 0, 1)])
def test_several_accumulators_and_invariants(start, n, k, monkeypatch):
    args = [rt.constant(v) for v in (start, n, k)]
    assert "np_arange" in plan(two_sums_from_start, I32, I32, I32)
    got = [int(v) for v in function(two_sums_from_start)(*args)]
    assert got == list(two_sums_from_start(start, n, k))
    assert got == [int(v) for v in looped(two_sums_from_start, monkeypatch)(*args)]


@pytest.mark.parametrize("fn", [float_sum, printing_sum])
def test_float_sums_and_loops_with_effects_stay_loops(fn):
    assert "np_arange" not in plan(fn, I32)


def counter_kept(n):
    s = 0
    i = 0
    while i < n:
        s += i
        i += 1
    return i, s


def test_the_counter_keeps_its_dtype_when_the_bound_is_wider():
    i, s = function(counter_kept)(rt.constant(np.int64(5)))
    assert "np_arange" in plan(counter_kept, rt.TensorSpec([], rt.int64))
    assert (int(i), int(s)) == (5, 10)
    assert i.dtype == function(counter_kept).get_concrete_function(
        rt.TensorSpec([], rt.int64)).graph.outputs[0].dtype
