"""An integer division or remainder by zero raises, as in Python and TensorFlow (NumPy alone
gives 0 and warns): eagerly, in graphs, in the compiled tier, for every integer dtype. Float
division by zero keeps IEEE's inf and NaN (with NumPy's warning at the user's line)."""

import warnings

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime.backends.jit.c_build import builds_with_c
from runtime.errors import IntegerDivisionByZeroError, InvalidArgumentError

INTEGER_DTYPES = [np.int8, np.int32, np.int64, np.uint8, np.uint64]
DIVISIONS = {"floordiv": rt.floordiv, "mod": rt.mod, "truncatediv": rt.truncatediv}


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
@pytest.mark.parametrize("name", sorted(DIVISIONS))
def test_eager_integer_division_by_zero_raises(name, dtype):
    x, y = np.array([7, 5], dtype), np.array([2, 0], dtype)
    with pytest.raises(IntegerDivisionByZeroError, match="integer division by zero"):
        DIVISIONS[name](x, y)
    # Without a zero divisor: NumPy's (floordiv, mod) and C's (truncatediv) answers.
    assert DIVISIONS[name](x, np.array([2, 3], dtype)).numpy().tolist() == \
        {"floordiv": [3, 1], "mod": [1, 2], "truncatediv": [3, 1]}[name]


def quotient_and_remainder(x, d):
    return x // d, x % d


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_a_graph_raises_python_s_error_at_the_user_s_line(dtype):
    f = transpiler.function(quotient_and_remainder)
    assert [v.numpy().tolist() for v in f(np.array([-7, 7], dtype), np.array([2, -3], dtype))] \
        == [[-4, -3], [1, -2]]
    with pytest.raises(ZeroDivisionError) as raised:
        f(np.array([-7, 7], dtype), np.array([2, 0], dtype))
    assert isinstance(raised.value, InvalidArgumentError)
    assert "test_integer_division_by_zero.py" in str(raised.value)
    assert "return x // d, x % d" in str(raised.value)
    with pytest.raises(ZeroDivisionError):  # 0-d values run as NumPy scalars in a plan
        f(np.array(3, dtype), np.array(0, dtype))


def counted_division(x, d, n):
    total = x * 0
    for _ in range(n):
        total = total + x // d
    return total


@pytest.mark.parametrize("compiler", ["c", "numba"])
def test_the_compiled_tier_raises_too(compiler):
    pytest.importorskip("numba")
    if compiler == "c" and not builds_with_c():
        pytest.skip("no C compiler with Python's headers on this machine")
    rt.config.set_jit_compiler(compiler)  # the conftest restores the setting
    f = transpiler.function(counted_division, jit_compile=True)
    x, n = np.array([9, 4], np.int64), np.array(3, np.int64)
    assert f(x, np.array([2, 4], np.int64), n).numpy().tolist() == [12, 3]
    report = f.get_concrete_function(x, np.array([2, 4], np.int64), n).jit_report
    assert f"built by {'C' if compiler == 'c' else 'Numba'}" in report, report
    with pytest.raises(IntegerDivisionByZeroError):
        f(x, np.array([2, 0], np.int64), n)


def test_float_division_by_zero_gives_inf_and_warns_at_the_user_s_line():
    f = transpiler.function(quotient_and_remainder)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quotient, remainder = f(np.array([1.0, 2.0]), np.array([0.0, 1.0]))
    assert {(str(w.message), w.filename) for w in caught} == {
        ("divide by zero encountered in floor_divide", __file__),
        ("invalid value encountered in remainder", __file__)}
    assert quotient.numpy()[0] == np.inf and np.isnan(remainder.numpy()[0])


def test_numpy_s_error_state_chosen_by_the_user_applies():
    """np.errstate(divide="ignore") is the user asking for NumPy's 0: no error, no warning."""
    f = transpiler.function(quotient_and_remainder)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="ignore"):
            quotient, remainder = f(np.array([5], np.int32), np.array([0], np.int32))
    assert quotient.numpy().tolist() == [0] and remainder.numpy().tolist() == [0]
