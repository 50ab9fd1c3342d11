"""Converted control flow on JAX tracers: ``jax.jit(convert(f))`` (and grad, vmap) stages
``if``/``while``/``for``/ternaries/``and``/``or``/``not`` into ``lax`` control flow and gives
what plain Python gives on the same values (the JAX staging backend, issue 23)."""

from __future__ import annotations

import contextlib
import importlib
import io
import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = jax.numpy

from tests.transpiler.staging_samples import (  # noqa: E402
    reversed_weighted, rotated, stepped_sum, total_of_first, zero_step_sum,
    zipped_and_enumerated)
from transpiler import convert, set_loop_options  # noqa: E402


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def clipped_sum(x, n):
    total = 0
    for i in range(n):
        if i > x:
            break
        if i % 3 == 0:
            continue
        total += i
    return total if total > 2 and x < 9 else -total


def first_above(xs, limit):
    for i, v in enumerate(xs):
        if v > limit:
            return i
    return -1


def sum_of_rows(xs):
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


def last_item(xs):
    for v in xs:
        last = v * 2
    return last


def piecewise(x):
    if x > 1.0:
        y = x * x
    elif x > -1.0:
        y = 2.0 * x + 1.0
    else:
        y = -x
    return y


def logic(x, y):
    if not (x > y) and y > 0 or x == 3:
        return x + y
    return x - y


def mismatched_dtypes(x):
    if x > 0:
        y = jnp.int32(1)
    else:
        y = jnp.float32(2.5)
    return y


def early_return_in_while(n):
    i = 0
    while i < 100:
        if i * i > n:
            return i
        i += 1
    return -1


def _jit(fn, static=()):
    return jax.jit(convert(fn), static_argnums=static)


def test_collatz_of_the_issue():
    assert int(_jit(collatz_steps)(jnp.int32(27))) == 111
    for n in (1, 2, 3, 6, 7, 97):
        assert int(_jit(collatz_steps)(jnp.int32(n))) == collatz_steps(n)


@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_if_while_for_break_continue_return_match_python(dtype):
    f = _jit(clipped_sum)
    for x in range(-2, 11):
        for n in range(0, 12):
            assert int(f(jnp.asarray(x, dtype), jnp.int32(n))) == clipped_sum(x, n), (x, n)
    g = _jit(early_return_in_while)
    for n in (-3, 0, 1, 10, 50, 9999, 20000):
        assert int(g(jnp.asarray(n, "int32"))) == early_return_in_while(n)
    h = _jit(logic)
    for x in range(-1, 5):
        for y in range(-2, 4):
            assert int(h(jnp.asarray(x, dtype), jnp.asarray(y, dtype))) == logic(x, y)


def test_a_loop_over_an_empty_array_runs_no_iteration():
    # The staged loop traced its body on the first element, which an empty array lacks
    # (IndexError where Python runs no iteration).
    for length in (0, 1, 3):
        xs = np.arange(length, dtype=np.float32)
        assert float(_jit(sum_of_rows)(xs)) == float(sum_of_rows(xs))
        assert float(_jit(sum_of_rows)(xs[1:])) == float(sum_of_rows(xs[1:]))


def test_enumerate_of_zip_and_zip_of_enumerate():
    # Each was refused: "'TensorZip' object is not iterable".
    f = _jit(zipped_and_enumerated)
    for x, y in (([1.0, 2.0, 3.0], [0.5, -1.0, 4.0]), ([3.0, 1.0, 2.0], [2.0, 2.0, 2.0])):
        x, y = np.asarray(x, np.float32), np.asarray(y, np.float32)
        assert float(f(x, y)) == pytest.approx(zipped_and_enumerated(x, y))


def test_a_range_with_a_step_of_zero_fails_as_in_python():
    # Python: ValueError("range() arg 3 must not be zero"); a traced step is checked when the
    # function runs (a step of 0 used to run no iteration and give 0).
    f = _jit(stepped_sum)
    for n, step in ((7, 2), (-7, -3), (3, 5)):
        assert int(f(jnp.int32(n), jnp.int32(step))) == stepped_sum(n, step)
    for n in (5, -5):
        with pytest.raises(Exception, match=r"range\(\) arg 3 must not be zero: the for loop "
                                            r"at staging_samples.py:\d+"):
            f(jnp.int32(n), jnp.int32(0)).block_until_ready()
    with pytest.raises(ValueError, match=r"range\(\) arg 3 must not be zero: the for loop at "
                                         r"staging_samples.py:\d+"):
        _jit(zero_step_sum)(jnp.int32(7))


def test_a_python_int_a_loop_makes_a_float_fails_when_the_loop_runs_zero_times():
    # Python keeps the int 0 then; the traced loop has one type for 'total', float32 (as the
    # PyTorch backend, which checks the same; it used to give 0.0).
    f = _jit(total_of_first)
    x = np.asarray([1.0, 2.0, 3.0], np.float32)
    for n in (1, 3):
        assert float(f(x, jnp.int32(n))) == total_of_first(x, n)
    with pytest.raises(Exception, match=r"the for loop at staging_samples.py:\d+ ran zero "
                                        r"times, so 'total' keeps the Python number it had "
                                        r"before it, which each iteration makes a float32 array"):
        f(x, jnp.int32(0)).block_until_ready()


def newton_from(a):
    x = a
    while jnp.abs(x * x - a) > 1e-3:
        x = (x + a / x) / 2
    return x


def halved(x, n):
    for _ in range(n):
        x = x / 2
    return x


def test_a_loop_that_makes_an_int_array_a_float_carries_the_float():
    # Python's x is int32 before the loop and float32 after an iteration; the loop carries
    # float32 (it refused the loop), and fails when it ran zero times, as the PyTorch backend.
    for a in (4, 10, 1000):
        got = _jit(newton_from)(jnp.int32(a))
        assert got.dtype == newton_from(jnp.int32(a)).dtype == jnp.float32
        assert np.isclose(float(got), float(newton_from(jnp.int32(a))))
    assert _jit(halved)(jnp.int32(8), jnp.int32(2)).dtype == jnp.float32
    assert float(_jit(halved)(jnp.int32(8), jnp.int32(2))) == 2.0
    for f, args in ((newton_from, (jnp.int32(1),)), (halved, (jnp.int32(8), jnp.int32(0)))):
        with pytest.raises(Exception, match=r"loop at test_jax_staging.py:\d+ ran zero times, "
                                            r"so 'x' keeps the dtype int32 it had before it, "
                                            r"which each iteration makes float32"):
            _jit(f)(*args).block_until_ready()


def rows_added_to_a_number(xs):
    acc = 0.0
    for i, row in enumerate(xs):
        acc = acc + row * i
    return acc


def test_a_variable_changing_shape_over_rows_unrolls_the_loop():
    # One JAX loop cannot carry 'acc' from () to (2,) ("a JAX loop variable keeps its shape");
    # the number of rows is known, so the loop runs as Python does.
    rows = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    assert np.allclose(_jit(rows_added_to_a_number)(rows), rows_added_to_a_number(rows))


def test_for_over_the_leading_axis_and_enumerate():
    rows = np.array([[1.0, -2.0], [0.5, 3.0], [2.0, 2.0]], np.float32)
    assert np.allclose(_jit(sum_of_rows)(rows[:, 1]), sum_of_rows(rows[:, 1]))
    assert np.allclose(_jit(last_item)(rows), last_item(rows))
    xs = np.array([0.5, 4.0, 1.0, 9.0], np.float32)
    f = _jit(first_above)
    for limit in (-1.0, 0.7, 3.0, 8.0, 10.0):
        assert int(f(xs, jnp.float32(limit))) == first_above(xs, limit)


def test_piecewise_values_grad_and_vmap():
    f = _jit(piecewise)
    xs = [-3.0, -1.0, -0.5, 0.0, 0.99, 1.0, 1.5, 4.0]
    for x in xs:
        assert np.isclose(f(jnp.float32(x)), piecewise(x))
    grad = jax.jit(jax.grad(convert(piecewise)))
    for x, expected in ((-3.0, -1.0), (0.25, 2.0), (2.0, 4.0)):
        assert np.isclose(grad(jnp.float32(x)), expected)
    batched = jax.vmap(convert(piecewise))(jnp.asarray(xs, jnp.float32))
    assert np.allclose(batched, [piecewise(x) for x in xs])


def test_grad_through_a_static_length_loop():
    rows = jnp.asarray([1.0, -2.0, 3.0], jnp.float32)
    assert np.allclose(jax.grad(convert(sum_of_rows))(rows), 2 * np.asarray(rows))


def test_concrete_values_still_run_as_python():
    assert convert(collatz_steps)(27) == 111
    assert convert(clipped_sum)(4, 10) == clipped_sum(4, 10)
    assert isinstance(convert(collatz_steps)(6), int)


def test_mismatched_branch_dtypes_name_the_variable():
    with pytest.raises(TypeError, match=r"'y' has dtype int32 in the true branch but dtype "
                                        r"float32 in the false branch .*test_jax_staging.py:"):
        _jit(mismatched_dtypes)(jnp.float32(1.0))


def added_over_a_traced_range(v, n):
    s = 0.0
    for _ in range(n):
        s = s + v
    return s


def test_a_loop_variable_that_changes_shape_is_named():
    # With a traced trip count the loop cannot be unrolled.
    with pytest.raises(TypeError, match=r"'s' has shape \(\) before an iteration of the for "
                                        r"loop at test_jax_staging.py:\d+ and \(2,\) after it"):
        _jit(added_over_a_traced_range)(jnp.ones(2, jnp.float32), jnp.int32(3))


def test_a_vector_condition_is_refused():
    with pytest.raises(ValueError, match=r"must be a scalar, got an array of shape \(2,\)"):
        _jit(piecewise)(jnp.asarray([1.0, 2.0]))


def test_import_transpiler_does_not_import_jax():
    code = "import sys, transpiler; print('jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


_X64 = """
import jax
jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp
from tests.transpiler.test_jax_staging import clipped_sum, collatz_steps
from transpiler import convert
f = jax.jit(convert(clipped_sum))
for x in range(-2, 11):
    for n in range(0, 12):
        got = f(jnp.asarray(x, "int64"), jnp.asarray(n, "int64"))
        assert got.dtype == jnp.int64 and int(got) == clipped_sum(x, n), (x, n, got)
assert int(jax.jit(convert(collatz_steps))(jnp.int64(837799))) == 524
from tests.transpiler.staging_samples import extended_gcd
for a, b in ((240, 46), (17, 5)):
    got = jax.jit(convert(extended_gcd))(jnp.int32(a), jnp.int32(b))
    expected = extended_gcd(jnp.int32(a), jnp.int32(b))
    assert [g.dtype for g in got] == [jnp.int32] * 2 and [int(g) for g in got] == [
        int(e) for e in expected], (a, b, got)
print("ok")
"""


def test_int64_with_x64_enabled():
    out = subprocess.run([sys.executable, "-c", _X64], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


# -- the reference samples, on jnp scalars ------------------------------------------------------

_PURE_PYTHON_SAMPLES = ("samples_if", "samples_while", "samples_for", "samples_break_continue",
                        "samples_return", "samples_logical", "samples_nested", "samples_misc",
                        "samples_calls")


def _as_jax(value):
    if isinstance(value, bool):
        return jnp.asarray(value)
    if isinstance(value, int):
        return jnp.asarray(value, jnp.int32)
    if isinstance(value, float):
        return jnp.asarray(value, jnp.float32)
    return jnp.asarray(value)


def _same(expected, actual) -> bool:
    try:
        return jax.tree_util.tree_all(jax.tree_util.tree_map(
            lambda a, b: bool(np.allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-5)),
            expected, actual))
    except (TypeError, ValueError):
        return False


# Each input compiles anew under jit: the first of each sample (its edge case comes first)
# keeps the test at a quarter minute's share of the suite; test_jax_programs runs more inputs.
_INPUTS_PER_SAMPLE = 1


def test_reference_samples_under_jit_give_python_values():
    """Every pure-Python sample with number (or list-of-number) tensor inputs, under
    ``jax.jit(convert(f))``: never a wrong value, and at least 99% run."""
    ran, refused, wrong = 0, [], []
    warnings.simplefilter("ignore")
    for module_name in _PURE_PYTHON_SAMPLES:
        module = importlib.import_module(f"tests.reference.{module_name}")
        for case in module.CASES:
            if not case.graph or case.state is not None or case.refusal is not None \
                    or case.dtype is not None:
                continue
            for args in case.inputs[:_INPUTS_PER_SAMPLE]:
                chosen = range(len(args)) if case.tensor_params is None else case.tensor_params
                if not all(isinstance(args[i], (int, float, list)) for i in chosen):
                    continue
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        expected = case.fn(*args)
                except Exception:  # noqa: BLE001 - Python's own error: nothing to compare
                    continue
                try:
                    with contextlib.redirect_stdout(io.StringIO()):
                        actual = _jit_over(case.fn, args, chosen)
                        jax.effects_barrier()
                except Exception as error:  # noqa: BLE001 - counted, not a wrong value
                    refused.append(f"{case.fn.__name__}{args}: {type(error).__name__}")
                    continue
                ran += 1
                if not _same(expected, actual):
                    wrong.append(f"{module_name}.{case.fn.__name__}{args}: "
                                 f"{expected!r} != {actual!r}")
    assert wrong == []
    assert ran >= 0.99 * (ran + len(refused)), (ran, refused[:20])


def _jit_over(fn, args: tuple, chosen):
    """``jax.jit(convert(fn))`` called with the ``chosen`` arguments as arrays; the others (Python
    values, lists among them, which static_argnums cannot hash) are closed over. One jitted
    function per sample and closed-over values, so inputs that differ only in their arrays
    share its traces (a compile per input took five minutes)."""
    chosen = tuple(chosen)
    static = tuple((i, repr(value)) for i, value in enumerate(args) if i not in chosen)
    key = (fn, chosen, static)
    jitted = _JITTED.get(key)
    if jitted is None:
        def call(*arrays):
            full = list(args)
            for index, array in zip(chosen, arrays):
                full[index] = array
            return convert(fn)(*full)
        jitted = _JITTED[key] = jax.jit(call)
    return jitted(*(_as_jax(args[i]) for i in chosen))


_JITTED: dict = {}


def first_set_inside(n):
    for i in range(n):
        last = i * 2
    return last


def python_number_state(x, n):
    s = 0
    i = 0
    while i < n:
        s += x
        i += 1
    return s


def test_vmap_through_a_converted_while_loop():
    ns = jnp.asarray([27, 6, 1, 7], jnp.int32)
    assert jax.vmap(convert(collatz_steps))(ns).tolist() == [111, 8, 0, 16]


def test_python_numbers_in_loop_state_take_the_arrays_type():
    result = _jit(python_number_state)(jnp.float32(0.5), jnp.int32(4))
    assert result.dtype == jnp.float32 and float(result) == 2.0


def test_a_variable_first_assigned_in_a_loop():
    f = _jit(first_set_inside)
    assert int(f(jnp.int32(3))) == 4
    with pytest.raises(Exception, match=r"the for loop at test_jax_staging.py:\d+ ran zero "
                                        r"times, so 'last', first assigned inside it"):
        f(jnp.int32(0)).block_until_ready()


# -- bounded loops and gradients -----------------------------------------------------------------


def power_bounded(x, n):
    y = x
    i = 0
    while i < n:
        set_loop_options(maximum_iterations=8)
        y = y * x
        i += 1
    return y


def power_unbounded(x, n):
    y = x
    i = 0
    while i < n:
        y = y * x
        i += 1
    return y


def squares_until(xs, limit):
    s = 0.0
    for v in xs:
        if v > limit:
            break
        s = s + v * v
    return s


def _finite_difference(f, x, eps=1e-3):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_maximum_iterations_bounds_a_while_loop_and_grad_goes_through_it():
    f = jax.jit(convert(power_bounded))
    assert [float(f(jnp.float32(1.5), jnp.int32(n))) for n in (0, 1, 3)] == \
        [power_bounded(1.5, n) for n in (0, 1, 3)]
    assert float(f(jnp.float32(1.0), jnp.int32(50))) == 1.0  # stops after 8, as TF does
    grad = jax.jit(jax.grad(convert(power_bounded)))
    for n in (0, 2, 5):
        expected = _finite_difference(lambda x: power_bounded(x, n), 1.2)
        assert np.isclose(grad(jnp.float32(1.2), jnp.int32(n)), expected, rtol=1e-3)
    # It runs as a while loop that stops when the test fails; derivatives see a scan.
    jaxpr = str(jax.make_jaxpr(convert(power_bounded))(jnp.float32(1.0), jnp.int32(2)))
    assert "custom_jvp_call" in jaxpr and "while" in jaxpr and "scan" not in jaxpr
    jaxpr = str(jax.make_jaxpr(jax.grad(convert(power_bounded)))(jnp.float32(1.0), jnp.int32(2)))
    assert "scan" in jaxpr and "while" not in jaxpr


def scaled_until(w, xs):
    k = jnp.asarray(w * 3).astype(jnp.int32)  # an int and a float tracer the loop closes over
    scale = w * 2.0
    s = 0.0
    for x in xs:
        if s > 3.0:
            break
        s += scale * x + k
    return s


@pytest.mark.parametrize("compose", [
    lambda f: jax.grad(jax.jit(f)), lambda f: jax.jit(jax.grad(f)), jax.grad,
    lambda f: lambda w, xs: jax.jvp(lambda w: f(w, xs), (w,), (jnp.float32(1.0),))[1],
    lambda f: lambda w, xs: jax.grad(lambda w: jax.vmap(f, (0, None))(w, xs).sum())(
        jnp.stack([w, w]))[0],
], ids=["grad(jit)", "jit(grad)", "grad", "jvp", "grad(vmap)"])
def test_a_loop_with_break_and_a_static_bound_differentiates_in_every_composition(compose):
    xs = jnp.linspace(0.1, 1.0, 10, dtype=jnp.float32)
    expected = _finite_difference(lambda w: scaled_until(w, np.asarray(xs, np.float64)), 1.2)
    assert np.isclose(compose(convert(scaled_until))(jnp.float32(1.2), xs), expected,
                      rtol=1e-3)


def test_grad_through_a_static_length_loop_with_break():
    xs = jnp.asarray([1.0, 2.0, 3.0, 1.0], jnp.float32)
    g = jax.jit(jax.grad(convert(squares_until)))(xs, jnp.float32(2.5))
    assert g.tolist() == [2.0, 4.0, 0.0, 0.0]


def test_an_unbounded_while_under_grad_names_the_loop_and_maximum_iterations():
    grad = jax.jit(jax.grad(convert(power_unbounded)))
    with pytest.raises(ValueError, match=r"Reverse-mode differentiation does not work for "
                       r"lax.while_loop.* The while loop at test_jax_staging.py:\d+ has no static "
                       r"bound.*set_loop_options\(maximum_iterations=N\)"):
        grad(jnp.float32(1.2), jnp.int32(3))
    # Forward mode goes through a while_loop: nothing is refused there.
    _, tangent = jax.jit(lambda x, n: jax.jvp(lambda y: convert(power_unbounded)(y, n), (x,),
                                              (jnp.float32(1.0),)))(jnp.float32(2.0), jnp.int32(2))
    assert float(tangent) == 12.0


def counter_next_to_int8(xs, n):
    for i in range(n):
        xs = xs + i
    return xs


def test_the_counter_of_a_traced_range_is_weak_as_a_python_int():
    result = _jit(counter_next_to_int8)(jnp.zeros(2, jnp.int8), jnp.int32(3))
    assert result.dtype == jnp.int8 and result.tolist() == [3, 3]


@pytest.mark.parametrize("dtype, first, second", [
    (jnp.int8, 1, 0), (jnp.float16, 1.0, 0.0), (jnp.int32, 1, 0), (jnp.float32, 1.0, 0.0)])
def test_python_numbers_swapped_in_a_loop_take_the_dtype_the_loop_settles_on(dtype, first,
                                                                            second):
    # ``v`` becomes ``b``'s dtype in the first iteration, ``u`` in the second: lax promotes a
    # weak carry once, so the carry is promoted until an iteration keeps its types.
    jitted = jax.jit(convert(lambda b: rotated(b, first, second)))
    for b in (2, 4):
        b = jnp.asarray(b, dtype)
        expected, got = rotated(b, first, second), jitted(b)
        assert got.dtype == expected.dtype and float(got) == float(expected), (dtype, b)


def test_reversed_range_of_traced_bounds_counts_down_as_python():
    jitted = jax.jit(convert(reversed_weighted))
    for bounds in ((0, 5, 1), (9, 2, -3), (5, 0, 1), (3, -4, -2), (1, 2, 5)):
        assert int(jitted(*map(jnp.int32, bounds))) == reversed_weighted(*bounds), bounds


def stop_early(n):
    for i in range(n):
        if i > 2:
            return
        print("step", i)


def test_a_return_without_a_value_in_a_traced_loop():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert _jit(stop_early)(jnp.int32(10)) is None
        jax.effects_barrier()
    assert out.getvalue() == "step 0\nstep 1\nstep 2\n"


# -- builtins, print and assert on tracers -------------------------------------------------------


def builtins_on_tracers(x, n):
    print("x is", x, f"n={n}", f"{x:.2f}")
    for i in range(n):
        if i == 1:
            print("one")
    assert x > 0, "x must be positive"
    return (int(x), float(n), round(x), abs(-x), min(x, 1.5), max(x, 0.5, 4.0), len(jnp.zeros(3)),
            int(-x))


def test_builtins_print_and_assert_on_tracers_give_pythons_values():
    f = _jit(builtins_on_tracers)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = f(jnp.float32(2.5), jnp.int32(3))
        jax.effects_barrier()
    expected_out = io.StringIO()
    with contextlib.redirect_stdout(expected_out):
        expected = builtins_on_tracers(2.5, 3)
    assert out.getvalue() == expected_out.getvalue() == "x is 2.5 n=3 2.50\none\n"
    assert [float(v) for v in result] == list(expected)
    assert result[0].dtype == jnp.int32 and result[1].dtype == jnp.float32
    with pytest.raises(Exception, match=r"x must be positive \(the assert at "
                                        r"test_jax_staging.py:\d+\)"):
        f(jnp.float32(-1.0), jnp.int32(0)).block_until_ready()
        jax.effects_barrier()


def truth_of_tracers(x):
    if bool(x.sum() > 0):
        return x + 1, bool(x[0]), bool(x[1]), any(v > 1 for v in x), all([x[0] < 0, True])
    return x - 1, bool(x[0]), bool(x[1]), any(v > 1 for v in x), all([x[0] < 0, True])


def test_bool_any_and_all_of_tracers_are_their_truth_when_the_function_runs():
    f = _jit(truth_of_tracers)
    for values in ([1.0, 2.0], [-1.0, 0.0], [0.0, -3.0]):
        x = jnp.asarray(values, dtype=jnp.float32)
        got, expected = f(x), truth_of_tracers(np.asarray(values, dtype=np.float32))
        assert np.array_equal(got[0], expected[0]) and tuple(got[1:]) == expected[1:]
        assert got[1].dtype == jnp.bool_


def math_of_a_mean(x):
    m = x.mean().item()
    if m > 0:
        return math.exp(-m), math.floor(m), math.isclose(m, 2.0, rel_tol=1e-3), math.log(m, 2)
    return math.exp(m), math.floor(m), math.isclose(m, 2.0), math.atan2(m, 1.0)


def test_item_and_math_functions_of_tracers_compute_what_python_computes():
    f = _jit(math_of_a_mean)
    for values in ([1.0, 3.0], [1.0, 3.002], [-1.0, -2.5], [0.5, 0.25]):
        got = f(jnp.asarray(values, dtype=jnp.float32))
        expected = math_of_a_mean(np.asarray(values, dtype=np.float32))
        assert np.allclose([float(v) for v in got], [float(v) for v in expected], rtol=1e-6)
        assert got[1].dtype.kind == "i" and got[2].dtype == jnp.bool_


def test_min_max_follow_python_on_nan_and_ties():
    f = _jit(lambda a, b: (min(a, b), max(a, b), max([a, b, 0.5])))
    nan = float("nan")
    got = f(jnp.float32(nan), jnp.float32(1.0))
    assert np.isnan(got[0]) and np.isnan(got[1]) and np.isnan(got[2])
    got = f(jnp.float32(1.0), jnp.float32(nan))
    assert got[0] == 1.0 and got[1] == 1.0 and got[2] == 1.0


def test_min_max_of_values_python_gives_back_as_different_types_are_refused():
    # Python gives back the int array or the float 0.5: one traced value cannot be both.
    f = _jit(lambda x: max(x.max(), 0.5))
    with pytest.raises(TypeError, match=r"max\(\) of dtype int32 and a Python float on a JAX "
                                        r"tracer at test_jax_staging.py:\d+: Python gives back "
                                        r"one of them as it is"):
        f(jnp.asarray([1, 2], jnp.int32))
    # A Python int next to a float array takes its dtype, as in arithmetic and branches.
    g = _jit(lambda x: (min(x.sum(), 10), max(x.max(), 0)))
    assert [float(v) for v in g(jnp.asarray([1.0, 2.0]))] == [3.0, 2.0]
    assert float(g(jnp.asarray([10.0, 20.0]))[0]) == 10.0


def factorial(n):
    if n <= 1:
        return 1
    return n * factorial(n - 1)


def test_recursion_stopped_by_a_traced_value_names_the_conditional():
    # Both branches are traced, so the recursion never stops: Python's limit is reached deep
    # inside, and raised naming the outermost if (a bare "maximum recursion depth exceeded").
    with pytest.raises(RecursionError, match=r"recursion limit was reached while the branches "
                                             r"of the if statement on a traced value at "
                                             r"test_jax_staging.py:\d+ were traced"):
        _jit(factorial)(jnp.int32(5))
    assert factorial(5) == convert(factorial)(5) == 120


# -- lists appended to in traced loops -------------------------------------------------------------


def doubled_rows(xs):
    out = []
    for v in xs:
        out.append(v * 2)
    return jnp.stack(out)


def positives_then_marker(xs):
    out = [0.0]
    for v in xs:
        if v > 0:
            out.append(v)
        out.append(-1.0)
    return out[-1], out[1], out[-2]


def first_counts(n):
    out = []
    i = 0
    while i < n:
        set_loop_options(maximum_iterations=6)
        out.append(i * i)
        i += 1
    return out[0] + out[n - 1]


def unbounded_list(n):
    out = []
    i = 0
    while i < n:
        out.append(i)
        i += 1
    return out[0]


def test_a_list_appended_in_a_loop_of_static_length_is_a_python_list_after_it():
    xs = jnp.asarray([1.0, -2.0, 3.0], jnp.float32)
    assert _jit(doubled_rows)(xs).tolist() == [2.0, -4.0, 6.0]
    grad = jax.grad(lambda x: convert(doubled_rows)(x).sum())(xs)
    assert grad.tolist() == [2.0, 2.0, 2.0]


def test_lists_appended_under_a_traced_if_or_in_a_bounded_while_index_at_run_time():
    xs = np.asarray([1.0, -2.0, 3.0], np.float32)
    got = _jit(positives_then_marker)(jnp.asarray(xs))
    assert [float(v) for v in got] == list(positives_then_marker(xs))
    f = _jit(first_counts)
    for n in (1, 3, 6):
        assert int(f(jnp.int32(n))) == first_counts(n)


def test_a_list_in_an_unbounded_loop_asks_for_maximum_iterations():
    with pytest.raises(ValueError, match=r"'out' is a list appended to in the while loop at "
                                         r"test_jax_staging.py:\d+, .*no bound.*"
                                         r"set_loop_options\(maximum_iterations=N\)"):
        _jit(unbounded_list)(jnp.int32(3))


def sorted_twice(x, n):
    for _ in range(n):
        x = jnp.sort(x) + 1.0
    if x.sum() > 0:
        x = jnp.flip(jnp.sort(x))
    return x


def test_a_module_s_function_named_like_a_list_method_changes_no_object():
    """``jnp.sort(x)`` in a traced loop or branch is not ``list.sort``: nothing to refuse."""
    got = _jit(sorted_twice)(jnp.asarray([3.0, 1.0, 2.0], jnp.float32), jnp.int32(2))
    assert got.tolist() == sorted_twice(np.asarray([3.0, 1.0, 2.0], np.float32), 2).tolist() \
        == [5.0, 4.0, 3.0]


def signed_parts(x):
    parts = []
    if x.sum() > 0:
        parts.append(x)
        parts.append(x.max())
    else:
        parts.append(-x)
        parts.append(0.0)
    return parts[0] * parts[1]


def parts_by_another_name(x):
    parts = []
    kept = parts
    if x.sum() > 0:
        parts.append(x)
    else:
        parts.append(-x)
    return kept[0]


def test_a_list_appended_to_in_both_branches_of_a_traced_if_gets_the_cond_s_outputs():
    for x in ([1.0, 2.0], [-1.0, -2.0]):
        x = np.asarray(x, np.float32)
        assert _jit(signed_parts)(jnp.asarray(x)).tolist() == signed_parts(x).tolist()
    batch = jnp.asarray([[1.0, 2.0], [-1.0, -2.0]], jnp.float32)
    assert jax.vmap(convert(signed_parts))(batch).tolist() == [[2.0, 4.0], [0.0, 0.0]]
    with pytest.raises(NotImplementedError, match=r"'parts' is a list appended to in a branch "
                                                  r"of the if statement on a traced value at "
                                                  r"test_jax_staging.py:\d+, but the code after"):
        _jit(parts_by_another_name)(jnp.asarray([1.0, 2.0], jnp.float32))


def positives_counted_by_a_helper(x):
    count = 0

    def bump(v):
        nonlocal count
        if v > 0:
            count += 1
    for v in x:
        bump(v)
    return count


def test_a_nonlocal_changed_under_a_traced_if_in_a_called_helper_is_a_clear_error():
    with pytest.raises(ValueError, match=r"'count' is changed by the for loop at "
                                         r"test_jax_staging.py:\d+ through a function it calls "
                                         r"\(a `nonlocal` statement there\).*Return the new "
                                         r"value from that function"):
        _jit(positives_counted_by_a_helper)(jnp.asarray([1.0, -1.0, 2.0], jnp.float32))


def weighted_by_list(x):
    weights = [x[0] * 1, x[1] * 2, x[2] * 3]
    total = 0.0
    for i, v in enumerate(x):
        if v > 0:
            total += weights[i]
    return total


def first_of_list(x, n):
    values = [x * 1, x * 2, x * 3]
    total = 0.0
    for i in range(n):
        total += values[i]
    return total


def test_a_list_indexed_by_a_loop_counter():
    # Over an array (a length known while tracing), the loop runs as Python: i is an int.
    x = jnp.asarray([1.0, -2.0, 3.0], jnp.float32)
    assert float(_jit(weighted_by_list)(x)) == float(weighted_by_list(x)) == 10.0
    # Over range(traced n), i is traced: an error naming the line.
    with pytest.raises(TypeError, match=r"A traced integer is used at test_jax_staging.py:\d+ "
                                        r"\(`total \+= values\[i\]`\) where Python needs an "
                                        r"int.*jnp.stack\(values\)\[i\]"):
        _jit(first_of_list)(jnp.float32(1.0), jnp.int32(2))


def rows_signed(x):
    out = []
    for row in x:
        if row.sum() > 0:
            out.append(row / row.sum())
        else:
            out.append(-row)
    return jnp.stack(out)


def test_a_list_appended_once_in_each_branch_in_a_loop_keeps_a_known_length():
    x = jnp.asarray([[1.0, -2.0], [3.0, 4.0], [-5.0, -6.0]], jnp.float32)
    expected = rows_signed(x)
    assert np.allclose(_jit(rows_signed)(x), expected)
    assert np.allclose(jax.vmap(convert(rows_signed))(jnp.stack([x, x])), [expected, expected])


def sum_of_prefixes(x):
    total = 0.0
    for i, _ in enumerate(x):
        total = total + x[: i + 1].sum()
    return total


def sum_of_prefixes_traced(x, n):
    total = 0.0
    for i in range(n):
        total = total + x[:i].sum()
    return total


def test_a_slice_bounded_by_a_loop_counter():
    # Over an array, the loop runs as Python, as for a list index; over range(traced n), the
    # error names the line (JAX's own refusal names a slice of tracers).
    x = jnp.asarray([1.0, 2.0, 3.0], jnp.float32)
    assert float(_jit(sum_of_prefixes)(x)) == float(sum_of_prefixes(x)) == 10.0
    with pytest.raises(TypeError, match=r"A traced integer is used at test_jax_staging.py:\d+ "
                                        r"\(`total = total \+ x\[:i\].sum\(\)`\).*a slice bound"):
        _jit(sum_of_prefixes_traced)(x, jnp.int32(2))


def scaled_by_listed(x, i):
    return x * [10.0, 20.0][i]


def first_n(x, n):
    return x[:n].sum()


def test_a_traced_index_or_slice_bound_outside_any_staged_block_names_the_line():
    """The same error under jax.jit when no traced loop or branch is around the index (the
    function's own argument is the traced int), instead of JAX's own refusal."""
    x = jnp.asarray([1.0, 2.0, 3.0], jnp.float32)
    with pytest.raises(TypeError, match=r"A traced integer is used at test_jax_staging.py:\d+ "
                                        r"\(`return x \* \[10.0, 20.0\]\[i\]`\)"):
        _jit(scaled_by_listed)(x, jnp.int32(1))
    with pytest.raises(TypeError, match=r"A traced integer is used at test_jax_staging.py:\d+ "
                                        r"\(`return x\[:n\].sum\(\)`\).*a slice bound"):
        _jit(first_n)(x, jnp.int32(2))
    assert float(jax.jit(convert(first_n), static_argnums=1)(x, 2)) == 3.0


def best_or_default(x):
    best = 0.0
    for v in x:
        if v > best:
            best = v
    return best


def sum_if_any_above(x, t):
    if (x > t).any():
        return jnp.where(x > t, x, 0.0).sum()
    return jnp.array(-1.0)


def test_a_python_number_joined_with_an_array_by_a_traced_if_is_the_array_s_type():
    # Python gives the array where the branch that makes it runs; one traced value has one
    # type, the array's (strong), not the Python number's (weak), which would make later
    # arithmetic with narrower arrays (float16) take their dtype where Python keeps float32.
    x = jnp.asarray([1.0, 3.0, 2.0], jnp.float32)
    got = _jit(best_or_default)(x)
    assert (got.dtype, got.weak_type, float(got)) == (jnp.float32, False, 3.0)
    got = _jit(sum_if_any_above)(x, jnp.float32(1.5))
    assert (got.dtype, got.weak_type, float(got)) == (jnp.float32, False, 5.0)


def rounded(x):
    return round(x), round(x.sum().item()), round(x[0], 1)


def test_round_of_an_array_is_jax_s_default_int_and_of_an_item_a_python_int():
    x = jnp.asarray([2.5, 1.0], jnp.float32)
    plain, staged = rounded(x), _jit(rounded)(x)
    assert [np.asarray(v).tolist() for v in staged] == [np.asarray(v).tolist() for v in plain]
    assert (staged[0].dtype, staged[0].weak_type) == (plain[0].dtype, False)
    assert staged[1].weak_type and isinstance(plain[1], int)


def runs_of_equal_values(x):
    runs, previous = 0, None
    for v in x:
        if previous is None or v != previous:
            runs += 1
        previous = v
    return runs


def test_a_loop_variable_none_before_a_loop_over_an_array_runs_it_as_python():
    x = jnp.asarray([1, 1, 2, 2, 3, 1], jnp.int32)
    assert int(_jit(runs_of_equal_values)(x)) == runs_of_equal_values(x) == 4


def decay_until_small(x, rate):
    for _ in range(100):
        x = x - rate * x * x
        if jnp.abs(x) < 1e-3:
            break
    return x


def decay_until_small_in_python(x, rate):
    for _ in range(100):
        x = x - rate * x * x
        if abs(x) < 1e-3:
            break
    return x


def scaled_until_small(x, scales):
    for i in range(len(scales)):
        x = x * scales[i]  # a Python list indexed by the counter: the loop stays unrolled
        if x < 1.0:
            break
    return x


def test_the_rest_of_a_range_after_a_traced_break_is_one_loop():
    """Unrolled, each iteration after the first traced ``break`` test was a ``lax.cond`` in
    the one before (a jaxpr 50 times longer, a first call four times slower)."""
    converted = convert(decay_until_small)
    jaxpr = str(jax.make_jaxpr(converted)(jnp.float32(0.9), jnp.float32(0.5)))
    assert jaxpr.count("cond[") < 5 and "while[" in jaxpr
    jitted = jax.jit(converted)
    for x in (0.9, 0.01, 0.0005, 2.0, 0.3):  # breaks at once, at the second step, late
        expected = decay_until_small_in_python(np.float32(x), np.float32(0.5))
        assert float(jitted(jnp.float32(x), jnp.float32(0.5))) == pytest.approx(
            float(expected), rel=1e-5)  # XLA may fuse the multiply-add
    gradient = jax.grad(lambda x: converted(x, 0.5))(jnp.float32(0.9))
    step = 1e-6
    finite = (decay_until_small_in_python(0.9 + step, 0.5)
              - decay_until_small_in_python(0.9 - step, 0.5)) / (2 * step)
    assert abs(float(gradient) - finite) < 1e-3 * abs(finite)


def test_a_range_whose_body_indexes_a_list_by_the_counter_stays_unrolled():
    scales = [0.9, 0.5, 0.25, 0.1]
    jitted = jax.jit(lambda x: convert(scaled_until_small)(x, scales))
    for x in (3.0, 0.95, 100.0):
        assert float(jitted(jnp.float32(x))) == pytest.approx(
            scaled_until_small(np.float32(x), scales), rel=1e-6)
