"""Counted integer reductions run as array code with exactly the loop's results (the pass
runtime.passes.counted_loops; its graph form is tested in test_passes_counted_loops)."""

import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import runtime as rt
from runtime.passes import counted_loops
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
    monkeypatch.setattr(counted_loops, "VECTORIZED_MAX_LENGTH", -1)
    return function(fn)


def has_array_form(fn, *specs) -> bool:
    """Whether the graph of ``fn`` has the array form (a loop guarded by counted_range_fits)."""
    graph = function(fn).get_concrete_function(*specs).graph
    return any(node.op is counted_loops.RANGE_FITS for node in graph.walk())


I32 = rt.TensorSpec([], rt.int32)


def test_the_reduction_is_vectorized_and_keeps_a_loop_for_long_ranges():
    assert has_array_form(sum_of_squares, I32)
    assert "while True" in function(sum_of_squares).get_concrete_function(I32).plan_source


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
    assert has_array_form(two_sums_from_start, I32, I32, I32)
    got = [int(v) for v in function(two_sums_from_start)(*args)]
    assert got == list(two_sums_from_start(start, n, k))
    assert got == [int(v) for v in looped(two_sums_from_start, monkeypatch)(*args)]


@pytest.mark.parametrize("fn", [float_sum, printing_sum])
def test_float_sums_and_loops_with_effects_stay_loops(fn):
    assert not has_array_form(fn, I32)


def counter_kept(n):
    s = 0
    i = 0
    while i < n:
        s += i
        i += 1
    return i, s


def test_the_counter_keeps_its_dtype_when_the_bound_is_wider():
    i, s = function(counter_kept)(rt.constant(np.int64(5)))
    assert has_array_form(counter_kept, rt.TensorSpec([], rt.int64))
    assert (int(i), int(s)) == (5, 10)
    assert i.dtype == function(counter_kept).get_concrete_function(
        rt.TensorSpec([], rt.int64)).graph.outputs[0].dtype


# -- only where the array code is provably the loop's result ------------------------------


def counter_from(start, n):
    s = 0
    i = start
    while i < n:
        s += i
        i += 1
    return i, s


def test_an_int32_counter_below_a_reachable_int64_bound_is_vectorized(monkeypatch):
    start, n = rt.constant(np.int32(2**31 - 100)), rt.constant(np.int64(2**31 - 1))
    assert has_array_form(counter_from, I32, rt.TensorSpec([], rt.int64))
    i, s = function(counter_from)(start, n)
    assert (i.dtype, int(i)) == (rt.int32, 2**31 - 1)
    looped_i, looped_s = looped(counter_from, monkeypatch)(start, n)
    assert int(s) == int(looped_s) and int(looped_i) == int(i)


def test_an_int32_counter_below_an_int64_bound_it_cannot_reach_keeps_the_loop():
    # The int32 counter wraps around at 2**31, so the loop never ends; the array code would
    # return an answer the loop never gives (at once). The child says when the function is
    # traced and optimized; from then on it must still be running seconds later (it used to
    # get a flat 10 s, most of them spent before the call on a loaded machine).
    script = textwrap.dedent("""
        import numpy as np
        import runtime as rt
        from tests.runtime.test_counted_loops import counter_from
        from transpiler import function
        start, n = rt.constant(np.int32(2**31 - 10)), rt.constant(np.int64(2**31 + 10))
        converted = function(counter_from)
        converted.get_concrete_function(start, n)
        print("traced", flush=True)
        print(converted(start, n), flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             cwd=pathlib.Path(__file__).parents[2])
    try:
        first = child.stdout.readline()
        assert first == "traced\n", (first, child.stderr.read() if child.poll() else "")
        with pytest.raises(subprocess.TimeoutExpired):
            child.wait(timeout=3)
    finally:
        child.kill()
        child.communicate()


def scaled_sum(n, k):
    s = k - k
    for i in range(n):
        s += i * k
    return s


def wrapped(value: int, dtype) -> int:
    """``value`` wrapped around to ``dtype``, as fixed-width integer arithmetic does."""
    bits = np.iinfo(dtype).bits
    return (value + 2**(bits - 1)) % 2**bits - 2**(bits - 1)


@pytest.mark.parametrize("counter, total", [(rt.int32, rt.int32), (rt.int32, rt.int64),
                                            (rt.int64, rt.int64)])
def test_accumulators_wrap_around_exactly_as_the_loop(counter, total, monkeypatch):
    n = rt.constant(np.array(40_000, counter))
    k = rt.constant(np.array(2**62 + 12345 if total == rt.int64 else 2**30 + 7, total))
    assert has_array_form(scaled_sum, rt.TensorSpec([], counter), rt.TensorSpec([], total))
    vectorized = function(scaled_sum)(n, k)
    expected = looped(scaled_sum, monkeypatch)(n, k)
    assert vectorized.dtype == expected.dtype == total
    exact = sum(i * int(k) for i in range(40_000))
    assert int(vectorized) == int(expected) == wrapped(exact, total)


def test_a_wide_counter_next_to_a_narrower_tensor_keeps_the_checked_loop():
    # The int64 counter stands for a Python int: next to an int32 tensor it must fit int32,
    # checked on every iteration, which the array code does not do.
    specs = rt.TensorSpec([], rt.int64), I32
    assert not has_array_form(scaled_sum, *specs)
    result = function(scaled_sum)(rt.constant(np.int64(1000)), rt.constant(3))
    assert (result.dtype, int(result)) == (rt.int32, 3 * 999 * 1000 // 2)


def small_counter_sum(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


@pytest.mark.parametrize("dtype", [rt.uint8, rt.int8, rt.int32, rt.int64])
def test_narrow_counters_add_up_as_python_ints(dtype, monkeypatch):
    n = rt.constant(np.array(120, dtype))
    result = function(small_counter_sum)(n)
    assert int(result) == small_counter_sum(120)
    assert int(looped(small_counter_sum, monkeypatch)(n)) == int(result)


def float_terms(n, x):
    s = 0
    for i in range(n):
        s += int(i * x)
    return s


def float_accumulator(n, x):
    s = x - x
    for i in range(n):
        s += i * x
    return s


@pytest.mark.parametrize("dtype", [rt.float32, rt.float64])
def test_float_terms_and_float_accumulators_keep_the_loop(dtype):
    spec = rt.TensorSpec([], dtype)
    assert not has_array_form(float_terms, I32, spec)
    assert not has_array_form(float_accumulator, I32, spec)
    x = rt.constant(np.array(0.1, dtype))
    assert int(function(float_terms)(rt.constant(50), x)) == sum(
        int(i * np.array(0.1, dtype)) for i in range(50))
    total = np.array(0, dtype)
    for i in range(50):
        total = total + np.array(i, dtype) * np.array(0.1, dtype)
    assert function(float_accumulator)(rt.constant(50), x).numpy() == total
