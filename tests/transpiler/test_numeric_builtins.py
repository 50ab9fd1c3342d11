"""int(), float(), round(), abs() and range() on tensors in converted code: the width of the
tensor is kept, the result stands for a Python number, and no value silently differs from
Python's (a value Python would refuse raises when the graph runs)."""

import numpy as np
import pytest

import runtime as rt
from transpiler import convert, function

# Most tests make a new function per parametrized case (or per dtype), which the runtime rightly
# reports as a RetracingWarning; expected throughout this module.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def int_plus_one(x):
    return int(x) + 1


def float_of(x):
    return float(x)


def int_of(x):
    return int(x)


def rounded(x):
    return round(x)


def rounded_to_tenths(x):
    return round(x, 1)


def absolute(x):
    return abs(x)


def int_times_tensor(x, y):
    return int(x) * y


def int_plus_half(x):
    return int(x) + 0.5


def t(value, dtype):
    return rt.constant(np.array(value, dtype))


# -- int() ---------------------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype, expected, expected_dtype", [
    (2**40, rt.int64, 2**40 + 1, rt.int64),
    (2**31 - 2, rt.int32, 2**31 - 1, rt.int32),
    (127, rt.int8, 128, rt.int32),          # an int does not wrap at 127
    (255, rt.uint8, 256, rt.int32),
    (True, rt.bool, 2, rt.int32),
    (2.7, rt.float32, 3, rt.int32),         # truncates toward zero, like Python
    (-2.7, rt.float32, -1, rt.int32),
    (2.0**40 + 0.5, rt.float64, 2**40 + 1, rt.int64),
    (-1e15 - 0.5, rt.float64, -10**15 + 1, rt.int64),
])
def test_int_keeps_the_width(value, dtype, expected, expected_dtype):
    x = t(value, dtype)
    result = function(int_plus_one)(x)
    assert result.dtype == expected_dtype
    assert int(result) == expected == int_plus_one(x.numpy()[()])


@pytest.mark.parametrize("value, dtype", [
    (float("nan"), rt.float32), (float("inf"), rt.float64), (-float("inf"), rt.float32),
    (3e9, rt.float32), (1e19, rt.float64)])
def test_int_of_a_value_no_integer_of_that_width_holds_raises(value, dtype):
    # Python raises for NaN and infinity; a number beyond the width must not wrap around.
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"does not fit in int(32|64).*int\(\)"):
        function(int_of)(t(value, dtype))


def test_int_of_a_tensor_stands_for_a_python_int():
    for dtype in (rt.float32, rt.float64):
        y = t([1.5, 2.5], dtype)
        assert function(int_times_tensor)(t(3, rt.int64), y).dtype == dtype
        assert function(int_times_tensor)(t(3.9, rt.float64), y).dtype == dtype
    assert function(int_times_tensor)(t(3, rt.int64), t([1, 2], rt.int32)).dtype == rt.int32
    halves = function(int_plus_half)
    assert (halves(t(3, rt.int32)).dtype, float(halves(t(3, rt.int32)))) == (rt.float32, 3.5)
    assert (halves(t(3, rt.int64)).dtype, float(halves(t(3, rt.int64)))) == (rt.float64, 3.5)


def test_an_int_that_does_not_fit_the_narrower_tensor_it_meets_raises():
    y = t([1, 2], rt.int32)
    assert function(int_times_tensor)(t(5, rt.int64), y).numpy().tolist() == [5, 10]
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"2199023255552 does not fit in int32"):
        function(int_times_tensor)(t(2**41, rt.int64), y)


# -- float() -------------------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype, expected_dtype", [
    (1e300, rt.float64, rt.float64),
    (-2.5, rt.float32, rt.float32),
    (2**53, rt.int64, rt.float64),
    (-7, rt.int32, rt.float32),
    (200, rt.uint8, rt.float32),
    (True, rt.bool, rt.float32),
    (1.5, rt.float16, rt.float32),
])
def test_float_keeps_the_width(value, dtype, expected_dtype):
    x = t(value, dtype)
    result = function(float_of)(x)
    assert result.dtype == expected_dtype
    assert float(result) == float(x.numpy()[()])


def test_a_float_of_a_tensor_stands_for_a_python_float():
    def scaled(x, y):
        return float(x) * y
    for dtype in (rt.float32, rt.float64):
        assert function(scaled)(t(2, rt.int64), t([1.5], dtype)).dtype == dtype


@pytest.mark.parametrize("fn", [int_of, float_of])
def test_int_and_float_of_a_complex_tensor_are_refused_like_python(fn):
    with pytest.raises(TypeError, match=r"of a complex tensor .* rt\.cast"):
        function(fn)(t(1 + 2j, rt.complex64))


# -- round() and abs() ---------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype, expected_dtype", [
    (value, dtype, expected) for dtype, expected in ((rt.float32, rt.int32), (rt.float64, rt.int64))
    for value in (2.5, 3.5, -2.5, -0.4, 7.0)] + [
    (value, dtype, dtype) for dtype in (rt.int32, rt.int64) for value in (7, -3)])
def test_round_rounds_half_to_even_to_an_int_like_python(value, dtype, expected_dtype):
    x = t(value, dtype)
    result = function(rounded)(x)
    assert result.dtype == expected_dtype
    assert int(result) == round(x.numpy()[()]) == round(value)


def test_round_with_ndigits_on_a_tensor_says_how_to_scale():
    with pytest.raises(TypeError, match=r"round\(\) with ndigits .* rt\.round\(x \* 10\*\*n\)"):
        function(rounded_to_tenths)(t(2.25, rt.float32))


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.float32, rt.float64])
def test_abs_keeps_the_dtype(dtype):
    x = t([-3, 2], dtype)
    result = function(absolute)(x)
    assert result.dtype == dtype and result.numpy().tolist() == [3, 2]


def test_python_values_still_get_the_builtins():
    assert convert(int_plus_one)(2.7) == 3 and type(convert(int_of)(2.7)) is int
    assert convert(float_of)(3) == 3.0 and type(convert(float_of)(3)) is float
    assert convert(rounded)(2.5) == 2 and convert(rounded_to_tenths)(2.25) == 2.2
    assert convert(absolute)(-3) == 3


# -- range() counters take the dtype of the bounds -----------------------------------------


def sum_and_last(n):
    s = 0
    last = n - n
    for i in range(n):
        s += i
        last = i
    return s, last


def counting_down(n):
    s = 0
    last = n - n
    for i in range(n, 0, -1):
        s += i
        last = i
    return s, last


def between(start, stop):
    last = stop - stop
    for i in range(start, stop):
        last = i
    return last


def scaled_by_counter(n, x):
    for i in range(n):
        x = x + i * x
    return x


def while_counter_scales(n, x):
    i = 0
    while i < n:
        x = x * 0.5 + i
        i += 1
    return x


@pytest.mark.parametrize("dtype", [rt.int8, rt.uint8, rt.int16, rt.int32, rt.int64])
@pytest.mark.parametrize("fn", [sum_and_last, counting_down])
def test_for_range_takes_the_dtype_of_its_bounds(fn, dtype):
    s, last = function(fn)(t(10, dtype))
    assert last.dtype == dtype
    # The sum of Python ints is at least an int32 (int8 would wrap at 127).
    assert s.dtype == (rt.int64 if dtype == rt.int64 else rt.int32)
    assert (int(s), int(last)) == fn(10)


def test_an_int64_range_past_int32():
    start, stop = t(2**40, rt.int64), t(2**40 + 3, rt.int64)
    result = function(between)(start, stop)
    assert (result.dtype, int(result)) == (rt.int64, 2**40 + 2)
    assert function(between)(t(3, rt.int32), t(6, rt.int64)).dtype == rt.int64


@pytest.mark.parametrize("counter", [rt.int32, rt.int64])
@pytest.mark.parametrize("dtype", [rt.float32, rt.float64, rt.int32, rt.int64])
def test_a_counter_multiplied_into_a_tensor_keeps_the_tensor_dtype(counter, dtype):
    result = function(scaled_by_counter)(t(4, counter), t([1, 2], dtype))
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.numpy(), scaled_by_counter(4, np.array([1, 2], dtype)))


@pytest.mark.parametrize("dtype", [rt.float32, rt.float64])
def test_a_while_counter_added_to_a_float_keeps_its_dtype(dtype):
    result = function(while_counter_scales)(t(3, rt.int32), t(1.0, dtype))
    assert result.dtype == dtype and float(result) == while_counter_scales(3, 1.0)


# -- shapes with tensor dimensions ---------------------------------------------------------


def made_of_zeros_ones_and_fill(n):
    return rt.zeros([1, n, 2]), rt.ones([n], rt.int64), rt.fill([n, 3], 2.5)


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_tensor_dimensions_in_zeros_ones_and_fill(dtype):
    traced = function(made_of_zeros_ones_and_fill)
    graph = traced.get_concrete_function(rt.TensorSpec([], dtype)).graph
    assert [v.shape for v in graph.outputs] == [(1, None, 2), (None,), (None, 3)]
    zeros, ones, filled = traced(t(4, dtype))
    assert (zeros.shape, zeros.dtype) == ((1, 4, 2), rt.float32) and not zeros.numpy().any()
    assert (ones.shape, ones.dtype) == ((4,), rt.int64) and ones.numpy().tolist() == [1] * 4
    assert (filled.shape, filled.dtype) == ((4, 3), rt.float32) and (filled.numpy() == 2.5).all()


def test_a_dimension_that_is_not_a_scalar_integer_is_refused():
    def bad(x):
        return rt.zeros([1, x])
    with pytest.raises(TypeError, match=r"dimension 1 of the shape is a tensor of dtype float32"):
        function(bad)(t(2.0, rt.float32))
