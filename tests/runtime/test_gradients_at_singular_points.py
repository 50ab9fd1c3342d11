"""Gradients where a derivative is infinite or two formulas meet: TensorFlow's conventions,
so that a branch ``where`` leaves out adds 0 to the gradient, not NaN."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import runtime as rt

X = [-1.0, 0.0, 4.0]


def _masked_gradient(fn, dtype, traced: bool):
    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.where(x > 0, fn(x), rt.zeros_like(x)))
        return tape.gradient(y, x)
    x = rt.constant(np.array(X, dtype))
    return (rt.function(gradient)(x) if traced else gradient(x)).numpy()


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn, at_4", [(rt.sqrt, 0.25), (rt.math.rsqrt, -1 / 16),
                                      (rt.math.reciprocal, -1 / 16)],
                         ids=["sqrt", "rsqrt", "reciprocal"])
def test_a_branch_where_leaves_out_adds_zero_not_nan(fn, at_4, dtype, traced):
    with np.errstate(invalid="ignore", divide="ignore"):  # the forward sqrt(-1) and 1/0
        gradient = _masked_gradient(fn, dtype, traced)
    np.testing.assert_array_equal(gradient, np.array([0.0, 0.0, at_4], dtype))
    assert not np.signbit(gradient[:2]).any()  # +0, as TensorFlow gives


def test_a_zero_output_gradient_gives_zero_through_sqrt_at_zero():
    x = rt.constant([0.0, 1.0], rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.sqrt(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing computed 0/0 on the way
        gradient = tape.gradient(y, x, output_gradients=rt.constant([0.0, 0.0], rt.float64))
    np.testing.assert_array_equal(gradient.numpy(), [0.0, 0.0])


def test_a_nonzero_gradient_at_zero_is_still_infinite():
    x = rt.constant([0.0], rt.float64)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.reduce_sum(rt.sqrt(x))
    with np.errstate(divide="ignore"):
        assert np.isposinf(tape.gradient(y, x).numpy()[0])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rsqrt_and_reciprocal_keep_numpys_bits(dtype):
    x = np.array([0.0, -0.0, 1e-30, 0.3, 2.0, 7.5e5, np.inf, np.nan], dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        np.testing.assert_array_equal(rt.math.rsqrt(x).numpy(), 1 / np.sqrt(x))
        np.testing.assert_array_equal(rt.math.reciprocal(x).numpy(), 1 / x)
        traced = rt.function(lambda v: (rt.math.rsqrt(v), rt.math.reciprocal(v)))(x)
        np.testing.assert_array_equal(traced[0].numpy(), 1 / np.sqrt(x))
        np.testing.assert_array_equal(traced[1].numpy(), 1 / x)
        assert rt.math.reciprocal(x).dtype == dtype


def test_reciprocal_of_integers_still_truncates():
    np.testing.assert_array_equal(rt.math.reciprocal(rt.constant([2, -1, 1])).numpy(), [0, -1, 1])


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_selu_takes_the_positive_sides_slope_at_zero(traced):
    def gradient(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reduce_sum(rt.nn.selu(x))
        return tape.gradient(y, x)
    x = rt.constant([0.0, -0.0, 1e-300, -0.5], rt.float64)
    result = (rt.function(gradient)(x) if traced else gradient(x)).numpy()
    scale, alpha = 1.0507009873554805, 1.6732632423543772
    np.testing.assert_allclose(result, [scale, scale, scale, scale * alpha * np.exp(-0.5)],
                               rtol=1e-15)
    np.testing.assert_array_equal(rt.nn.selu(x).numpy()[:3], [0.0, 0.0, 1e-300 * scale])

