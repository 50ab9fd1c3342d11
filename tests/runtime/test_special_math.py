"""The special functions of ``tf.math`` (lgamma, digamma, polygamma, erfc, erfinv, ndtri, the
Bessel functions, the inverse hyperbolic functions, rint): values at known points and
identities, the values at poles and domain edges TensorFlow gives, gradients against finite
differences, and graphs holding them (run on the NumPy plan, left there by the compiled tier).
Values compared with TensorFlow 2.21 itself are in tests/tf_programs/special_math.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

import runtime as rt
from runtime.ops import special_kernels
from tests.runtime.jit_helpers import left_on_plan, quiet, report_of

UNARY = {
    "asinh": (-4.0, 4.0), "acosh": (1.2, 5.0), "atanh": (-0.9, 0.9), "erfc": (-2.5, 3.0),
    "erfinv": (-0.95, 0.95), "lgamma": (0.2, 8.0), "digamma": (0.2, 8.0), "ndtri": (0.02, 0.98),
    "bessel_i0e": (-35.0, 35.0), "bessel_i1e": (-35.0, 35.0), "bessel_i0": (-4.0, 4.0),
    "bessel_i1": (-4.0, 4.0),
}


def test_lgamma_and_erfc_agree_with_python():
    x = np.array([-2.5, -0.5, 0.1, 1.0, 4.5, 30.0])
    np.testing.assert_allclose(special_kernels.lgamma(x), [math.lgamma(v) for v in x], rtol=1e-15)
    np.testing.assert_allclose(special_kernels.erfc(x), [math.erfc(v) for v in x], rtol=1e-15)


def test_digamma_at_known_points_and_its_recurrence():
    euler_gamma = 0.5772156649015329
    np.testing.assert_allclose(special_kernels.digamma(np.array([1.0, 0.5, 2.0])),
                               [-euler_gamma, -euler_gamma - 2 * math.log(2), 1 - euler_gamma],
                               rtol=1e-14)
    x = np.array([-7.3, -2.5, -0.25, 0.003, 0.7, 5.5, 40.0])
    np.testing.assert_allclose(special_kernels.digamma(x + 1) - special_kernels.digamma(x),
                               1 / x, rtol=1e-12)


def test_polygamma_matches_its_series_and_refuses_orders_that_are_not_whole():
    x = np.array([0.4, 1.5, 3.0])
    terms = 100000
    k = np.arange(terms)[:, None]
    for n in (1, 2, 3):  # ψ⁽ⁿ⁾(x) = (-1)ⁿ⁺¹ n! Σ 1 / (x + k)ⁿ⁺¹, the rest of the sum an integral
        total = np.sum(1 / (x + k) ** (n + 1), axis=0) + 1 / (n * (x + terms - 0.5) ** n)
        series = (-1) ** (n + 1) * math.factorial(n) * total
        np.testing.assert_allclose(special_kernels.polygamma(n, x), series, rtol=1e-8)
    assert np.isnan(special_kernels.polygamma(np.array([1.5, -1.0]), 2.0)).all()


def test_poles_and_domain_edges_are_tensorflows():
    poles = np.array([0.0, -1.0, -4.0, -np.inf])
    assert np.isposinf(special_kernels.lgamma(poles)).all()
    assert np.isnan(special_kernels.digamma(poles)).all()
    assert np.isposinf(special_kernels.polygamma(1, poles)).all()
    assert np.isnan(special_kernels.polygamma(2, poles)).all()
    np.testing.assert_array_equal(special_kernels.erfinv(np.array([-1.0, 1.0, 0.0])),
                                  [-np.inf, np.inf, 0.0])
    assert np.isnan(special_kernels.erfinv(np.array([1.5, -2.0, np.nan]))).all()
    np.testing.assert_array_equal(special_kernels.ndtri(np.array([0.0, 0.5, 1.0])),
                                  [-np.inf, 0.0, np.inf])
    assert np.isnan(special_kernels.ndtri(np.array([-0.1, 1.1]))).all()


def test_the_inverses_invert_in_the_tails_too():
    y = np.array([-0.999999999, -0.3, 1e-12, 0.2, 0.75, 1 - 1e-15])
    np.testing.assert_allclose([math.erf(v) for v in special_kernels.erfinv(y)], y, rtol=1e-14)
    p = np.array([1e-300, 1e-20, 1e-5, 0.3, 0.5, 0.9, 1 - 1e-12])
    x = special_kernels.ndtri(p)
    normal_cdf = [0.5 * math.erfc(-v / math.sqrt(2)) for v in x]
    np.testing.assert_allclose(normal_cdf, p, rtol=1e-12)


def test_the_scaled_bessel_functions_match_numpy_i0_and_their_limits():
    x = np.array([-29.0, -3.0, 0.0, 0.5, 12.0, 29.9, 30.1, 60.0])
    np.testing.assert_allclose(special_kernels.bessel_i0e(x), np.i0(x) * np.exp(-np.abs(x)),
                               rtol=1e-14)
    # I1 = I0' (differences of NumPy's i0), and i1e is odd.
    h = 1e-5
    slope = (np.i0(x + h) - np.i0(x - h)) / (2 * h) * np.exp(-np.abs(x))
    np.testing.assert_allclose(special_kernels.bessel_i1e(x), slope, rtol=1e-8, atol=1e-12)
    big = np.array([1e5, np.inf])
    np.testing.assert_allclose(special_kernels.bessel_i0e(big), [1 / math.sqrt(2e5 * math.pi), 0],
                               rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_values_keep_the_float_dtype(name, dtype):
    low, high = UNARY[name]
    y = getattr(rt.math, name)(rt.constant(np.linspace(low, high, 5, dtype=dtype)))
    assert y.dtype == dtype and y.shape == (5,)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_gradients_match_finite_differences(name):
    low, high = UNARY[name]
    x = np.linspace(low, high, 7) + 0.013  # off the points where a derivative jumps
    fn = getattr(rt.math, name)
    tensor = rt.constant(x)
    with rt.GradientTape() as tape:
        tape.watch(tensor)
        y = fn(tensor)
    h = 1e-6
    numeric = (fn(rt.constant(x + h)).numpy() - fn(rt.constant(x - h)).numpy()) / (2 * h)
    np.testing.assert_allclose(tape.gradient(y, tensor).numpy(), numeric, rtol=1e-6, atol=1e-8)


def test_the_gradient_of_polygamma_is_the_next_order_and_rint_has_none():
    x = rt.constant([0.3, 2.0, -1.5])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = rt.math.polygamma(2.0, x)
        r = rt.math.rint(x) + x
    np.testing.assert_allclose(tape.gradient(y, x), rt.math.polygamma(3.0, x), rtol=1e-6)
    np.testing.assert_array_equal(tape.gradient(r, x), [1.0, 1.0, 1.0])  # rint adds none
    np.testing.assert_allclose(rt.math.bessel_i1e(x), special_kernels.bessel_i1e(x.numpy()))


def test_a_graph_of_special_functions_runs_on_the_numpy_plan_and_stays_there():
    pytest.importorskip("numba")

    def special(x):
        return (rt.math.lgamma(x) + rt.math.digamma(x) + rt.math.erfinv(x / 10.0)
                + rt.math.bessel_i1e(x) + rt.math.asinh(x) + rt.math.rint(x) * 2.0)

    x = rt.constant(np.array([0.5, 1.5, 3.0], np.float32))
    expected = special(x).numpy()
    with quiet():
        compiled = rt.function(special, jit_compile=True)
        np.testing.assert_allclose(compiled(x), expected, rtol=1e-6)
        remaining = "\n".join(left_on_plan(report_of(compiled, x)))
    for op in ("lgamma", "digamma", "erfinv", "bessel_i1e", "asinh", "rint"):
        assert op in remaining, remaining
    np.testing.assert_allclose(rt.function(special, jit_compile=False)(x), expected, rtol=1e-6)
