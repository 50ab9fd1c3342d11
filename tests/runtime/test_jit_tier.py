"""The compiled tier (``runtime/backends/jit``), through the public API: a function run with
``jit_compile=True`` must give exactly what the NumPy plan (``jit_compile=False``) gives.

Integers and bools bit for bit (wrap-around, ``x // 0 == 0``, ``MIN // -1 == MIN``), floats
to 1e-6 of the largest magnitude of the result, NaN and infinities where the plan has them,
same dtypes and shapes. Covered:

* every op of ``ELEMENT_RULES`` (and the reductions), on arrays (one loop nest per kernel) and
  on scalars inside a ``while_loop`` (scalar code), for every dtype it applies to, on edge
  values; casts between all dtypes; literals; broadcasting and odd layouts;
* loops over scalars written in Python (``while``, ``for range(tensor)``, ``if``, ``break``,
  ``return``), matmuls, chains of layers rolled into one kernel (and chains that must not
  roll), regions next to what the tier leaves on NumPy, and ``jit_report``;
* tiering (``jit_compile=None``), the error without Numba, and the kernel cache directory.

Compiles are the cost here (0.1 to 1 s each): one function per dtype computes every op, and
each op's test reads its share of the results.
"""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import functools  # noqa: E402
import importlib  # noqa: E402
import itertools  # noqa: E402
import operator  # noqa: E402
import os  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from contextlib import contextmanager  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import numpy as np  # noqa: E402

import runtime as rt  # noqa: E402
import transpiler  # noqa: E402
from runtime import plan_writes, tiering  # noqa: E402
from runtime.backends.jit.c_build import builds_with_c  # noqa: E402
from runtime.backends.jit import merging  # noqa: E402
from runtime.backends.jit.element_rules import ELEMENT_RULES  # noqa: E402
from runtime.ops import math_ops  # noqa: E402
from runtime.ops.dispatch import apply_op  # noqa: E402
from tests.reference.samples_while import gcd  # noqa: E402
from tests.runtime.jit_helpers import (Both, assert_same, compiled_ops, counts,  # noqa: E402
                                       left_on_plan, mismatch, on_both, quiet,
                                       report_of, signs_match)

function_module = importlib.import_module("runtime.function")
concrete_module = importlib.import_module("runtime.concrete_function")


_KERNEL_CACHE: list = []  # the directory of this module's kernels


@pytest.fixture(scope="module", autouse=True)
def kernel_cache(tmp_path_factory: pytest.TempPathFactory):
    """Kernels of this module go to a private directory of this test session."""
    previous = rt.config.jit_cache_directory()
    path = tmp_path_factory.mktemp("jit_tier_kernels")
    _KERNEL_CACHE[:] = [str(path)]
    rt.config.set_jit_cache_directory(path)
    yield path
    rt.config.set_jit_cache_directory(previous)


@contextmanager
def cache_directory(path):
    """The kernel cache at ``path`` for a block (then this module's again)."""
    rt.config.set_jit_cache_directory(path)
    try:
        yield
    finally:
        rt.config.set_jit_cache_directory(_KERNEL_CACHE[0])


# --------------------------------------------------------------------------------------------
# Helpers


_unique = itertools.count(1)


def unique_constant() -> float:
    """A float no other kernel of this process has as a literal: its kernel is compiled (and
    written to the cache directory) anew."""
    return 1.0 + next(_unique) / 1024.0 + os.getpid() % 97 / 2**20


# --------------------------------------------------------------------------------------------
# Operands: edge values of every dtype

INT_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"]
FLOAT_DTYPES = ["float32", "float64"]
DTYPES = ["bool"] + INT_DTYPES + FLOAT_DTYPES


def _kind(dtype: str) -> str:
    return np.dtype(dtype).kind


def int_operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """64 pairs (8 x 8): MIN // -1, zero divisors, negative operands of // and %, overflow of
    + - * both ways, then random pairs."""
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    pairs = [(lo, -1), (lo, 1), (lo, 2), (lo, -2), (lo, lo), (lo, hi), (hi, lo), (hi, hi),
             (hi, 1), (hi, -1), (hi, 2), (hi, -2), (7, 0), (-7, 0), (0, 0), (lo, 0), (hi, 0),
             (7, 2), (-7, 2), (7, -2), (-7, -2), (6, 3), (-6, 3), (6, -3), (-6, -3), (1, 7),
             (-1, 7), (1, -7), (-1, -7), (0, 5), (0, -5), (hi // 2 + 1, 2), (lo // 2, 3),
             (hi, hi // 2), (lo + 1, -1), (-1, -1), (-1, lo), (3, hi)]
    rng = np.random.default_rng(sum(map(ord, dtype)))
    while len(pairs) < 64:
        pairs.append(tuple(int(v) for v in rng.integers(lo, hi, 2, dtype=dtype, endpoint=True)))
    wrap = (lambda v: v % 2**info.bits) if lo == 0 else (lambda v: v)
    a = np.array([wrap(p) for p, _ in pairs], dtype=dtype).reshape(8, 8)
    b = np.array([wrap(q) for _, q in pairs], dtype=dtype).reshape(8, 8)
    return a, b


FLOAT_VALUES = [0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 7.0, -7.0, 1e-30, 1e30, 1e300, np.nan,
                np.inf, -np.inf, 2.5, 0.1, -1e-40]  # (-1e-40: subnormal in float32)


def float_operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of 18 values (18 x 18): signed zeros, NaN, infinities, huge and tiny."""
    with quiet():  # 1e300 is inf in float32
        values = np.array(FLOAT_VALUES, dtype=dtype)
    a, b = np.meshgrid(values, values, indexing="ij")
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


def operands(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    if dtype == "bool":
        return np.array([[True, True], [False, False]]), np.array([[True, False], [True, False]])
    if _kind(dtype) == "f":
        return float_operands(dtype)
    return int_operands(dtype)


# --------------------------------------------------------------------------------------------
# The ops: name -> (how to apply it to (a, b), the dtype kinds it is compiled for)

NUMERIC, INTEGRAL, FLOATING, BOOLEAN, ANY = "iuf", "iu", "f", "b", "biuf"


def _divisor(b):
    """``b`` with its integer zeros made 1: an integer division by zero raises (on the plan and
    in kernels: test_integer_division_by_zero.py); floats keep theirs (inf and NaN)."""
    return rt.where(rt.equal(b, 0), rt.ones_like(b), b) if b.dtype.kind in "iu" else b


OPS: dict[str, tuple] = {
    "add": (rt.add, NUMERIC),
    "subtract": (rt.subtract, NUMERIC),
    "multiply": (rt.multiply, NUMERIC),
    "divide": (rt.divide, NUMERIC),
    "floordiv": (lambda a, b: rt.floordiv(a, _divisor(b)), NUMERIC),
    "mod": (lambda a, b: rt.mod(a, _divisor(b)), NUMERIC),
    "pow": (rt.pow, FLOATING),
    "maximum": (rt.maximum, NUMERIC),
    "minimum": (rt.minimum, NUMERIC),
    "equal": (rt.equal, ANY),
    "not_equal": (rt.not_equal, ANY),
    "less": (rt.less, ANY),
    "less_equal": (rt.less_equal, ANY),
    "greater": (rt.greater, ANY),
    "greater_equal": (rt.greater_equal, ANY),
    "logical_and": (rt.logical_and, BOOLEAN),
    "logical_or": (rt.logical_or, BOOLEAN),
    "logical_xor": (rt.logical_xor, BOOLEAN),
    "logical_not": (lambda a, b: rt.logical_not(a), BOOLEAN),
    "bitwise_and": (operator.and_, INTEGRAL),
    "bitwise_or": (operator.or_, INTEGRAL),
    "bitwise_xor": (operator.xor, INTEGRAL),
    "invert": (lambda a, b: ~a, INTEGRAL),
    "where": (lambda a, b: rt.where(rt.less(a, b), a, b), ANY),
    "negative": (lambda a, b: -a, NUMERIC),
    "positive": (lambda a, b: apply_op(math_ops.POSITIVE, (a,)), NUMERIC),
    "abs": (lambda a, b: abs(a), NUMERIC),
    "square": (lambda a, b: rt.square(a), NUMERIC),
    "relu": (lambda a, b: rt.nn.relu(a), NUMERIC),
    **{name: ((lambda f: lambda a, b: f(a))(getattr(rt, name)), FLOATING)
       for name in ("exp", "log", "log1p", "sqrt", "sin", "cos", "tan", "tanh", "floor", "ceil",
                    "round", "sigmoid")},
    "rsqrt": (lambda a, b: rt.math.rsqrt(a), FLOATING),
    "reciprocal": (lambda a, b: rt.math.reciprocal(a), FLOATING),
}


def ops_for(dtype: str) -> list[str]:
    return [name for name, (_, kinds) in OPS.items() if _kind(dtype) in kinds]


# Compiles cost time: on arrays, bool, int32 and float32 get every op, the other integer
# dtypes the ops whose result depends on the width, float64 the arithmetic; the scalar loops
# run every op on bool, int8, int64, uint64 and float64.
WIDTH_OPS = ["add", "subtract", "multiply", "divide", "floordiv", "mod", "maximum", "minimum",
             "less", "invert", "negative", "abs", "square", "relu"]
SOME_OPS = {**{dtype: WIDTH_OPS for dtype in ("int8", "int16", "int64", "uint8", "uint32",
                                               "uint64")},
            "float64": [name for name in WIDTH_OPS if name != "invert"] + ["pow", "where", "exp"]}


def array_ops_for(dtype: str) -> list[str]:
    return SOME_OPS.get(dtype) or ops_for(dtype)


ELEMENT_CASES = [pytest.param(dtype, name, id=f"{dtype}-{name}")
                 for dtype in DTYPES for name in ops_for(dtype)]
ARRAY_CASES = [pytest.param(dtype, name, id=f"{dtype}-{name}")
               for dtype in DTYPES for name in array_ops_for(dtype)]


def test_every_element_rule_is_exercised():
    """A rule added to ELEMENT_RULES without a test here fails this test (identity and cast
    have their own tests: the passes remove identities before the tier sees a graph)."""
    tested = set(OPS) | {"cast", "identity"}
    assert {op.name for op in ELEMENT_RULES} <= tested, \
        {op.name for op in ELEMENT_RULES} - tested


@dataclass
class Results:
    a: np.ndarray
    b: np.ndarray
    plan: dict
    jit: dict
    report: str


def all_ops(names: list[str]):
    def compute(a, b):
        return {name: OPS[name][0](a, b) for name in names}
    return compute


def all_ops_padded(names: list[str]):
    """``all_ops`` and two more nodes last: regions hold at most 32 nodes, and a region of
    one node is not compiled; with these, a lone last node is never an op under test."""
    ops = all_ops(names)

    def compute(a, b):
        results = ops(a, b)
        results["_padding"] = rt.equal(rt.equal(a, b), rt.less(a, b))
        return results
    return compute


@functools.lru_cache(maxsize=None)
def array_results(dtype: str) -> Results:
    """Every op of ``dtype`` on arrays, in one function (one loop nest, a few kernels)."""
    a, b = operands(dtype)
    plan, jit, fn = on_both(all_ops_padded(array_ops_for(dtype)), a, b)
    return Results(a, b, plan, jit, report_of(fn, a, b))


@pytest.mark.parametrize("dtype, name", ARRAY_CASES)
def test_element_rule_on_arrays(dtype: str, name: str):
    results = array_results(dtype)
    assert name in compiled_ops(results.report), results.report
    assert results.jit[name].dtype == results.plan[name].dtype
    problem = mismatch(results.plan[name], results.jit[name])
    assert problem is None, f"{name} on {dtype} arrays: {problem}"


def scalar_loop(names: list[str]):
    """Every op on scalars inside a ``while_loop`` of ``n`` trips that swaps ``a`` and ``b``
    each trip (so nothing is loop-invariant): the kernel computes them as scalar code."""
    ops = all_ops(names)

    def compute(a, b, n):
        start = {name: rt.zeros_like(value) for name, value in ops(a, b).items()}

        def body(i, a, b, results):
            return i + 1, b, a, ops(a, b)

        _, _, _, results = rt.while_loop(lambda i, a, b, results: i < n, body,
                                         (rt.constant(0), a, b, start))
        return results
    return compute


@functools.lru_cache(maxsize=None)
def loop_results(dtype: str) -> Results:
    """Every op of ``dtype`` on each pair of operands as scalars, one trip of the loop."""
    a, b = operands(dtype)
    compute = scalar_loop(ops_for(dtype))
    plan_fn = rt.function(compute, jit_compile=False)
    jit_fn = rt.function(compute, jit_compile=True)
    one = np.int32(1)
    plan, jit = {name: [] for name in ops_for(dtype)}, {name: [] for name in ops_for(dtype)}
    with quiet():
        for x, y in zip(a.ravel(), b.ravel()):
            for results, fn in ((plan, plan_fn), (jit, jit_fn)):
                for name, value in fn(x, y, one).items():
                    results[name].append(value.numpy())

    def stack(results):
        return {name: np.stack(values).reshape(a.shape) for name, values in results.items()}
    report = report_of(jit_fn, a.ravel()[0], b.ravel()[0], one)
    return Results(a, b, stack(plan), stack(jit), report)


# Scalar code is the same for every width: a narrow, the 64-bit and the float kinds.
LOOP_DTYPES = ["bool", "int8", "int64", "uint64", "float64"]
LOOP_CASES = [case for case in ELEMENT_CASES if case.values[0] in LOOP_DTYPES]


@pytest.mark.parametrize("dtype, name", LOOP_CASES)
def test_element_rule_on_scalars_in_a_loop(dtype: str, name: str):
    results = loop_results(dtype)
    counted = counts(results.report)
    assert counted[0] == 1 and "while_loop" in compiled_ops(results.report), results.report
    assert not [line for line in left_on_plan(results.report) if "while_loop" in line]
    problem = mismatch(results.plan[name], results.jit[name])
    assert problem is None, f"{name} on {dtype} scalars in a loop: {problem}"


@pytest.mark.parametrize("trips", [0, 2, 3])
def test_scalar_loop_trips(trips: int):
    """No trip leaves the start values; two trips compute op(b, a); three op(a, b) again."""
    compute = scalar_loop(ops_for("int64"))  # the kernel of the int64 loop tests
    plan_fn = rt.function(compute, jit_compile=False)
    jit_fn = rt.function(compute, jit_compile=True)
    with quiet():
        for x, y in [(-7, 2), (np.iinfo(np.int64).min, -1), (5, 0)]:
            args = (np.int64(x), np.int64(y), np.int32(trips))
            assert_same(plan_fn(*args), jit_fn(*args), f"({x}, {y}), {trips} trips")


# --------------------------------------------------------------------------------------------
# Edge values named one by one (the wide tests above hold them too; these say what broke)


SIGNED = ["int8", "int64"]


def test_min_floordiv_minus_one_wraps_and_mod_is_zero():
    def f(*pairs):
        return [(a // b + a * 0, a % b - a * 0) for a, b in zip(pairs[::2], pairs[1::2])]
    args = []
    for dtype in SIGNED:
        info = np.iinfo(dtype)
        args += [np.array([info.min, info.max, 7, -7, 0], dtype), np.array([-1, -1, 3, 2, 5], dtype)]
    plan, jit, _ = on_both(f, *args)
    assert_same(plan, jit)
    for dtype, (quotient, remainder) in zip(SIGNED, jit):
        assert quotient.numpy().tolist() == [np.iinfo(dtype).min, -np.iinfo(dtype).max, 2, -4, 0]
        assert remainder.numpy().tolist() == [0, 0, 1, 1, 0]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_add_subtract_multiply_wrap_around(dtype: str):
    info = np.iinfo(dtype)
    a = np.array([info.max, info.min, info.max, 3], dtype)
    b = np.array([1, 1, info.max, info.max], dtype)
    plan, jit, _ = on_both(lambda a, b: {"add": (a + b) + b * 0, "sub": (a - b) - b * 0,
                                         "mul": (a * b) * 1 + b * 0}, a, b)
    assert_same(plan, jit)
    assert jit["add"].numpy()[0] == info.min
    assert jit["sub"].numpy()[1] == info.max


def test_nan_and_infinities_in_maximum_minimum_relu():
    a = np.array([np.nan, 1.0, -np.inf, np.inf, np.nan, -3.0])
    b = np.array([1.0, np.nan, 0.0, np.nan, np.nan, -np.inf])
    plan, jit, _ = on_both(lambda a, b: (rt.maximum(a, b) * 2.0, rt.minimum(a, b) * 2.0,
                                         rt.nn.relu(a) + rt.nn.relu(b)), a, b)
    assert_same(plan, jit)
    assert np.isnan(jit[0].numpy()[[0, 1, 3, 4]]).all()


# The sign of a zero: NumPy's maximum and minimum pick the second operand of two equal ones,
# so 1 / relu(-0.0) is inf. (The first kernels picked the first: -inf.)


def test_relu_of_negative_zero_is_positive_zero():
    x = np.array([-0.0, 2.0])
    plan, jit, _ = on_both(lambda x: 1.0 / rt.nn.relu(x), x)
    assert plan.numpy()[0] == np.inf
    assert_same(plan, jit)


@pytest.mark.parametrize("op", ["maximum", "minimum"])
def test_maximum_minimum_of_zeros_of_both_signs(op: str):
    a = np.array([0.0, -0.0])
    b = np.array([-0.0, 0.0])
    plan, jit, _ = on_both(lambda a, b: 1.0 / getattr(rt, op)(a, b), a, b)
    assert_same(plan, jit)


def test_signed_zeros_elsewhere():
    """Negation, abs, multiplication, floor and round keep NumPy's zero signs."""
    x = np.array([0.0, -0.0, -0.4, 0.4])
    plan, jit, _ = on_both(lambda x: (-x * 1.5, abs(x) + 0.0 * x, rt.floor(x) * 2.0,
                                      rt.round(x) * 2.0, x * -1.0 - 0.0), x)
    assert_same(plan, jit)
    for p, j in zip(plan, jit):
        assert signs_match(p, j), (p, j)


# NumPy's power takes sqrt for a scalar exponent of 0.5 (and on NumPy scalars): (-inf) ** 0.5
# is nan and (-0.0) ** 0.5 is -0.0, where C's pow gives inf and 0.0.
EXPONENTS = [0.5, -1.0, 0.0, 3.0, -0.5, 1.5]


@functools.lru_cache(maxsize=None)
def constant_power_results(dtype: str) -> tuple:
    def f(x):
        return [x ** exponent * 2.0 for exponent in EXPONENTS]
    plan, jit, _ = on_both(f, np.array([-np.inf, -0.0, 0.0, np.nan, -1.0, 2.0, np.inf, 0.25],
                                       dtype))
    return plan, jit


@pytest.mark.parametrize("index", range(len(EXPONENTS)), ids=[repr(e) for e in EXPONENTS])
def test_pow_with_a_constant_exponent(index: int):
    plan, jit = constant_power_results("float64")
    assert_same(plan[index], jit[index], f"x ** {EXPONENTS[index]}")
    assert signs_match(plan[index], jit[index])


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_pow_with_a_one_element_exponent_array(shape):
    """NumPy takes its sqrt path for an exponent array of one element, as for a scalar
    ((-inf) ** 0.5 = nan, (-0.0) ** 0.5 = -0.0, where C's pow gives inf and 0.0)."""
    x = np.array([[-np.inf, -0.0, 4.0], [9.0, -np.inf, 0.25]])
    plan, jit, _ = on_both(lambda x, e: x ** e * 2.0, x, np.full(shape, 0.5))
    assert_same(plan, jit)
    assert signs_match(plan, jit)


def test_pow_with_an_exponent_array_of_many_elements():
    """No sqrt path for NumPy there: C pow on both sides."""
    x = np.array([[-np.inf, -0.0, 4.0], [9.0, -np.inf, 0.25]])
    both = Both(lambda x, e: x ** e * 2.0)
    for e in (np.full(3, 0.5), np.full((2, 1), 0.5)):  # (more shapes: a RetracingWarning)
        plan, jit = both(x, e)
        assert signs_match(plan, jit)


# -- literals -----------------------------------------------------------------------------


# int64 arithmetic must wrap even where LLVM could assume it does not: Numba marks signed
# 64-bit + - * as never overflowing (narrower ints are computed in 64 bits), and LLVM then
# folded a + MIN into a | MIN, (a + 1) > a into True, (a * 2) // 2 into a, (a - b) < 0 into
# a < b.


def test_int64_min_as_a_constant_operand():
    a = np.array([-1, -2**63, 0, 5, 2**63 - 1], np.int64)
    plan, jit, _ = on_both(lambda a: (a + np.int64(-2**63)) * a, a)
    assert_same(plan, jit)


INT64_MAX = 2**63 - 1
OVERFLOWS = {
    "add_then_compare": lambda a, b: rt.logical_and(a + 1 > a, a == a),
    "multiply_then_divide": lambda a, b: (a * 2) // 2 == b,
    "subtract_then_sign": lambda a, b: (a - b) < 0,
}


@pytest.mark.parametrize("name", list(OVERFLOWS))
def test_int64_overflow_then_compare_on_arrays(name: str):
    a = np.array([INT64_MAX, -INT64_MAX - 1, 0, 5, -1], np.int64)
    b = np.array([-1, 1, 0, 6, INT64_MAX], np.int64)
    plan, jit, _ = on_both(OVERFLOWS[name], a, b)
    assert_same(plan, jit)


def test_int64_overflow_then_compare_in_a_scalar_loop():
    def f(a, n):
        return rt.while_loop(lambda i, r: i < n, lambda i, r: (i + 1, a + 1 > a),
                             (rt.constant(0), a > a))[1]
    plan, jit, _ = on_both(f, np.int64(INT64_MAX), np.int32(1))
    assert_same(plan, jit)


@pytest.mark.parametrize("dtype", ["int32", "uint64"])
def test_overflow_then_compare_in_other_widths(dtype: str):
    """int32 is computed in 64 bits and uint64 wraps by definition: both give NumPy's."""
    info = np.iinfo(dtype)
    a = np.array([info.max, info.min, 0, 5], dtype)
    b = np.array([info.max, 1, 0, 6], dtype)

    def f(a, b):
        return {name: fn(a, b) for name, fn in OVERFLOWS.items()}
    plan, jit, _ = on_both(f, a, b)
    assert_same(plan, jit)


INTEGER_CONSTANTS = [np.int64(2**63 - 1), np.int64(-2**63 + 1), np.int32(-2**31),
                     np.int8(-128), np.uint64(2**64 - 1), np.uint64(2**63), np.uint32(2**32 - 1)]


@functools.lru_cache(maxsize=None)
def integer_constant_results() -> tuple:
    """Each constant written into one kernel as a literal, with operands of its dtype."""
    def f(*arrays):
        return [{"add": (a + c) * a, "xor": (a ^ c) - a, "floordiv": a // c + a}
                for a, c in zip(arrays, INTEGER_CONSTANTS)]
    arrays = []
    for constant in INTEGER_CONSTANTS:
        info = np.iinfo(constant.dtype)
        arrays.append(np.array([info.min, info.max, 0, 1, info.max // 3], constant.dtype))
    plan, jit, _ = on_both(f, *arrays)
    return plan, jit


@pytest.mark.parametrize("index", range(len(INTEGER_CONSTANTS)),
                         ids=[f"{c.dtype}({c})" for c in INTEGER_CONSTANTS])
def test_extreme_integer_constants(index: int):
    plan, jit = integer_constant_results()
    assert_same(plan[index], jit[index], repr(INTEGER_CONSTANTS[index]))


FLOAT_CONSTANTS = [np.nan, np.inf, -np.inf, -0.0, 1e-310, 3.4028235e38]


@functools.lru_cache(maxsize=None)
def float_constant_results(dtype: str) -> tuple:
    constants = [np.dtype(dtype).type(c) for c in FLOAT_CONSTANTS]

    def f(x):
        return [(x * c + 1.0, rt.maximum(x, c) - x) for c in constants]
    plan, jit, _ = on_both(f, np.array([1.0, -2.0, 0.0, np.inf, -0.0, np.nan], dtype))
    return plan, jit


@pytest.mark.parametrize("index", range(len(FLOAT_CONSTANTS)),
                         ids=[repr(c) for c in FLOAT_CONSTANTS])
def test_special_float_constants(index: int):
    plan, jit = float_constant_results("float64")
    assert_same(plan[index], jit[index], repr(FLOAT_CONSTANTS[index]))


# -- casts --------------------------------------------------------------------------------


CAST_SOURCES = {
    "bool": [True, False] * 8,
    "float32": [0.0, -0.0, 1.5, -1.5, np.nan, np.inf, -np.inf, 3.4e38, 1e-45, 0.1, -2.5e9,
                16777217.0, 255.5, -128.5, 1e30, 7.0],
    "float64": [0.0, -0.0, 1.5, -1.5, np.nan, np.inf, -np.inf, 1e300, 5e-324, 0.1, -2.5e9,
                2.0**53 + 1, 3.4028236e38, 1e-46, 1e30, 7.0],
}
for _dtype in INT_DTYPES:
    _info = np.iinfo(_dtype)
    CAST_SOURCES[_dtype] = [int(_info.min), int(_info.max), 0, 1, int(_info.max) // 3,
                            int(_info.min) + 1, 127, 128, 255, 256, 2**15, 2**16 + 3, 2**24 + 1,
                            2**31, 2**53 + 1, 7]
CAST_TARGETS = [d for d in DTYPES if d not in ("int16", "uint32")]


def _cast_source(dtype: str) -> np.ndarray:
    values = CAST_SOURCES[dtype]
    if _kind(dtype) in "iu":
        info = np.iinfo(dtype)
        values = [v if info.min <= v <= info.max else v % (int(info.max) + 1) if info.min == 0
                  else (v + 2**(info.bits - 1)) % 2**info.bits - 2**(info.bits - 1)
                  for v in values]
    with quiet():
        return np.array(values, dtype=dtype)


@functools.lru_cache(maxsize=None)
def cast_results() -> Results:
    sources = [_cast_source(d) for d in CAST_SOURCE_DTYPES]

    def casts(*arrays):
        return {f"{source}->{target}": rt.cast(array, getattr(rt, target, None) or target)
                for source, array in zip(CAST_SOURCE_DTYPES, arrays) for target in CAST_TARGETS
                if target != source}
    plan, jit, fn = on_both(casts, *sources)
    return Results(sources[0], sources[1], plan, jit, report_of(fn, *sources))


CAST_SOURCE_DTYPES = CAST_TARGETS  # int16 and uint32 widths: see the element tests


@pytest.mark.parametrize("source, target", [(s, t) for s in CAST_SOURCE_DTYPES
                                            for t in CAST_TARGETS if s != t])
def test_cast(source: str, target: str):
    results = cast_results()
    key = f"{source}->{target}"
    problem = mismatch(results.plan[key], results.jit[key])
    assert problem is None, f"cast {key}: {problem}"
    assert results.jit[key].dtype == np.dtype(target)


def test_float_to_int_casts_stay_on_the_plan_with_a_reason():
    report = cast_results().report
    assert "cast" in compiled_ops(report)
    refused = [line for line in left_on_plan(report) if line.strip().startswith("cast")]
    # float -> int: 2 float sources x each integer target
    assert len(refused) == 2 * len([d for d in CAST_TARGETS if _kind(d) in "iu"]), report
    assert all("no compiled form" in line for line in refused), refused


def test_identity_in_an_unoptimized_graph():
    """The passes remove identities; the tier still compiles them when handed a graph that
    has them (the backend's own entry point)."""
    from runtime.backends import NUMPY
    from runtime.backends.jit import JIT

    def f(x):
        y = rt.identity(x * 2) + 1
        return rt.cast(y, rt.int8) * rt.identity(x)

    x = np.array([[1, -2], [2**30, 7]], np.int32)
    graph = rt.function(f, jit_compile=False).get_concrete_function(x).unoptimized_graph
    assert "identity" in {node.op.name for node in graph.nodes}
    compiled = JIT.compile(graph, "f")
    assert {"identity", "cast"} <= compiled_ops(compiled.report), compiled.report
    expected = NUMPY.compile(graph, "f").run(x)
    got = compiled.run(x)
    assert len(expected) == len(got)
    for e, g in zip(expected, got):
        assert mismatch(e, g) is None


# -- reductions -----------------------------------------------------------------------------


REDUCTIONS = ["reduce_sum", "reduce_prod", "reduce_mean", "reduce_max", "reduce_min"]


def reduction_axis(dtype: str, name: str):
    """Every axis (a scalar accumulator) or some (an array of them): each reduction takes
    one path on integers and the other on floats (float ones over trailing axes, in NumPy's
    order; see test_float_reductions_over_any_axes)."""
    whole = (REDUCTIONS.index(name) % 2 == 0) == (_kind(dtype) == "f")
    return None if whole else ((1, 2) if _kind(dtype) == "f" else (0, 2))


@functools.lru_cache(maxsize=None)
def reduction_results(dtype: str) -> Results:
    rng = np.random.default_rng(5)
    if _kind(dtype) == "f":
        a = (rng.standard_normal((3, 4, 5)) * 3).astype(dtype)
        a[0, 0, 0], a[1, 1, 1], a[2, 2, 2] = np.nan, np.inf, -0.0
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (3, 4, 5), dtype=dtype, endpoint=True)

    def reduce(a):
        b = a - a // 3 if _kind(dtype) != "f" else a * 0.5 - 1.0  # joins the loop nest
        return {name: getattr(rt, name)(b, axis=reduction_axis(dtype, name))
                for name in REDUCTIONS}
    plan, jit, fn = on_both(reduce, a)
    return Results(a, a, plan, jit, report_of(fn, a))


@pytest.mark.parametrize("dtype", ["int32", "float64"])
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_in_a_loop_nest(dtype: str, name: str):
    results = reduction_results(dtype)
    assert name in compiled_ops(results.report), results.report
    problem = mismatch(results.plan[name], results.jit[name])
    assert problem is None, f"{name} of {dtype} over {reduction_axis(dtype, name)}: {problem}"


# Float sums must add in NumPy's order: where terms cancel, a small one is lost in one order
# and kept in another, and the results differ by far more than 1e-6 of their magnitude.
# (The first kernels added in order, float32 in float64: 0 where the plan gives 1.5.)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_float_sums_where_terms_cancel(dtype: str):
    if dtype == "float64":  # NumPy: 8 partial sums, 1e17 and -1e17 in the same one
        x = np.zeros(16)
        x[0], x[1], x[8] = 1e17, 1.0, -1e17
    else:                   # NumPy: float32 throughout, 1 is lost next to 1e8
        x = np.array([1e8, 1.0, -1e8], np.float32)
    plan, jit, _ = on_both(lambda x: rt.reduce_sum(x * 1.5), x)
    assert_same(plan, jit)


def test_float_reductions_over_any_axes():
    """Whichever axes a float reduction runs over (compiled or left on the plan), it gives
    the plan's result; cancelling terms make the order show."""
    x = np.random.default_rng(14).standard_normal((3, 4, 5)) * 1e16
    x[:, :, 1] = 1.0

    def f(x):
        y = x * 1.5
        return [rt.reduce_sum(y, axis=axis) for axis in (0, 1, 2, (0, 1), (0, 2), (1, 2))] + \
            [rt.reduce_prod(y * 1e-16, axis=1), rt.reduce_mean(y, axis=(0, 2))]
    plan, jit, _ = on_both(f, x)
    assert_same(plan, jit)


def test_reduce_max_of_zeros_of_both_signs():
    plan, jit, _ = on_both(lambda x: 1.0 / rt.reduce_max(x * 1.5, axis=0),
                           np.array([[0.0, -0.0], [-0.0, 0.0]]))
    assert_same(plan, jit)


def test_boolean_reductions_and_keepdims():
    p = np.random.default_rng(2).random((3, 4)) > 0.5
    x = np.arange(12.0).reshape(3, 4) - 5.0

    def f(p, x):
        q = rt.logical_and(rt.logical_not(p), x > 0.0)
        return (rt.reduce_any(q), rt.reduce_all(rt.logical_or(q, p), axis=1),
                rt.reduce_sum(x * 2.0 - 1.0, axis=-1, keepdims=True),
                rt.reduce_max(x * x, axis=0, keepdims=True))
    plan, jit, fn = on_both(f, p, x)
    assert_same(plan, jit)
    assert {"reduce_any", "reduce_all", "reduce_sum", "reduce_max"} <= \
        compiled_ops(report_of(fn, p, x))


def test_reductions_over_nothing():
    """Sums and products of empty axes give 0 and 1, max and min of nothing the dtype's
    extremes (TensorFlow's answers), on both."""
    def f(a):
        b = a * 2.0 + 1.0
        return (rt.reduce_sum(b, axis=1), rt.reduce_prod(b - 1.0, axis=1), rt.reduce_max(b),
                rt.reduce_min(b, axis=0))
    plan, jit, _ = on_both(f, np.ones((3, 0)))
    assert_same(plan, jit)
    assert plan[2] == -np.inf and plan[3].shape == (0,)


# -- shapes and layouts -----------------------------------------------------------------------


def broadcasts(a31, b14, c4, s, empty, cube):
    return {
        "outer": (a31 + b14) * c4,
        "scalar": (c4 - s) * s,
        "row": (b14 * 2.0 + c4) - a31 * 0.0,
        "empty": (empty * 2.0 + 1.0) * empty,
        "cube": rt.sigmoid(cube * c4) - cube,
        "same": (s + s) * s,
    }


BROADCAST_ARGS = (np.arange(3.0).reshape(3, 1), np.arange(4.0).reshape(1, 4) - 1.5,
                  np.array([1.0, -2.0, 0.5, 4.0]), np.float64(3.0), np.ones((0, 4)),
                  np.arange(24.0).reshape(2, 3, 4) / 7.0)


def test_broadcasting_scalars_and_empty_arrays():
    plan, jit, fn = on_both(broadcasts, *BROADCAST_ARGS)
    assert_same(plan, jit)
    assert counts(report_of(fn, *BROADCAST_ARGS))[0] >= 1


def test_non_contiguous_and_read_only_inputs():
    """Transposed, strided and read-only arrays give what contiguous ones give."""
    _, _, c4, s, empty, cube = BROADCAST_ARGS
    a31 = np.arange(6.0).reshape(3, 2)[:, :1]              # strided
    b14 = np.arange(-3.0, 5.0).reshape(1, 8)[:, ::2]       # strided
    fortran = np.asfortranarray(cube)                      # Fortran order
    frozen = c4.copy()
    frozen.flags.writeable = False                         # read-only
    assert not any(x.flags.c_contiguous for x in (a31, b14, fortran))
    args = (a31, b14, frozen, s, empty, fortran)
    plan, jit, _ = on_both(broadcasts, *args)
    assert_same(plan, jit)
    f = rt.function(broadcasts, jit_compile=True)
    assert_same(f(*args), f(*(np.ascontiguousarray(x) if np.ndim(x) else x for x in args)))


def test_results_are_fresh_arrays():
    """A kernel's result is not an input, and calling again does not overwrite it."""
    f = rt.function(lambda x: (x * 2.0 + 1.0, x), jit_compile=True)
    x = np.arange(4.0)
    first, same = f(x)
    second, _ = f(x + 1.0)
    assert first.numpy().tolist() == [1.0, 3.0, 5.0, 7.0]
    assert second.numpy().tolist() == [3.0, 5.0, 7.0, 9.0]
    assert same.numpy().tolist() == x.tolist()


def test_a_value_returned_twice_and_an_input_returned():
    def f(x, y):
        z = (x + y) * y
        return z, z, x, (z - x) * 2.0
    x, y = np.arange(6.0).reshape(2, 3), np.full((2, 3), 0.5)
    plan, jit, _ = on_both(f, x, y)
    assert_same(plan, jit)


# --------------------------------------------------------------------------------------------
# Loops over scalars written in Python


def collatz(n):
    steps = n * 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def wrapping_sum(x, n):
    total = x * 0
    for i in range(n):
        total = total + x * (i + 1)
    return total


def first_divisor(x, n):
    for i in range(n):
        if i > 1 and x % i == 0:
            return i
    return x * 0 - 1


def isqrt_by_break(x):
    i = x * 0
    while True:
        if (i + 1) * (i + 1) > x:
            break
        i += 1
    return i


def newton_sqrt(x, n):
    y = x
    for _ in range(n):
        y = 0.5 * (y + x / y)
    return y


def wrap(value: int, dtype: str) -> int:
    bits = np.iinfo(dtype).bits
    return (value + 2**(bits - 1)) % 2**bits - 2**(bits - 1)


SCALAR_PROGRAMS = [
    (collatz, [(1,), (6,), (27,), (97,), (871,)], True),
    (gcd, [(12, 18), (-12, 18), (12, -18), (0, 5), (5, 0), (0, 0), (1071, 462)], True),
    (wrapping_sum, [(2**29, 10), (-7, 0), (-7, -3), (3, 5), (2**30, 3)], False),
    (first_divisor, [(91, 100), (97, 100), (0, 5), (15, 2), (-21, 10)], True),
    (isqrt_by_break, [(0,), (1,), (15,), (16,), (1000,)], True),
]


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("program, inputs, python_matches",
                         [pytest.param(*p, id=p[0].__name__) for p in SCALAR_PROGRAMS])
def test_scalar_loops(dtype: str, program, inputs, python_matches: bool):
    plan_fn = transpiler.function(program, jit_compile=False)
    jit_fn = transpiler.function(program, jit_compile=True)
    for values in inputs:
        args = tuple(rt.constant(v, getattr(rt, dtype)) for v in values)
        with quiet():
            plan, jit = plan_fn(*args), jit_fn(*args)
        assert_same(plan, jit, f"{program.__name__}{values}")
        assert jit.dtype == getattr(rt, dtype)
        expected = program(*values)
        if not python_matches:
            expected = wrap(expected, dtype)
        assert int(jit.numpy()) == expected, (program.__name__, values)
    report = report_of(jit_fn, *args)
    assert counts(report)[0] >= 1 and "while_loop" in compiled_ops(report), report


def test_wrapping_sum_wraps_like_numpy():
    fn = transpiler.function(wrapping_sum, jit_compile=True)
    result = fn(rt.constant(2**30, rt.int32), rt.constant(4, rt.int32))
    assert int(result.numpy()) == wrap(2**30 * 10, "int32")
    result = fn(rt.constant(2**62, rt.int64), rt.constant(4, rt.int64))
    assert int(result.numpy()) == wrap(2**62 * 10, "int64")


def test_float_loop_matches_python():
    plan_fn = transpiler.function(newton_sqrt, jit_compile=False)
    jit_fn = transpiler.function(newton_sqrt, jit_compile=True)
    for x, n in [(2.0, 6), (1e10, 40), (0.0, 3), (-4.0, 5), (np.inf, 2), (0.25, 0)]:
        args = (rt.constant(x, rt.float64), rt.constant(n))
        with quiet():
            plan, jit = plan_fn(*args), jit_fn(*args)
            expected = np.float64(newton_sqrt(np.float64(x), n))
        assert_same(plan, jit)
        assert mismatch(expected, jit.numpy()) is None, (x, n, expected, jit)
    assert "while_loop" in compiled_ops(report_of(jit_fn, *args))


def test_loop_over_arrays_with_a_branch():
    def f(v, w, n):
        for i in range(n):
            if i % 2 == 0:
                v = v * 0.5 + w
            else:
                v = rt.nn.relu(v - w * 2.0)
        return v
    v, w = np.linspace(-2.0, 3.0, 6), np.full(6, 0.75)
    both = Both(f, transpiler.function)
    for n in (0, 1, 4, 7):
        both(v, w, rt.constant(n))
    assert "while_loop" in compiled_ops(both.report(v, w, rt.constant(1)))


def test_maximum_iterations_bound_the_compiled_loop():
    def f(x, n):
        i = 0
        while x < 1000:
            transpiler.set_loop_options(maximum_iterations=5)
            x = x * 2 + 1
            i += 1
        return x, i
    both = Both(f, transpiler.function)
    for x in (0, 100, 2000, -3):
        both(rt.constant(x), rt.constant(0))
    assert "while_loop" in compiled_ops(both.report(rt.constant(1), rt.constant(0)))


# --------------------------------------------------------------------------------------------
# Matmul and layers


@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integer_matmul_wraps_around(dtype: str):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(3)
    a = rng.integers(info.min, info.max, (3, 5), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (5, 4), dtype=dtype, endpoint=True)
    a[0, :] = info.max
    b[:, 0] = info.max
    plan, jit, fn = on_both(rt.matmul, a, b)
    assert_same(plan, jit)
    assert "matmul" in compiled_ops(report_of(fn, a, b))
    with quiet():
        assert np.array_equal(jit.numpy(), a @ b)


def test_integer_matmul_with_an_epilogue_and_empty_inner_dimension():
    def f(a, b, c):
        return rt.matmul(a, b) * 3 + c
    a = np.arange(-6, 9, dtype=np.int64).reshape(3, 5) * 2**40
    b = np.arange(20, dtype=np.int64).reshape(5, 4) * 2**30
    c = np.array([1, -2, 3, 2**62], np.int64)
    both = Both(f)
    both(a, b, c)
    both(np.ones((3, 0), np.int64), np.ones((0, 4), np.int64), c)


def dense(x, weights, biases):
    for w, b in zip(weights, biases):
        x = rt.nn.relu(rt.matmul(x, w) + b)
    return x


def layers(dtype, count: int, width: int = 6, seed: int = 0):
    rng = np.random.default_rng(seed)
    weights = [(rng.standard_normal((width, width)) / 2).astype(dtype) for _ in range(count)]
    biases = [(rng.standard_normal(width) / 4).astype(dtype) for _ in range(count)]
    return weights, biases


# Six float64 layers of one shape: the tests below roll chains of them (kernels with the same
# source are compiled once per process, so they share most of their compiles).
WEIGHTS, BIASES = layers("float64", 6)
X = np.random.default_rng(1).standard_normal((4, 6))


def test_dense_layers_roll_into_one_kernel():
    plan, jit, fn = on_both(lambda x: dense(x, WEIGHTS, BIASES), X)
    assert_same(plan, jit)
    report = report_of(fn, X)
    assert counts(report) == (1, 1), report
    assert re.search(r"kernel_\w+: 18 nodes \(add, matmul, relu\)", report), report


def test_float32_layers():
    weights, biases = layers("float32", 3, width=5, seed=13)
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    plan, jit, fn = on_both(lambda x: dense(x, weights, biases), x)
    assert_same(plan, jit)
    assert jit.dtype == rt.float32 and counts(report_of(fn, x))[0] == 1


def test_integer_layers_roll_and_wrap_around():
    rng = np.random.default_rng(4)
    weights = [rng.integers(-2**31, 2**31, (5, 5), dtype=np.int32) for _ in range(5)]
    biases = [rng.integers(-2**31, 2**31, 5, dtype=np.int32) for _ in range(5)]
    x = rng.integers(-2**31, 2**31, (3, 5), dtype=np.int32)
    plan, jit, fn = on_both(lambda x: dense(x, weights, biases), x)
    assert_same(plan, jit)
    assert counts(report_of(fn, x)) == (1, 1)


def test_layers_sharing_one_weight_roll():
    plan, jit, fn = on_both(lambda x: dense(x, WEIGHTS[:1] * 6, BIASES[:1] * 6), X)
    assert_same(plan, jit)
    assert counts(report_of(fn, X)) == (1, 1)


def test_a_chain_whose_middle_is_returned_does_not_roll_through_it():
    def f(x):
        kept = []
        for i, (w, b) in enumerate(zip(WEIGHTS, BIASES)):
            x = rt.nn.relu(rt.matmul(x, w) + b)
            if i == 2:
                kept.append(x)
        return x, kept[0]
    plan, jit, fn = on_both(f, X)
    assert_same(plan, jit)
    assert counts(report_of(fn, X)) == (2, 1)  # layers 0-2 and 3-5, one kernel


def test_a_chain_whose_middle_is_read_later_does_not_roll_through_it():
    def f(x):
        middle = None
        for i, (w, b) in enumerate(zip(WEIGHTS, BIASES)):
            x = rt.nn.relu(rt.matmul(x, w) + b)
            if i == 2:
                middle = x
        return rt.reshape(x, [-1]) - rt.reshape(middle, [-1]) * 2.0
    plan, jit, fn = on_both(f, X)
    assert_same(plan, jit)
    # layers 0-2 rolled, layers 3-4 rolled, layer 5 with the reshapes and the difference
    assert counts(report_of(fn, X)) == (3, 3)


def test_residual_layers_reading_the_input_of_the_chain():
    def f(x):
        x0 = x
        for w, b in zip(WEIGHTS[:4], BIASES[:4]):
            x = rt.tanh(rt.matmul(x, w) + b) + x0
        return x
    plan, jit, fn = on_both(f, X)
    assert_same(plan, jit)
    # the first layer reads x once (it is x0 too), the others twice: layers 1-3 roll
    assert counts(report_of(fn, X)) == (2, 2)


def test_unrolled_python_loop_of_tensor_loops():
    factors = [np.full(3, float(k + 2)) for k in range(4)]

    def f(x, n):
        for w in factors:
            i = 0
            while i < n:
                x = x * w - 1.0
                i += 1
        return x
    both = Both(f, transpiler.function)
    for n in (0, 1, 3):
        both(np.arange(3.0), rt.constant(n))
    assert "while_loop" in compiled_ops(both.report(np.arange(3.0), rt.constant(1)))


def test_a_float_matmul_alone_stays_on_blas_and_with_work_is_compiled():
    a, b = np.ones((2, 3)), np.ones((3, 4))
    plan, jit, fn = on_both(rt.matmul, a, b)
    assert_same(plan, jit)
    report = report_of(fn, a, b)
    assert counts(report)[0] == 0 and any("matmul" in line for line in left_on_plan(report))
    plan, jit, fn = on_both(lambda a, b: rt.nn.relu(rt.matmul(a, b) - 2.5) * 2.0, a, b)
    assert_same(plan, jit)
    assert "matmul" in compiled_ops(report_of(fn, a, b))


def test_empty_float_matmuls():
    def f(a, b, c):
        return rt.nn.relu(rt.matmul(a, b) + c) * 2.0
    both = Both(f)
    both(np.ones((3, 0)), np.ones((0, 4)), np.ones(4))


def test_gradients_computed_inside_the_function():
    weights, biases = layers("float64", 3, seed=7)

    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(dense(x, weights, biases) * x)
        return y, tape.gradient(y, x)
    x = np.random.default_rng(1).standard_normal((2, 6))
    plan, jit, fn = on_both(f, x, decorate=transpiler.function)
    assert_same(plan, jit)
    assert counts(report_of(fn, x))[0] >= 1


# --------------------------------------------------------------------------------------------
# Regions next to what stays on the NumPy plan


def test_regions_around_gather_and_print(capsys):
    def f(x, y):
        h = (x * 2.0 + y) * y
        r = rt.reshape(h, [-1])
        g = rt.gather(r, [0, 3, 5])
        rt.print("h", g)
        z = (rt.exp(h) - 1.0) * y
        return rt.reduce_sum(h, axis=1), g, z * 3.0 + r[2]
    rng = np.random.default_rng(8)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    plan_fn = transpiler.function(f, jit_compile=False)
    jit_fn = transpiler.function(f, jit_compile=True)
    plan = plan_fn(x, y)
    printed = capsys.readouterr().out
    jit = jit_fn(x, y)
    assert capsys.readouterr().out == printed and printed.startswith("h")
    assert_same(plan, jit)
    report = report_of(jit_fn, x, y)
    left = "\n".join(left_on_plan(report))
    assert counts(report)[0] >= 1
    for op in ("gather", "print"):
        assert re.search(rf"^\s+{op} %\d+ at .*: \S", left, re.M), report
    assert re.search(r"print .*: it has effects", left), report
    assert "reshape" in compiled_ops(report)


def test_dynamic_shapes_stay_on_the_plan():
    def f(x, y):
        return (x * 2.0 + y) * y - 1.0
    signature = [rt.TensorSpec([None, 4], rt.float64), rt.TensorSpec([None, 4], rt.float64)]
    plan_fn = rt.function(f, jit_compile=False, input_signature=signature)
    jit_fn = rt.function(f, jit_compile=True, input_signature=signature)
    for rows in (1, 3, 0):
        x = np.arange(rows * 4.0).reshape(rows, 4)
        assert_same(plan_fn(x, x + 1.0), jit_fn(x, x + 1.0))
    report = jit_fn.get_concrete_function().jit_report
    assert counts(report)[0] == 0
    assert all("a shape is not fully known while tracing" in line
               for line in left_on_plan(report)), report


def test_unsupported_dtypes_and_ops_stay_on_the_plan():
    def f(x, y, i):
        half = (x + x) * x                     # float16: not compiled
        ints = rt.sigmoid(i) + rt.cast(i, rt.float64)  # sigmoid of int32 gives float64
        return half, ints, (y * 2.0 + 1.0) * y
    x = np.linspace(-1, 1, 4).astype(np.float16)
    y, i = np.linspace(-1, 1, 4), np.arange(4, dtype=np.int32)
    plan, jit, fn = on_both(f, x, y, i)
    assert_same(plan, jit)
    report = report_of(fn, x, y, i)
    left = "\n".join(left_on_plan(report))
    assert "its dtype float16 is not compiled" in left, report
    assert re.search(r"sigmoid .*: sigmoid of int32 has no compiled form", left), report
    assert counts(report)[0] == 1


def test_a_loop_with_a_print_keeps_compiled_regions_inside_and_around(capsys):
    def f(x, n):
        y = (x * 2.0 + 1.0) * x
        i = 0
        s = x * 0.0
        while i < n:
            print("i", i)
            if i % 2 == 0:
                s = s + y * 2.0 - 1.0
            else:
                s = s - y
            i += 1
        return s
    x = np.arange(3.0)
    plan, jit, fn = on_both(f, x, rt.constant(3), decorate=transpiler.function)
    assert_same(plan, jit)
    out = capsys.readouterr().out
    assert out.count("i 0") == 2
    report = report_of(fn, x, rt.constant(3))
    assert re.search(r"while_loop .*: it has effects", "\n".join(left_on_plan(report))), report
    assert counts(report)[0] >= 2 and "cond" in compiled_ops(report), report


def test_a_branch_compiled_whole():
    def f(x, y):
        if rt.reduce_sum(x) > 0:
            z = x * 2.0 + y
        else:
            z = x - y * 3.0
        return z
    both = Both(f, transpiler.function)
    for sign in (1.0, -1.0):
        x, y = sign * np.arange(4.0), np.ones(4)
        both(x, y)
    assert "cond" in compiled_ops(both.report(x, y))


def test_a_kernel_that_fails_to_compile_leaves_its_ops_on_the_plan(monkeypatch):
    import runtime.backends.jit as jit

    def refuse(sources, numba=True, exact=False, build=True, quick=False):
        return [RuntimeError("a kernel the compiler refused\nwith details on a second line")
                for _ in sources]
    monkeypatch.setattr(jit, "compile_kernels", refuse)

    def f(x):
        return (x * 2.0 + 1.0) * x
    with pytest.warns(rt.errors.CompileWarning, match=r"test_jit_tier.py.*NumPy plan"):
        jit_fn = rt.function(f, jit_compile=True)
        result = jit_fn(np.arange(3.0))
    np.testing.assert_array_equal(result.numpy(), f(np.arange(3.0)))
    report = jit_fn.get_concrete_function(np.arange(3.0)).jit_report
    assert "0 regions" in report and "failed to compile (RuntimeError: a kernel" in report


def test_reductions_over_no_axes_stay_exact():
    def f(x):
        y = x * 2.0 - 1.0
        return rt.reduce_sum(y, axis=()), rt.reduce_max(y * y, axis=(), keepdims=True)
    both = Both(f)
    both(np.array([[-0.0, 1.5], [2.0, -3.0]]) * 0.5)


def test_a_branch_or_loop_body_that_returns_a_constant_array():
    def f(x, n):
        i = 0
        while i < n:
            if i % 2 == 0:
                x = x * 2.0 + 1.0
            else:
                x = rt.constant([1.0, 2.0, 3.0], rt.float64)
            i += 1
        return x
    both = Both(f, transpiler.function)
    for n in (0, 1, 2, 3):
        both(np.arange(3.0), np.int32(n))
    assert "while_loop" in compiled_ops(both.report(np.arange(3.0), np.int32(3)))


def test_variables_read_and_assigned_between_regions():
    def model():
        v = rt.Variable(np.ones(4))
        w = rt.Variable(np.full(4, 2.0))

        def step(x, n):
            y = (v * 2.0 + x) * x
            v.assign(y - 1.0)
            z = (v * 3.0 + 1.0) * w
            w.assign_add(z * 0.5 - x)
            if n > 0:
                v.assign(v * 0.5 + w)
            q = (v + w) * 2.0 - x
            i = 0
            while i < n:
                w.assign(w * 0.5 + 1.0)
                i += 1
            return y, z, q, (w * v) + x * 2.0
        return step, v, w

    plan_step, plan_v, plan_w = model()
    jit_step, jit_v, jit_w = model()
    plan_fn = transpiler.function(plan_step, jit_compile=False)
    jit_fn = transpiler.function(jit_step, jit_compile=True)
    x = np.linspace(-1.0, 1.0, 4)
    for n in (0, 2, 1, 0):
        assert_same(plan_fn(x, rt.constant(n)), jit_fn(x, rt.constant(n)), f"n={n}")
        assert mismatch(plan_v.numpy(), jit_v.numpy()) is None
        assert mismatch(plan_w.numpy(), jit_w.numpy()) is None
    assert counts(report_of(jit_fn, x, rt.constant(0)))[0] >= 2
    # Reads moved up to their last assignment keep the compiled graph's invariants.
    jit_fn.get_concrete_function(x, rt.constant(0)).executable.graph.lint()


def test_updates_are_computed_by_kernels_and_stored():
    """An optimizer's ``assign_sub``/``assign_add`` of many variables: kernels compute the
    stored values, the plan only stores them, with the plan's bits step after step."""
    def model():
        weights = [rt.Variable(np.linspace(-1.0, 1.0, 6).reshape(2, 3) * k) for k in (1, 2)]
        slots = [rt.Variable(np.zeros((2, 3))) for _ in weights]

        def step(x):
            for w, m in zip(weights, slots):
                m.assign_add((x * w - m) * 0.1)
                w.assign_sub(m * 0.5 + x)
            return weights[0] * weights[1]
        return step, weights + slots

    plan_step, plan_variables = model()
    jit_step, jit_variables = model()
    plan_fn = transpiler.function(plan_step, jit_compile=False)
    jit_fn = transpiler.function(jit_step, jit_compile=True)
    x = np.full((2, 3), 0.25)
    for _ in range(3):
        assert_same(plan_fn(x), jit_fn(x))
        for p, j in zip(plan_variables, jit_variables):
            assert mismatch(p.numpy(), j.numpy()) is None
    report = jit_fn.get_concrete_function(x).jit_report  # the writes stay on the plan
    assert report.count("store_update") == 4 and "assign_variable" not in report, report


class TestStoringAComputedUpdate:
    """``store_update``'s writer: the kernel's value is stored only when the variable still
    holds the value it was computed from and nothing else holds it; otherwise the update is
    made again from what the variable holds (atomic, as ``assign_sub`` is)."""

    def setup_method(self):
        self.variable = rt.Variable(np.arange(4.0))
        self.old = self.variable._value
        self.delta = np.full(4, 0.5)
        self.write = plan_writes.update_writer(self.variable, "sub", owned=True)

    def computed(self):
        return self.old - self.delta

    def test_the_computed_value_itself_is_stored(self, tmp_path):
        # In a new interpreter: PyTorch's Dynamo, imported by other tests of this process,
        # evaluates frames itself, and its calls hold one reference more (the writer then
        # makes the update again, with the same bits).
        lines = run_alone("""
            import numpy as np, runtime as rt
            from runtime import plan_writes
            variable = rt.Variable(np.arange(4.0))
            old, delta = variable._value, np.full(4, 0.5)
            write = plan_writes.update_writer(variable, "sub", owned=True)
            new = old - delta  # held by this name only, as a plan holds a kernel's result
            identity = id(new)
            write(new, old, delta)
            print(id(variable._value) == identity, variable._value.flags.writeable,
                  variable.numpy().tolist())""", tmp_path)
        assert lines == ["True False [-0.5, 0.5, 1.5, 2.5]"], lines

    def test_another_write_in_between_is_kept(self):
        self.variable.assign(np.full(4, 10.0))
        self.write(self.computed(), self.old, self.delta)
        assert self.variable.numpy().tolist() == [9.5] * 4

    def test_a_value_held_elsewhere_or_a_view_is_not_stored(self):
        new = self.computed()
        elsewhere = [new]  # besides the name a plan would hold it by
        self.write(new, self.old, self.delta)
        assert self.variable._value is not elsewhere[0] and new.flags.writeable
        self.old = self.variable._value
        self.write(np.concatenate([self.computed(), [0.0]])[:4], self.old, self.delta)
        assert self.variable._value.base is None
        assert self.variable.numpy().tolist() == [-1.0, 0.0, 1.0, 2.0]


# --------------------------------------------------------------------------------------------
# Reports, kernels shared, plan source


def test_reports_of_each_setting():
    def f(x):
        return (x + 1.0) * x
    x = np.arange(3.0)
    assert rt.function(f, jit_compile=False).get_concrete_function(x).jit_report == \
        "runs on the NumPy plan (jit_compile=False)."
    jit_fn = rt.function(f, jit_compile=True)
    report = report_of(jit_fn, x)
    assert counts(report) == (1, 1)
    assert re.search(r"kernel_[0-9a-f]{8}: 2 nodes \(add, multiply\) from \S+\.py:\d+", report)
    source = jit_fn.get_concrete_function(x).plan_source
    assert "def kernel(" in source and re.search(r"# kernel_[0-9a-f]{8}", source)


def test_the_traced_graph_is_left_alone_and_saves(tmp_path):
    """The tier compiles a copy: the concrete function's graph has no kernels in it, and a
    saved jit function loads and runs (on the NumPy plan)."""
    fn = rt.function(lambda x: (x * 2.0 + 1.0) * x, jit_compile=True)
    x = np.arange(3.0)
    concrete = fn.get_concrete_function(x)
    assert "compiled_region" not in {node.op.name for node in concrete.graph.walk()}
    assert counts(concrete.jit_report)[0] == 1
    rt.save(concrete, tmp_path / "f.e2g")
    loaded = rt.load(tmp_path / "f.e2g")
    assert mismatch(fn(x), loaded(x)) is None


def test_identical_layers_share_one_kernel_once_merging_is_out_of_budget(monkeypatch):
    weights, biases = layers("float64", 2, seed=9)

    def f(x, y):
        a = rt.nn.relu(rt.matmul(x, weights[0]) + biases[0])
        b = rt.nn.relu(rt.matmul(y, weights[1]) + biases[1])
        return a, b     # two results: not a chain
    x = np.ones((2, 6))
    plan, jit, fn = on_both(f, x, x * 2.0)
    assert_same(plan, jit)
    assert counts(report_of(fn, x, x * 2.0)) == (1, 1)  # within budget: merged
    monkeypatch.setattr(merging, "MERGED_NODES_BUDGET", 0)
    plan, jit, fn = on_both(f, x, x * 2.0)
    assert_same(plan, jit)
    assert counts(report_of(fn, x, x * 2.0)) == (2, 1)  # one kernel, called twice


def test_wait_for_jit_and_report_with_jit_compile_true_or_false():
    x = np.arange(3.0)
    for setting in (True, False):
        fn = rt.function(lambda x: (x + 1.0) * x, jit_compile=setting)  # a kernel compiled before
        fn(x)
        concrete = fn.get_concrete_function(x)
        assert concrete.wait_for_jit(0) is True


# --------------------------------------------------------------------------------------------
# Tiering: jit_compile=None


@pytest.fixture
def auto_compile_after(monkeypatch):
    """Sets how many calls start a background compile (restored after the test)."""
    previous = []

    def set_to(calls):
        if hasattr(rt.config, "set_jit_auto_compile"):
            previous.append(rt.config.jit_auto_compile_after())
            rt.config.set_jit_auto_compile(calls)
        else:  # the first version: a constant of runtime.tiering
            monkeypatch.setattr(tiering, "AUTO_COMPILE_AFTER_CALLS", calls)
    yield set_to
    if previous:
        rt.config.set_jit_auto_compile(previous[0])


def test_tiering_switches_after_some_calls_and_keeps_the_results(auto_compile_after):
    auto_compile_after(3)
    scale = unique_constant()

    def f(x, y):
        return rt.nn.relu((x + y) * scale - x) * y
    fn = transpiler.function(f)  # jit_compile=None
    rng = np.random.default_rng(10)
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    concrete = fn.get_concrete_function(x, y)
    assert "after 3 calls (0 so far)" in concrete.jit_report
    expected = transpiler.function(f, jit_compile=False)(x, y).numpy()
    results = [fn(x, y).numpy() for _ in range(2)]
    assert "(2 so far)" in concrete.jit_report
    results += [fn(x, y).numpy() for _ in range(3)]  # the compile starts on the third
    assert concrete.wait_for_jit(60) is True
    report = concrete.jit_report
    assert report.startswith("compiled tier: 1 region"), report
    assert {"add", "multiply", "subtract", "relu"} <= compiled_ops(report)
    results += [fn(x, y).numpy() for _ in range(5)]  # the fast path, now compiled
    results.append(fn(x=x, y=y).numpy())            # the general path
    for result in results:
        assert mismatch(expected, result) is None
    other = rng.standard_normal((3, 4))
    assert mismatch(transpiler.function(f, jit_compile=False)(other, y), fn(other, y)) is None


def test_calls_during_the_background_compile_give_the_same_results(auto_compile_after):
    auto_compile_after(1)
    weights, biases = layers("float64", 3, seed=11)
    scale = unique_constant()

    def f(x):
        return dense(x, weights, biases) * scale
    x = np.random.default_rng(12).standard_normal((4, 6))
    expected = rt.function(f, jit_compile=False)(x).numpy()
    fn = rt.function(f)
    results, errors = [], []

    def caller():
        try:
            for _ in range(200):
                results.append(fn(x).numpy())
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)
    threads = [threading.Thread(target=caller) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    concrete = fn.get_concrete_function(x)
    assert concrete.wait_for_jit(60)
    assert not errors
    assert concrete.jit_report.startswith("compiled tier:")
    for result in results + [fn(x).numpy()]:
        assert mismatch(expected, result) is None


def test_tiering_when_nothing_is_worth_compiling(auto_compile_after):
    auto_compile_after(2)
    fn = rt.function(lambda x: x + 1.0)
    x = np.arange(3.0)
    for _ in range(3):
        fn(x)
    concrete = fn.get_concrete_function(x)
    assert concrete.wait_for_jit(60)
    assert "found nothing worth compiling" in concrete.jit_report
    assert fn(x).numpy().tolist() == [1.0, 2.0, 3.0]


def test_tiering_when_the_compile_fails(auto_compile_after, tmp_path):
    auto_compile_after(2)
    unsafe = tmp_path / "unsafe"
    unsafe.mkdir()
    unsafe.chmod(0o777)
    scale = unique_constant()

    def f(x):
        return (x * scale + 1.0) * x
    fn = rt.function(f)
    x = np.arange(4.0)
    with cache_directory(unsafe):
        results = [fn(x).numpy() for _ in range(3)]
        concrete = fn.get_concrete_function(x)
        assert concrete.wait_for_jit(60)
    assert "failed with PermissionError" in concrete.jit_report, concrete.jit_report
    results += [fn(x).numpy() for _ in range(3)]
    expected = rt.function(f, jit_compile=False)(x).numpy()
    for result in results:
        assert mismatch(expected, result) is None


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_a_forked_c_build = pytest.mark.skipif(
    not (builds_with_c() and sys.platform.startswith("linux")),
    reason="background builds in a child need C and Linux's fork")


def run_alone(program: str, tmp_path, *args: str) -> list[str]:
    """``program``'s output lines, run by a new interpreter: this one has imported JAX and
    PyTorch, whose thread pools keep builds out of forked children (a thread compiles)."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(program), *args],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")})
    assert done.returncode == 0 and not done.stderr, done.stderr
    return done.stdout.splitlines()


@needs_a_forked_c_build
def test_the_background_compile_runs_in_a_child_process(tmp_path):
    """The compiler runs in a forked child (not in turns with the calls, as a thread
    would); the program loads what it built, and gives the same results. With an empty
    kernel cache a child builds at once; with a cache that holds other modules the program
    looks for the kernels itself and, when they are not there, a child builds them; the next
    program finds them itself, with no child."""
    builders = tmp_path / "builders"
    program = f"""
        import os, sys, numpy as np, runtime as rt
        from runtime.backends.jit import c_build
        build = c_build._build
        def recorded_build(*args):
            with open({str(builders)!r}, "a") as file:  # the child's output goes nowhere
                file.write(str(os.getpid()) + " ")
            build(*args)
        c_build._build = recorded_build
        rt.config.set_jit_auto_compile(1)
        def children(f, x):
            fn, plan = rt.function(f), rt.function(f, jit_compile=False)
            fn(x)
            concrete = fn.get_concrete_function(x)
            assert concrete.wait_for_jit(60)
            assert concrete.jit_report.startswith("compiled tier: 1 region")
            assert fn(x).numpy().tobytes() == plan(x).numpy().tobytes()
            return concrete._background._children
        x = np.linspace(-2.0, 2.0, 7)
        if sys.argv[-1] == "first":  # another function's module in an empty cache
            print(children(lambda x: rt.tanh(x * 1.5) + x, x))
        print(children(lambda x: rt.exp(x * 0.75) - x, x), os.getpid())"""
    first = run_alone(program, tmp_path, "first")
    again = run_alone(program, tmp_path)
    assert first[0] == "1" and first[1].split()[0] == "1" and again[0].split()[0] == "0", \
        (first, again)
    built_by = builders.read_text().split()
    assert len(built_by) == 2 and first[1].split()[1] not in built_by, built_by  # children


@needs_a_forked_c_build
def test_a_child_that_built_another_batch_is_followed_by_another(tmp_path):
    """The program builds nothing itself: when the child's module is not the one it needs
    (another function's kernels came in between), a new child builds that one."""
    lines = run_alone("""
        import numpy as np, runtime as rt
        from runtime import tiering
        build_in_child = tiering.BackgroundCompile._build
        def first_child_builds_nothing(self):
            if self._children > 0:  # counted in the program when this child was made
                build_in_child(self)
        tiering.BackgroundCompile._build = first_child_builds_nothing
        rt.config.set_jit_auto_compile(1)
        fn = rt.function(lambda x: (x * 1.25 + 1.0) * x)
        fn(np.arange(5.0))
        concrete = fn.get_concrete_function(np.arange(5.0))
        assert concrete.wait_for_jit(60)
        print(concrete._background._children)
        print(concrete.jit_report.splitlines()[0])""", tmp_path)
    assert lines[0] == "2" and lines[1].startswith("compiled tier: 1 region"), lines


def process_state(pid: int) -> str | None:
    """``pid``'s state letter (``Z`` for one ended but not reaped), None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return None


def wait_until_ended(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while process_state(pid) not in (None, "Z"):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@needs_a_forked_c_build
def test_a_child_still_building_when_the_program_ends_finishes_on_its_own(tmp_path):
    """A program that ends while its child builds leaves the child to finish at the lowest
    priority, holding none of the program's files (so whoever waits for the program's output
    is not kept waiting), and the child still ends at its time limit."""
    began = time.monotonic()
    lines = run_alone("""
        import os, time, numpy as np, runtime as rt
        from runtime import tiering
        from runtime.backends.jit import c_build
        c_build._build = lambda *args: time.sleep(60)
        tiering.CHILD_SECONDS = 3
        os.dup(1)  # a copy of the caller's pipe, as pytest's capture keeps one
        rt.config.set_jit_auto_compile(1)
        f = rt.function(lambda x: (x * 3.0 - 1.0) * x)
        f(np.arange(4.0))
        time.sleep(0.3)
        print(f.get_concrete_function(np.arange(4.0))._background._child.pid)""", tmp_path)
    assert time.monotonic() - began < 2.5  # the program's output ended with the program
    pid = int(lines[-1])
    assert process_state(pid) not in (None, "Z")
    assert os.getpriority(os.PRIO_PROCESS, pid) == 19
    assert wait_until_ended(pid, 10)


@needs_a_forked_c_build
def test_a_function_that_earned_a_build_leaves_it_behind_for_the_next_run(tmp_path):
    """A program that ends before a hot function paid for its build leaves a child to build
    the kernels; the next run loads them from the cache itself, without a child."""
    program = """
        import sys, numpy as np, runtime as rt
        from runtime import tiering
        if sys.argv[-1] == "first":  # the build earned, the switch never paid in this run
            tiering.C_BUILD_SECONDS = tiering.C_BUILD_SECONDS_PER_NODE = 0.0
            tiering.WORTH_IT = 10 ** 9
        else:
            rt.config.set_jit_auto_compile(1)
        fn = rt.function(lambda x: (x * 0.625 + 2.0) * x)
        x = np.arange(6.0)
        for _ in range(3 * tiering.SAMPLE_EVERY):
            fn(x)
        concrete = fn.get_concrete_function(x)
        if sys.argv[-1] == "first":
            print(concrete._background.worth_building_behind())
        else:
            assert concrete.wait_for_jit(60)
            print(concrete._background._children, concrete.jit_report.splitlines()[0])"""
    assert run_alone(program, tmp_path, "first") == ["True"]
    kernels = tmp_path / "cache" / "eager2graph" / "kernels"
    deadline = time.monotonic() + 60
    while not list(kernels.glob("*.so")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(0.2)  # the index is written after the module
    lines = run_alone(program, tmp_path, "again")
    assert lines[0].startswith("0 compiled tier: 1 region"), lines


SLOW_RECORDED_BUILD = """
    import os, sys, time
    from runtime.backends.jit import c_build
    build = c_build._build
    def slow_recorded_build(*args):
        with open(sys.argv[-1], "a") as file:  # a child's output goes nowhere
            file.write(str(os.getpid()) + " ")
        time.sleep(1.0)
        build(*args)
    c_build._build = slow_recorded_build
"""


@needs_a_forked_c_build
def test_processes_needing_the_same_module_build_it_once(tmp_path):
    """Two programs compiling the same kernels at the same time: one builds the module, the
    other waits for it (its build lock) and loads it."""
    builders = tmp_path / "builders"
    program = textwrap.dedent(SLOW_RECORDED_BUILD) + textwrap.dedent("""
        import numpy as np, runtime as rt
        fn = rt.function(lambda x: (x * 0.375 - 2.0) * x, jit_compile=True)
        print(fn(np.arange(5.0)).numpy().tolist())""")
    environment = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    runs = [subprocess.Popen([sys.executable, "-c", program, str(builders)], cwd=ROOT,
                             env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for _ in range(2)]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert all(run.returncode == 0 and not err for run, (_, err) in zip(runs, outputs)), outputs
    assert outputs[0][0] == outputs[1][0] == "[-0.0, -1.625, -2.5, -2.625, -2.0]\n"
    assert len(builders.read_text().split()) == 1


@needs_a_forked_c_build
def test_a_run_that_starts_while_the_last_ones_build_goes_on_waits_for_it(tmp_path):
    """The next run of a program whose build is still under way (left behind when the last
    run ended) does not build the kernels again: at its switch, a child waits for that build,
    and the program loads what it built."""
    builders = tmp_path / "builders"
    program = textwrap.dedent(SLOW_RECORDED_BUILD) + textwrap.dedent("""
        import numpy as np, runtime as rt
        rt.config.set_jit_auto_compile(1)
        fn = rt.function(lambda x: (x * 0.875 + 3.0) * x)
        x = np.arange(4.0)
        fn(x)
        concrete = fn.get_concrete_function(x)
        if sys.argv[-2] == "first":
            time.sleep(0.3)  # its child builds, and is left to finish
        else:
            assert concrete.wait_for_jit(60)
            print(concrete._background._children, concrete.jit_report.splitlines()[0])""")
    run_alone(program, tmp_path, "first", str(builders))
    lines = run_alone(program, tmp_path, "again", str(builders))
    assert lines[0].startswith("1 compiled tier: 1 region"), lines
    assert len(builders.read_text().split()) == 1


def test_a_function_called_briefly_earns_no_build(auto_compile_after):
    auto_compile_after("auto")
    fn = rt.function(lambda x: (x + unique_constant()) * x)
    x = np.arange(3.0)
    for _ in range(10):
        fn(x)
    assert not fn.get_concrete_function(x)._background.worth_building_behind()


@needs_a_forked_c_build
def test_a_child_past_its_time_limit_is_stopped_and_reported(tmp_path):
    lines = run_alone("""
        import os, time
        from runtime.forked_build import ForkedBuild
        build = ForkedBuild(lambda: time.sleep(60), time_limit=0.3)
        print(build.poll(10), type(build.error).__name__, build.error)
        try:
            os.kill(build.pid, 0)
            print("still there")
        except ProcessLookupError:
            print("gone")""", tmp_path)
    assert lines == ["True TimeoutError the compile ran past its time limit and was stopped",
                     "gone"], lines


@pytest.mark.skipif(not builds_with_c(), reason="no C compiler: Numba compiles in a thread")
def test_without_fork_the_compiler_runs_in_a_process_of_its_own(auto_compile_after,
                                                                 monkeypatch):
    """Where ``fork`` is unsafe or missing (macOS; JAX, PyTorch or TensorFlow imported), the
    program translates the kernels itself and the C compiler builds their module in a process
    of its own: no thread takes turns with the calls."""
    auto_compile_after(1)
    monkeypatch.setattr(tiering, "forks", lambda: False)
    threads = []
    monkeypatch.setattr(tiering.BackgroundCompile, "_start_thread", threads.append)
    scale = unique_constant()
    fn = rt.function(lambda x: (x * scale - 1.0) * x)
    x = np.arange(5.0)
    fn(x)
    concrete = fn.get_concrete_function(x)
    assert concrete.wait_for_jit(60)
    assert concrete.jit_report.startswith("compiled tier: 1 region"), concrete.jit_report
    assert concrete._background._children == 1 and not threads
    assert fn(x).numpy().tobytes() == ((x * scale - 1.0) * x).tobytes()


def test_a_compiler_process_the_system_refuses_leaves_no_request_behind(tmp_path, monkeypatch):
    from runtime.backends.jit import compiler_process

    def refused(*args, **kwargs):
        raise OSError("no process to spare")
    monkeypatch.setattr(compiler_process.subprocess, "Popen", refused)
    with pytest.raises(OSError):
        compiler_process.start("/* kernel */", str(tmp_path / "m.so"), ["cc"])
    assert list(tmp_path.iterdir()) == []


WITHOUT_FORK = """
    import sys, types
    sys.modules["torch"] = types.ModuleType("torch")  # as if imported: no fork
    import numpy as np, runtime as rt
    from runtime import tiering
"""


@needs_a_forked_c_build
def test_without_fork_a_build_is_left_behind_and_the_next_run_is_warm(tmp_path):
    """Without fork too, a program that ends while its compiler process runs leaves it to
    finish, and the next run loads the kernels itself, without a child."""
    program = textwrap.dedent(WITHOUT_FORK) + textwrap.dedent("""
        assert not tiering.forks()
        rt.config.set_jit_auto_compile(1)
        fn = rt.function(lambda x: (x * 0.8125 + 4.0) * x)
        x = np.arange(6.0)
        fn(x)
        concrete = fn.get_concrete_function(x)
        if sys.argv[-1] == "again":
            assert concrete.wait_for_jit(60)
        print(concrete._background._children, concrete.jit_report.splitlines()[0])""")
    first = run_alone(program, tmp_path, "first")
    assert first[0].startswith("1 runs on the NumPy plan while"), first
    kernels = tmp_path / "cache" / "eager2graph" / "kernels"
    deadline = time.monotonic() + 60
    while not list(kernels.glob("*.so")) and time.monotonic() < deadline:
        time.sleep(0.1)
    again = run_alone(program, tmp_path, "again")
    assert again[0].startswith("0 compiled tier: 1 region"), again


def test_wait_for_jit_starts_the_compile_when_background_compiles_are_off(auto_compile_after):
    auto_compile_after(None if hasattr(rt.config, "set_jit_auto_compile") else 10**9)
    scale = unique_constant()
    fn = rt.function(lambda x: (x - scale) * x)
    x = np.arange(5.0)
    for _ in range(20):
        fn(x)
    concrete = fn.get_concrete_function(x)
    assert concrete.jit_report.startswith("runs on the NumPy plan")
    assert concrete.wait_for_jit(60)
    assert concrete.jit_report.startswith("compiled tier: 1 region")
    assert mismatch((x - scale) * x, fn(x)) is None


def test_auto_starts_the_compile_once_the_plan_time_pays_for_the_switch(monkeypatch):
    """The default setting: a function whose plan time has not paid for the switch's
    expected cost, or whose process's time is under twenty times that cost, stays on the plan
    (no compile steals the interpreter's lock from a short script); past both, the compile
    starts on the next timed call (or, when the program's own look in the cache, which holds
    other functions' modules, finds nothing, a build starts on the one after)."""
    rt.config.set_jit_auto_compile("auto")  # the conftest restores the setting

    def run(calls: int):
        scale = unique_constant()
        fn = rt.function(lambda x: (x - scale) * x + 1.0)
        x = np.arange(4.0)
        for _ in range(calls):
            fn(x)
        return fn.get_concrete_function(x)
    for constant in ("KERNELS_SECONDS", "C_SECONDS_PER_NODE"):
        monkeypatch.setattr(tiering, constant, 3600.0)
    report = run(3 * tiering.SAMPLE_EVERY).jit_report
    assert "once the time spent on the plan" in report and "1/20 of the process's time" in \
        report, report
    for constant in ("KERNELS_SECONDS", "NUMBA_IMPORT_SECONDS", "C_SECONDS_PER_NODE",
                     "C_LOAD_SECONDS", "FORK_SECONDS", "SPAWN_SECONDS", "C_BUILD_SECONDS",
                     "C_BUILD_SECONDS_PER_NODE"):
        monkeypatch.setattr(tiering, constant, 0.0)
    concrete = run(2 * tiering.SAMPLE_EVERY)
    assert "once the time spent on the plan" not in concrete.jit_report  # started
    assert concrete.wait_for_jit(120)
    assert concrete.jit_report.startswith("compiled tier: 1 region"), concrete.jit_report


@pytest.mark.parametrize("setting", [0, -3, True, 2.5, "sometimes"])
def test_auto_compile_settings_are_checked(setting):
    with pytest.raises(ValueError, match="positive int, 'auto' or None"):
        rt.config.set_jit_auto_compile(setting)


def test_jit_compile_true_without_numba_asks_for_the_extra(monkeypatch):
    monkeypatch.setattr(function_module, "jit_available", lambda: False)

    def f(x):
        return x + 1
    for decorate in (transpiler.function, rt.function):
        with pytest.raises(ImportError, match=r"eager2graph\[jit\]"):
            decorate(f, jit_compile=True)
    # False and None still work, on the NumPy plan
    assert transpiler.function(f, jit_compile=False)(np.int32(1)).numpy() == 2


def test_jit_compile_none_without_numba_stays_on_the_plan(monkeypatch, auto_compile_after):
    monkeypatch.setattr(function_module, "jit_available", lambda: False)
    monkeypatch.setattr(concrete_module, "jit_available", lambda: False)
    auto_compile_after(1)
    fn = rt.function(lambda x: (x + 1.0) * x)
    x = np.arange(3.0)
    for _ in range(3):
        fn(x)
    concrete = fn.get_concrete_function(x)
    assert concrete.wait_for_jit(1) is True
    assert "not installed" in concrete.jit_report and "eager2graph[jit]" in concrete.jit_report


# --------------------------------------------------------------------------------------------
# The kernel cache directory


def compile_something_new(compiler: str = "numba"):
    """Compiles a kernel this process has never compiled (its source has a new literal), by
    ``compiler`` (the cache tests of Numba's files use Numba; see test_jit_compilers)."""
    rt.config.set_jit_compiler(compiler)
    scale = unique_constant()
    fn = rt.function(lambda x: (x * scale + 2.0) * x, jit_compile=True)
    return fn(np.arange(3.0)), scale


def test_kernels_go_to_a_new_private_directory(tmp_path):
    target = tmp_path / "fresh" / "kernels"
    with cache_directory(target):
        result, scale = compile_something_new()
    x = np.arange(3.0)
    assert mismatch((x * scale + 2.0) * x, result) is None
    assert (target.stat().st_mode & 0o777) == 0o700
    sources = list(target.glob("k_*.py"))
    assert len(sources) == 1 and "def kernel(" in sources[0].read_text()
    assert repr(scale) in sources[0].read_text()
    assert not list(target.glob("*.tmp"))
    assert list(target.glob("__pycache__/*.nbi"))  # Numba's own cache, inside it too


def test_a_directory_only_its_owner_can_write_is_accepted(tmp_path):
    target = tmp_path / "readable"
    target.mkdir()
    target.chmod(0o755)
    with cache_directory(target):
        compile_something_new()
    assert list(target.glob("k_*.py"))


def test_a_symlinked_cache_directory_is_refused(tmp_path):
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    with cache_directory(link), pytest.raises(PermissionError, match="not a plain directory"):
        compile_something_new()
    assert not list(real.iterdir())


@pytest.mark.parametrize("mode", [0o770, 0o707, 0o777, 0o720])
def test_a_cache_directory_others_can_write_is_refused(tmp_path, mode: int):
    target = tmp_path / "shared"
    target.mkdir()
    target.chmod(mode)
    with cache_directory(target), \
            pytest.raises(PermissionError, match="others can write to it"):
        compile_something_new()
    assert not list(target.iterdir())


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="only root can give a directory to another user")
def test_a_cache_directory_of_another_user_is_refused(tmp_path):
    target = tmp_path / "theirs"
    target.mkdir(mode=0o700)
    os.chown(target, 65534, 65534)
    with cache_directory(target), pytest.raises(PermissionError, match="another user"):
        compile_something_new()


def test_the_error_names_the_setting_to_change(tmp_path):
    target = tmp_path / "open"
    target.mkdir()
    target.chmod(0o777)
    with cache_directory(target), pytest.raises(PermissionError) as caught:
        compile_something_new()
    assert str(target) in str(caught.value)
    assert "set_jit_cache_directory" in str(caught.value)
