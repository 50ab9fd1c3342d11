"""The counted-loops pass: counted integer reductions become a guarded cond choosing array code
or the loop, visible in the graph and the pass records, with exactly the loop's results."""

import numpy as np
import pytest

import runtime as rt
from runtime.passes import counted_loops
from transpiler import function


def ops_of(concrete) -> list[str]:
    return [node.op.name for node in concrete.graph.walk()]


def both(fn, monkeypatch, *specs):
    """``fn`` traced as it is and with the array form switched off (the loop always runs)."""
    vectorized = function(fn).get_concrete_function(*specs)
    monkeypatch.setattr(counted_loops, "VECTORIZED_MAX_LENGTH", -1)
    looped = function(fn).get_concrete_function(*specs)
    monkeypatch.undo()
    return vectorized, looped


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def squares(start, n, s):
    for i in range(start, n):
        s += i * i
    return s


def affine(n, k, c, s):
    for i in range(n):
        s += i * k + c
    return s


def spec(dtype):
    return rt.TensorSpec([], dtype)


def test_the_rewrite_shows_in_the_graph_and_the_pass_records():
    concrete = function(squares).get_concrete_function(*[spec(rt.int32)] * 3)
    names = ops_of(concrete)
    assert "counted_range_fits" in names and "cond" in names and "range" in names
    assert "reduce_sum" in names and names.count("while_loop") == 1  # kept for long ranges
    records = [r for r in concrete.pass_records if r.name == "counted loops"]
    assert len(records) == 1 and "counted reduction over range(" in str(records[0])
    assert "counted_range_fits" in str(concrete.graph)


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
@pytest.mark.parametrize("start, n", [(0, 0), (5, 2), (-3, 4), (0, 1000), (-70_000, -5),
                                      (0, 65_537), (100, 100 + 65_536)])
def test_sum_of_squares_is_bitwise_the_loop(dtype, start, n, monkeypatch):
    vectorized, looped = both(squares, monkeypatch, *[spec(dtype)] * 3)
    args = [np.array(v, dtype) for v in (start, n, 17)]
    got, expected = vectorized(*args), looped(*args)
    assert same_bits(got, expected)
    with np.errstate(over="ignore"):
        i = np.arange(start, max(n, start), dtype=dtype)
        assert same_bits(got, np.array(17, dtype) + np.add.reduce(i * i, dtype=dtype))


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_affine_terms_with_invariants_wrap_around_like_the_loop(dtype, monkeypatch):
    vectorized, looped = both(affine, monkeypatch, spec(rt.int32), *[spec(dtype)] * 3)
    info = np.iinfo(dtype)
    for n, k, c, s in [(0, 3, 4, 5), (1000, info.max // 7, -9, info.max - 3),
                       (60_000, info.min // 3, info.max, 1), (7, -1, 0, info.min)]:
        args = [np.array(n, np.int32)] + [np.array(v, dtype) for v in (k, c, s)]
        got = vectorized(*args)
        assert same_bits(got, looped(*args))
        exact = s + sum(i * k + c for i in range(n))
        bits = info.bits
        assert int(got) == (exact + 2**(bits - 1)) % 2**bits - 2**(bits - 1)


def counter_and_sum(start, n):
    s = start - start
    i = start
    while i < n:
        s += i ^ 5
        i += 1
    return i, s


@pytest.mark.parametrize("start, n", [(2**31 - 50, 2**31 - 1), (2**31 - 1, 2**31 - 1),
                                      (-2**31, -2**31 + 30), (10, -2**40)])
def test_counters_near_the_dtype_bounds(start, n, monkeypatch):
    vectorized, looped = both(counter_and_sum, monkeypatch, spec(rt.int32), spec(rt.int64))
    args = np.array(start, np.int32), np.array(n, np.int64)
    for got, expected in zip(vectorized(*args), looped(*args)):
        assert same_bits(got, expected)


def float_accumulator(n, s):
    for i in range(n):
        s += i * 0.5
    return s


def counting_down(n, s):
    for i in range(n, 0, -1):
        s += i * i
    return s


def nested(n, s):
    for j in range(n):
        for i in range(j):
            s += i * j
    return s


@pytest.mark.parametrize("fn, second", [(float_accumulator, rt.float64), (counting_down, rt.int32),
                                        (nested, rt.int32)])
def test_other_loops_are_left_alone(fn, second):
    concrete = function(fn).get_concrete_function(spec(rt.int32), spec(second))
    assert "counted_range_fits" not in ops_of(concrete)
    args = np.array(30, np.int32), np.array(1, second)
    assert float(concrete(*args)) == float(fn(30, args[1][()]))


def in_a_branch(flag, n, s):
    if flag > 0:
        for i in range(n):
            s += i * i
    return s


def test_loops_in_cond_branches_are_rewritten(monkeypatch):
    vectorized, looped = both(in_a_branch, monkeypatch, *[spec(rt.int32)] * 3)
    assert "counted_range_fits" in ops_of(vectorized)
    for flag in (0, 1):
        args = [np.array(v, np.int32) for v in (flag, 500, 3)]
        assert same_bits(vectorized(*args), looped(*args))


def constant_range(k):
    s = k - k
    for i in range(300):
        s += i * k
    return s


def test_a_constant_range_folds_the_guard_away():
    concrete = function(constant_range).get_concrete_function(spec(rt.int64))
    names = ops_of(concrete)
    assert "while_loop" not in names and "counted_range_fits" not in names
    assert int(concrete(np.array(3, np.int64))) == 3 * 299 * 300 // 2


def test_a_rewritten_loop_is_saved_and_loaded(tmp_path):
    concrete = function(squares).get_concrete_function(*[spec(rt.int32)] * 3)
    rt.save(concrete, str(tmp_path / "squares"))
    loaded = rt.load(str(tmp_path / "squares"))
    args = [np.array(v, np.int32) for v in (2, 3000, 1)]
    assert same_bits(loaded(*args), concrete(*args))
