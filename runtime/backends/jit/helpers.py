"""Scalar functions the generated kernels call where Python's semantics (which Numba follows)
and NumPy's differ. Imported only when something is compiled: it imports Numba."""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, error_model="numpy", inline="always")


# Numba marks signed 64-bit + - * as never overflowing (LLVM's nsw), and LLVM then folds code
# after an overflow as if it had not happened ((a + 1) > a is always true). NumPy wraps around.
# Through uint64 the same bits come out, with no such promise: these wrap, as NumPy's int64 do.


@_jit
def wrapping_add(a, b):
    return np.int64(np.uint64(a) + np.uint64(b))


@_jit
def wrapping_sub(a, b):
    return np.int64(np.uint64(a) - np.uint64(b))


@_jit
def wrapping_mul(a, b):
    return np.int64(np.uint64(a) * np.uint64(b))


@_jit
def wrapping_neg(a):
    return np.int64(np.uint64(0) - np.uint64(a))


@_jit
def wrapping_abs(a):
    """NumPy's abs: ``abs(MIN) == MIN``."""
    return wrapping_neg(a) if a < 0 else np.int64(a)


@_jit
def int_floordiv(a, b):
    """NumPy's signed integer ``//``: 0 for a zero divisor, ``MIN // -1`` wraps to MIN."""
    if b == 0:
        return np.int64(0)
    if b == -1:
        return wrapping_neg(a)
    return np.int64(a // b)


@_jit
def uint_floordiv(a, b):
    """NumPy's unsigned ``//``: 0 for a zero divisor."""
    if b == 0:
        return a - a
    return a // b


@_jit
def int_mod(a, b):
    """NumPy's integer ``%``: 0 for a zero divisor (and for ``MIN % -1``)."""
    if b == 0 or (b < 0 and b == -1):
        return a - a
    return a % b


@_jit
def float_maximum(a, b):
    """NumPy's maximum: NaN wins (Python's ``max`` would drop it), and of two equal values
    the second (``maximum(0.0, -0.0)`` is -0.0)."""
    if a > b or a != a:
        return a
    return b


@_jit
def float_minimum(a, b):
    """NumPy's minimum: NaN wins, and of two equal values the second."""
    if a < b or a != a:
        return a
    return b


@_jit
def float_power(a, b):
    """NumPy's power with a scalar exponent, which takes sqrt for 0.5 (so -inf ** 0.5 is NaN
    and -0.0 ** 0.5 is -0.0, where C's pow gives inf and 0.0)."""
    if b == 0.5:
        return np.sqrt(a)
    return a ** b


@_jit
def truncated_mean(total, count):
    """The runtime's integer mean: the int64 total divided toward zero (as TensorFlow)."""
    quotient = wrapping_abs(total) // count
    return wrapping_neg(quotient) if total < 0 else quotient


HELPERS = {"np": np, "int_floordiv": int_floordiv, "uint_floordiv": uint_floordiv,
           "int_mod": int_mod,
           "float_maximum": float_maximum, "float_minimum": float_minimum,
           "float_power": float_power, "truncated_mean": truncated_mean,
           "wrapping_add": wrapping_add, "wrapping_sub": wrapping_sub,
           "wrapping_mul": wrapping_mul, "wrapping_neg": wrapping_neg,
           "wrapping_abs": wrapping_abs}
