"""The default tier (``jit_compile=None``) gives the NumPy plan's results to the last bit.

The background compile may swap the compiled tier in at any call, at a moment that depends on
timing, so whatever it compiles must round exactly as the plan does: then a function's result
for the same inputs never changes within a process, and a program gives the same bytes run to
run. Each test compiles through the public path (``wait_for_jit`` on a function left at
``jit_compile=None``) and compares bit patterns with ``jit_compile=False``: signed zeros
included, NaNs equal whatever their payload. The functions whose last bit NumPy and compiled
code may round differently (exp, log, tanh, ...) run NumPy's own loops in C kernels; without
C, and for those without a loop of their own (sigmoid, pow), they stay on the plan and say why.
"""

from __future__ import annotations

import itertools

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import runtime as rt  # noqa: E402
from runtime.backends.jit.c_build import builds_with_c  # noqa: E402
from runtime.backends.jit.element_rules import (ELEMENT_RULES, NUMPY_LOOPS,  # noqa: E402
                                                ROUNDED_OWN_WAY)
from tests.runtime.jit_helpers import compiled_ops, counts, left_on_plan, quiet  # noqa: E402
from tests.runtime.test_jit_tier import OPS, operands, ops_for  # noqa: E402


def exactly_equal(a, b) -> bool:
    """Same dtype, shape and bits (NaNs match NaNs whatever their payload)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind != "f":
        return a.tobytes() == b.tobytes()
    both_nan = np.isnan(a) & np.isnan(b)
    return np.array_equal(np.where(both_nan, 0, a).view(f"u{a.itemsize}"),
                          np.where(both_nan, 0, b).view(f"u{b.itemsize}"))


def on_plan_and_default_tier(fn, *args):
    """(plan results, default tier's results, its report) for ``fn(*args)``."""
    plan = rt.function(fn, jit_compile=False)
    default = rt.function(fn)
    concrete = default.get_concrete_function(*args)
    assert concrete.wait_for_jit(120)
    with quiet():
        return plan(*args), default(*args), concrete.jit_report


def assert_exactly_equal(plan, tier, context: str = "") -> None:
    plan_leaves, tier_leaves = rt.nest.flatten(plan), rt.nest.flatten(tier)
    assert len(plan_leaves) == len(tier_leaves)
    for index, (p, t) in enumerate(zip(plan_leaves, tier_leaves)):
        assert exactly_equal(p, t), f"{context} output {index}: plan {p!r}, tier {t!r}"


EXACT_DTYPES = ["bool", "int8", "int32", "int64", "uint64", "float32", "float64"]


@pytest.mark.parametrize("dtype", EXACT_DTYPES)
def test_every_element_op_compiled_by_default_gives_the_plan_bits(dtype: str):
    a, b = operands(dtype)
    names = ops_for(dtype)

    def every_op(a, b):
        results = {name: OPS[name][0](a, b) for name in names}
        results["_padding"] = rt.equal(rt.equal(a, b), rt.less(a, b))
        return results
    plan, tier, report = on_plan_and_default_tier(every_op, a, b)
    for name in names:
        assert exactly_equal(plan[name], tier[name]), f"{name} on {dtype}"
    compiled = compiled_ops(report)
    # With C, exp, log, ... run NumPy's own loops; the rest of ROUNDED_OWN_WAY stays behind.
    numpy_loops = {op.name for op in NUMPY_LOOPS} if builds_with_c() else set()
    rounded_own_way = {op.name for op in ROUNDED_OWN_WAY} - numpy_loops
    assert compiled, report
    if dtype.startswith("float"):
        assert not compiled & rounded_own_way, report
        assert {name for name in names if name in rounded_own_way} <= \
            {line.split()[0] for line in left_on_plan(report)}, report
        assert any("may round its last bit differently from NumPy's" in line
                   for line in left_on_plan(report)), report
        assert {name for name in names if name in numpy_loops} <= compiled, report


def test_the_exact_ops_are_the_rules_minus_the_transcendental_functions():
    """A new element rule is exact unless it joins ROUNDED_OWN_WAY: this test names the
    ones that round their own way, so adding one is a decision, not an accident."""
    assert {op.name for op in ROUNDED_OWN_WAY} == {
        "exp", "log", "log1p", "sin", "cos", "tan", "tanh", "sigmoid", "pow"}
    assert {op for op in ROUNDED_OWN_WAY if op.name != "pow"} <= set(ELEMENT_RULES)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("length", [3, 8, 9, 127, 129, 1000, 9000])
def test_float_sums_and_means_follow_numpy_order(dtype: str, length: int):
    """NumPy sums a contiguous run pairwise (blocks of 8 partial sums, halves beyond 128
    terms), and adds rows one after another over a leading axis: the same bits, or the
    kernel would drift from the plan in the last place."""
    rng = np.random.default_rng(length)
    x = (rng.standard_normal((3, length)) * 10 ** rng.uniform(-3, 3, (3, length))).astype(dtype)

    def sums(x):
        y = x * 1.5 - 0.25
        return (rt.reduce_sum(y, axis=1), rt.reduce_mean(y, axis=1), rt.reduce_sum(y, axis=0),
                rt.reduce_mean(y, axis=0), rt.reduce_sum(y), rt.reduce_max(y, axis=1))
    plan, tier, report = on_plan_and_default_tier(sums, x)
    assert "reduce_sum" in compiled_ops(report), report
    assert_exactly_equal(plan, tier, f"{dtype}[3, {length}]")



@pytest.mark.parametrize("shape", [(1, 2), (1, 4, 5), (3, 1, 4), (2, 3, 1), (1, 1, 7)])
def test_float_sums_over_axes_of_size_one_before_kept_axes(shape: tuple):
    """A reduced axis of size 1 adds no term but may precede kept axes: the sum over axis 0
    of a (1, 2) array once gave [x[0, 1], 0] (the run of terms started at axis 0)."""
    x = np.random.default_rng(len(shape)).standard_normal(shape).astype(np.float32)
    all_axes = [list(axes) for r in range(1, len(shape) + 1)
                for axes in itertools.combinations(range(len(shape)), r)]

    def sums(x):
        y = -x
        return tuple(rt.reduce_sum(y, axis=axes) for axes in all_axes) + \
            tuple(rt.reduce_mean(y, axis=axes, keepdims=True) for axes in all_axes)
    plan, tier, report = on_plan_and_default_tier(sums, x)
    assert "reduce_sum" in compiled_ops(report), report
    assert_exactly_equal(plan, tier, f"float32{list(shape)}")

MATMUL_SHAPES = [((1, 16), (16, 8)), ((16, 1), (1, 8)), ((5, 16), (16, 1)), ((64, 16), (16, 32)),
                 ((64, 32), (32, 4))]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dense_layers_give_the_plan_bits(dtype: str):
    rng = np.random.default_rng(3)
    pairs = [(rng.standard_normal(a).astype(dtype), rng.standard_normal(b).astype(dtype))
             for a, b in MATMUL_SHAPES]

    def layers(*arrays):
        outs = [rt.nn.relu(rt.matmul(x, w) + 0.5) * 2.0 for x, w in zip(arrays[::2], arrays[1::2])]
        x = arrays[6]
        outs.append(rt.matmul(x, rt.transpose(x)) - 1.0)  # NumPy may call syrk for x @ x.T
        return outs
    flat = [array for pair in pairs for array in pair]
    plan, tier, report = on_plan_and_default_tier(layers, *flat)
    assert "matmul" in compiled_ops(report), report
    assert_exactly_equal(plan, tier, dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_square_products_of_distinct_memory_are_compiled_and_the_others_are_not(dtype: str):
    """NumPy calls syrk, not gemm, when a square product reads one buffer twice (x @ x.T).
    Two new arrays of the function's own ops never share one, so their product is compiled;
    a value with its own transpose, or two arguments (one array may be passed twice), stay
    on the plan. Either way the plan's bits."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((24, 8)).astype(dtype)
    w = rng.standard_normal((8, 20)).astype(dtype)

    def products(x, w, same):
        h = rt.nn.relu(rt.matmul(x, w) + 0.5)
        g = h * 2.0 - 1.0
        return (rt.matmul(h, rt.transpose(g)) + 1.0,    # distinct new arrays: compiled
                rt.matmul(g, rt.transpose(g)) + 1.0,    # one buffer twice: syrk in NumPy
                rt.matmul(rt.transpose(x), rt.transpose(same)) + 1.0)  # two arguments
    plan, tier, report = on_plan_and_default_tier(products, x, w, x.T.copy())
    assert_exactly_equal(plan, tier, dtype)
    syrk = [line for line in left_on_plan(report) if "syrk" in line]
    assert len(syrk) == 2 and compiled_ops(report) >= {"matmul"}, report


def test_softmax_and_cross_entropy_stay_exact():
    """Decomposed into a max, a subtraction, an exp, a sum and a division: the exp runs
    NumPy's loop in a C kernel (without C it stays on the plan), and the rest gives the
    plan's bits."""
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((32, 10)).astype(np.float32)
    labels = np.eye(10, dtype=np.float32)[rng.integers(0, 10, 32)]

    def losses(logits, labels):
        return (rt.nn.softmax(logits * 2.0 + 1.0),
                rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits - 0.5)),
                rt.nn.log_softmax(logits * 0.5))
    plan, tier, report = on_plan_and_default_tier(losses, logits, labels)
    assert_exactly_equal(plan, tier)
    assert ("exp" in compiled_ops(report)) == builds_with_c(), report


def test_a_compiled_loop_around_exact_ops():
    def loop(x, n):
        i = rt.constant(0)
        total = rt.zeros_like(x)

        def body(i, total):
            return i + 1, rt.sqrt(total * 0.5 + x) / 3.0 + rt.reduce_sum(x) * 1e-3
        _, total = rt.while_loop(lambda i, total: i < n, body, (i, total))
        return total
    x = np.random.default_rng(5).uniform(0, 2, 40)
    plan, tier, report = on_plan_and_default_tier(loop, x, np.int32(25))
    assert counts(report)[0] >= 1 and "while_loop" in compiled_ops(report), report
    assert_exactly_equal(plan, tier)


# Random programs: elementwise ops the tier compiles exactly, reductions over random axes and
# matmuls, on random shapes and dtypes. Each example compiles its own kernels (0.2-3 s), so
# a few per run: hypothesis draws other programs on every run.
_BINARY = [rt.add, rt.subtract, rt.multiply, rt.maximum, rt.minimum]
_FLOAT_BINARY = [rt.divide]
_UNARY = [rt.negative, rt.abs, rt.square, rt.nn.relu]
_FLOAT_UNARY = [lambda x: rt.sqrt(rt.abs(x)), rt.floor, rt.round,
                lambda x: rt.math.rsqrt(rt.abs(x)), rt.math.reciprocal]


@st.composite
def programs(draw):
    dtype = draw(st.sampled_from(["float32", "float64", "int32", "int64"]))
    rows, columns = draw(st.integers(1, 9)), draw(st.integers(1, 140))
    steps = draw(st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99), st.integers(0, 99)),
                          min_size=3, max_size=12))
    reduce_axis = draw(st.sampled_from([None, 0, 1]))
    seed = draw(st.integers(0, 2**16))
    return dtype, (rows, columns), steps, reduce_axis, seed


def _build(dtype: str, steps, reduce_axis):
    floating = dtype.startswith("float")
    binary = _BINARY + (_FLOAT_BINARY if floating else [])
    unary = _UNARY + (_FLOAT_UNARY if floating else [])

    def program(a, b):
        values = [a, b]
        for kind, first, second in steps:
            x, y = values[first % len(values)], values[second % len(values)]
            if kind % 3 == 0:
                values.append(unary[kind % len(unary)](x))
            else:
                values.append(binary[kind % len(binary)](x, y))
        last = values[-1]
        return (last, rt.reduce_sum(last, axis=reduce_axis), rt.reduce_max(last, axis=reduce_axis),
                rt.matmul(last, rt.transpose(values[-2])) if floating else last * 2)
    return program


@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")  # a program per example
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(programs())
def test_random_programs_give_the_plan_bits(case):
    dtype, shape, steps, reduce_axis, seed = case
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        a, b = (rng.standard_normal(shape) * 4).astype(dtype), rng.uniform(-3, 3, shape).astype(dtype)
    else:
        a, b = rng.integers(-50, 50, shape, dtype=dtype), rng.integers(-50, 50, shape, dtype=dtype)
    plan, tier, _ = on_plan_and_default_tier(_build(dtype, steps, reduce_axis), a, b)
    assert_exactly_equal(plan, tier, f"{case}")


LOOP_LENGTHS = (1, 7, 9, 17, 100, 20000)  # 20,000: runs without the lock


@pytest.mark.skipif(not builds_with_c(), reason="no C compiler with Python's headers")
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numpy_loops_in_c_kernels_give_the_plan_bits_at_any_length_and_layout(dtype: str):
    """C kernels compute exp, log, ... with NumPy's own loops, over whole arrays as the plan
    does, and on single elements for scalars: the plan's bits in every case, on values
    across each function's range (tiny, huge, negative, where exp overflows)."""
    rng = np.random.default_rng(11)
    arrays = [(rng.standard_normal(n) * 10 ** rng.uniform(-4, 2.5, n)).astype(dtype)
              for n in LOOP_LENGTHS]
    matrix = (rng.standard_normal((5, 6)) * 3).astype(dtype)

    def loops(matrix, *arrays):
        results = {}
        for index, x in enumerate(arrays):
            shifted = x * 0.5 - 0.25
            results[index] = (rt.exp(shifted), rt.log(rt.abs(x)), rt.log1p(rt.abs(x)),
                              rt.sin(x), rt.cos(shifted), rt.tan(x), rt.tanh(shifted))
        total = rt.reduce_sum(matrix)
        results["scalars"] = (rt.exp(total * 0.1), rt.log(rt.abs(total)), rt.sin(total),
                              rt.tanh(rt.reduce_max(matrix)))
        results["transposed"] = rt.exp(rt.transpose(matrix) * 0.5)
        results["softmax"] = rt.nn.softmax(matrix, axis=-1)
        return results
    plan, tier, report = on_plan_and_default_tier(loops, matrix, *arrays)
    assert_exactly_equal(plan, tier, dtype)
    assert {"exp", "log", "log1p", "sin", "cos", "tan", "tanh"} <= compiled_ops(report), report


def test_a_numpy_loop_that_gives_other_bits_than_its_ufunc_is_refused():
    """The loops are taken from NumPy's table of each ufunc and checked against the ufunc
    when a module loads: a NumPy that runs another loop must not change results unseen."""
    from runtime.backends.jit import c_build

    class OneUlpOff:
        @staticmethod
        def set_loops(slots):
            pass

        @staticmethod
        def run_loop(slot, x):
            with np.errstate(all="ignore"):
                return np.nextafter(getattr(np, c_build.LOOP_SLOTS[slot][0])(x), np.inf)
    with pytest.raises(RuntimeError, match="cos of float32 gives other results than np.cos"):
        c_build._set_loops(OneUlpOff)
