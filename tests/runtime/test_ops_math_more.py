"""The rt.math ops of issue 13 against NumPy on random inputs, eagerly and in graphs, with
their dtype rules, negative axes and errors; saved graphs and exports that use them."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.errors import GraphTypeError, InvalidArgumentError

SETTINGS = settings(max_examples=15, deadline=None)
FLOATS = [np.float32, np.float64]
NUMBERS = [np.int32, np.int64, np.float32, np.float64]


def arrays(dtype, shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), low=-20, high=20):
    if np.dtype(dtype).kind == "f":
        elements = st.floats(low, high, width=np.dtype(dtype).itemsize * 8)
    else:
        elements = st.integers(low, high)
    return hnp.arrays(dtype, shape, elements=elements)


def both(fn, *args):
    """``fn`` eagerly and as a traced graph, on the same arguments (a new trace for each of
    hypothesis' shapes and dtypes: retracing is the point here, not a warning)."""
    eager = fn(*[rt.constant(a) for a in args])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rt.errors.RetracingWarning)
        graph = rt.function(fn)(*[rt.constant(a) for a in args])
    return eager, graph


def check(fn, expected, *args, rtol=1e-6):
    for result in both(fn, *args):
        got = np.asarray(result.numpy())
        assert got.dtype == np.asarray(expected).dtype, (got.dtype, np.asarray(expected).dtype)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol)


UNARY = {
    "asin": (rt.math.asin, np.arcsin, 0.75), "acos": (rt.math.acos, np.arccos, 0.75),
    "atan": (rt.math.atan, np.arctan, 20), "sinh": (rt.math.sinh, np.sinh, 5),
    "cosh": (rt.math.cosh, np.cosh, 5), "expm1": (rt.math.expm1, np.expm1, 5),
    "erf": (rt.math.erf, np.vectorize(math.erf), 3),
    "log_sigmoid": (rt.math.log_sigmoid, lambda x: -np.logaddexp(0, -x), 30),
    "rsqrt": (rt.math.rsqrt, lambda x: 1 / np.sqrt(x), None),
    "reciprocal": (rt.math.reciprocal, lambda x: 1 / x, None),
}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: np.dtype(t).name)
@SETTINGS
@given(data=st.data())
def test_unary_functions_match_numpy(name, dtype, data):
    fn, reference, bound = UNARY[name]
    x = data.draw(arrays(dtype, low=0.5 if bound is None else -bound,
                         high=20 if bound is None else bound))
    check(fn, reference(x).astype(dtype), x, rtol=2e-5 if dtype == np.float32 else 1e-12)


def test_integer_inputs_compute_in_float64_and_reciprocal_keeps_integers():
    assert rt.math.asin(rt.constant([0, 1])).dtype == rt.float64
    assert rt.math.erf(rt.constant([1], rt.int64)).dtype == rt.float64
    np.testing.assert_array_equal(rt.math.reciprocal(rt.constant([2, -1, 1, 5])).numpy(),
                                  [0, -1, 1, 0])
    assert float(rt.math.log_sigmoid(rt.constant(-200.0))) == -200.0  # no log(0)


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: np.dtype(t).name)
@SETTINGS
@given(data=st.data())
def test_binary_functions_match_numpy(dtype, data):
    x = data.draw(arrays(dtype, shape=(3, 4)))
    y = data.draw(arrays(dtype, shape=(4,)).filter(lambda a: np.all(a != 0)))
    with np.errstate(over="ignore"):  # tiny divisors overflow to inf, in NumPy and in rt alike
        _check_binary(dtype, x, y)


def _check_binary(dtype, x, y):
    check(rt.math.squared_difference, np.square(x - y), x, y)
    check(rt.math.floormod, np.mod(x, y), x, y)
    if dtype in (np.int32, np.int64):
        check(rt.truncatediv, (np.trunc(x / y)).astype(dtype), x, y)
    else:
        check(rt.truncatediv, np.trunc(x / y), x, y)
        check(rt.atan2, np.arctan2(x, y), x, y, rtol=1e-5)
        check(rt.math.divide_no_nan, x / y, x, y, rtol=1e-5)


def test_no_nan_division_and_multiplication_give_zero_where_y_is_zero():
    x = rt.constant([1.0, np.inf, np.nan, 6.0])
    y = rt.constant([0.0, 0.0, 0.0, 3.0])
    np.testing.assert_array_equal(rt.math.divide_no_nan(x, y).numpy(), [0, 0, 0, 2])
    np.testing.assert_array_equal(rt.math.multiply_no_nan(x, y).numpy(), [0, 0, 0, 18])


def test_truncatediv_rounds_toward_zero_and_integer_division_by_zero_raises():
    x, y = rt.constant([7, -7, 7, -7, 5]), rt.constant([2, 2, -2, -2, 1])
    np.testing.assert_array_equal(rt.truncatediv(x, y).numpy(), [3, -3, -3, 3, 5])
    with pytest.raises(ZeroDivisionError, match="integer division by zero in truncatediv"):
        rt.truncatediv(x, rt.constant([2, 2, -2, -2, 0]))


def test_classifications():
    x = np.array([0.0, np.nan, np.inf, -np.inf, 1.5], np.float32)
    for fn, reference in ((rt.math.is_nan, np.isnan), (rt.math.is_inf, np.isinf),
                          (rt.math.is_finite, np.isfinite)):
        check(fn, reference(x), x)


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: np.dtype(t).name)
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_cumsum_and_cumprod(dtype, exclusive, reverse, data):
    x = data.draw(arrays(dtype, shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4),
                         low=-3, high=3))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    for fn, ufunc in ((rt.math.cumsum, np.add), (rt.math.cumprod, np.multiply)):
        moved = np.flip(x, axis) if reverse else x
        expected = ufunc.accumulate(moved, axis=axis, dtype=dtype)
        if exclusive:
            head = np.full_like(np.take(expected, [0], axis=axis), ufunc.identity)
            expected = np.concatenate([head, np.delete(expected, -1, axis)], axis)
        expected = np.flip(expected, axis) if reverse else expected
        check(lambda t: fn(t, axis=axis, exclusive=exclusive, reverse=reverse), expected, x)


def test_cumsum_refuses_bool_and_bad_axes():
    with pytest.raises(GraphTypeError, match="cumsum"):
        rt.cumsum(rt.constant([True]))
    with pytest.raises(Exception, match="axis 2 is out of range"):
        rt.cumsum(rt.constant([[1, 2]]), axis=2)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: np.dtype(t).name)
@SETTINGS
@given(data=st.data())
def test_moments_and_norms(dtype, data):
    x = data.draw(arrays(dtype, shape=(3, 4)))
    rtol = 1e-4 if dtype == np.float32 else 1e-10
    for axis in (None, 0, -1, (0, 1)):
        check(lambda t: rt.math.reduce_variance(t, axis), np.var(x, axis).astype(dtype), x,
              rtol=rtol)
        check(lambda t: rt.math.reduce_std(t, axis, keepdims=True),
              np.std(x, axis, keepdims=True).astype(dtype), x, rtol=rtol)
        check(lambda t: rt.math.reduce_euclidean_norm(t, axis),
              np.sqrt(np.sum(x * x, axis)).astype(dtype), x, rtol=rtol)


def test_moment_and_count_dtypes():
    with pytest.raises(TypeError, match="reduce_variance: the input must be a float"):
        rt.math.reduce_variance(rt.constant([1, 2]))
    assert rt.math.reduce_euclidean_norm(rt.constant([3, 4])).numpy() == 5
    counted = rt.math.count_nonzero(rt.constant([[0, 1, 2], [0, 0, 3]]), axis=-1)
    assert counted.dtype == rt.int64 and counted.numpy().tolist() == [2, 1]
    assert int(rt.math.count_nonzero(rt.constant([True, False, True]))) == 2


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: np.dtype(t).name)
@SETTINGS
@given(data=st.data())
def test_add_n_and_polyval(dtype, data):
    xs = [data.draw(arrays(dtype, shape=(2, 3))) for _ in range(3)]
    check(lambda a, b, c: rt.add_n([a, b, c]), xs[0] + xs[1] + xs[2], *xs)
    coeffs = [dtype(2), dtype(-1), dtype(3)]
    check(lambda x: rt.math.polyval(coeffs, x), np.polyval(coeffs, xs[0]).astype(dtype), xs[0])


def test_add_n_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"add_n: input 1 has shape \(3,\) but input 0 has \(2,\)"):
        rt.add_n([rt.constant([1, 2]), rt.constant([1, 2, 3])])
    with pytest.raises(TypeError, match="same dtype"):
        rt.add_n([rt.constant([1, 2]), rt.constant([1.0, 2.0])])
    with pytest.raises(ValueError, match="non-empty"):
        rt.add_n([])
    assert rt.math.polyval([], rt.constant([1.0, 2.0])).numpy().tolist() == [0, 0]


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: np.dtype(t).name)
@SETTINGS
@given(data=st.data())
def test_top_k_matches_a_stable_descending_sort(dtype, data):
    x = data.draw(arrays(dtype, shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                         low=-3, high=3))
    k = data.draw(st.integers(0, x.shape[-1]))
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :k]
    for values, indices in both(lambda t: rt.math.top_k(t, k), x):
        np.testing.assert_array_equal(indices.numpy(), order.astype(np.int32))
        np.testing.assert_array_equal(values.numpy(), np.take_along_axis(x, order, -1))


def test_top_k_refuses_a_k_larger_than_the_last_dimension():
    with pytest.raises(ValueError, match=r"top_k: k \(4\) .* shape \(2, 3\)"):
        rt.math.top_k(rt.zeros([2, 3]), 4)


def test_integer_overflow_in_erf_inputs_is_no_issue_and_kernels_fail_as_one_error():
    with pytest.raises(InvalidArgumentError, match="scatter_nd"):
        rt.scatter_nd([[5]], [1.0], [3])


def test_constant_folding_and_save_load_round_trip(tmp_path):
    def fn(x):
        folded = rt.math.cumsum(rt.constant([1.0, 2.0, 3.0]), exclusive=True)
        values, _ = rt.math.top_k(x, 2)
        return (rt.math.cumprod(x, axis=-1, reverse=True) + rt.math.erf(x)[..., :1], values,
                folded, rt.math.reduce_std(x), rt.math.atan2(x, 2.0))
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], np.float32)
    concrete = rt.function(fn).get_concrete_function(rt.TensorSpec((None, 3), rt.float32))
    path = str(tmp_path / "math.e2g")
    rt.save(concrete, path)
    loaded = rt.load(path)
    for got, want in zip(rt.nest.flatten(loaded(x)), rt.nest.flatten(concrete(x))):
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_exports_of_the_simple_ops():
    onnx = pytest.importorskip("onnxruntime")
    del onnx
    from tests.runtime.test_export_onnx_harness import export_and_compare
    x = np.array([[0.5, -0.25, np.nan], [np.inf, 0.1, -0.9]], np.float32)

    def fn(t):
        return (rt.math.asin(rt.clip_by_value(t, -1.0, 1.0)), rt.math.cosh(t), rt.math.erf(t),
                rt.math.is_nan(t), rt.math.is_finite(t), rt.math.is_inf(t),
                rt.math.cumsum(t, axis=1, exclusive=True, reverse=True),
                rt.pad(t, [[1, 0], [0, 2]], constant_values=7.0))
    concrete = rt.function(fn).get_concrete_function(rt.TensorSpec(x.shape, rt.float32))
    export_and_compare(concrete, x)


def test_jax_export_of_the_new_ops():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    try:
        x = np.array([[0.5, -0.25, 3.0], [2.0, 0.1, -0.9]], np.float64)

        def fn(t):
            values, indices = rt.math.top_k(t, 2)
            return (rt.math.log_sigmoid(t), rt.math.expm1(t), rt.math.atan2(t, 1.5),
                    rt.math.cumprod(t, axis=0, exclusive=True), rt.sort(t, direction="DESCENDING"),
                    values, indices, rt.searchsorted(rt.sort(t), t), rt.truncatediv(t, 0.3),
                    rt.pad(t, [[0, 1], [2, 0]]))
        concrete = rt.function(fn).get_concrete_function(rt.TensorSpec(x.shape, rt.float64))
        exported = rt.export.jax(concrete)
        for got, want in zip(rt.nest.flatten(exported(x)), rt.nest.flatten(concrete(x))):
            np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-12)
    finally:
        jax.config.update("jax_enable_x64", False)
