"""Scalar functions the generated kernels call where Python's semantics (which Numba follows)
and NumPy's differ. Imported only when something is compiled: it imports Numba."""

from __future__ import annotations

import numba
import numpy as np

_jit = numba.njit(cache=True, error_model="numpy", inline="always")


@_jit
def int_floordiv(a, b):
    """NumPy's integer ``//``: 0 for a zero divisor, ``MIN // -1`` wraps to MIN."""
    if b == 0:
        return a - a
    if b < 0 and b == -1:  # never true for unsigned b
        return -a
    return a // b


@_jit
def int_mod(a, b):
    """NumPy's integer ``%``: 0 for a zero divisor (and for ``MIN % -1``)."""
    if b == 0 or (b < 0 and b == -1):
        return a - a
    return a % b


@_jit
def float_maximum(a, b):
    """NumPy's maximum: NaN wins (Python's ``max`` would drop it)."""
    if a >= b or a != a:
        return a
    return b


@_jit
def float_minimum(a, b):
    """NumPy's minimum: NaN wins."""
    if a <= b or a != a:
        return a
    return b


@_jit
def truncated_mean(total, count):
    """The runtime's integer mean: the int64 total divided toward zero (as TensorFlow)."""
    sign = (total > 0) - (total < 0)
    return sign * (np.abs(total) // count)


HELPERS = {"np": np, "int_floordiv": int_floordiv, "int_mod": int_mod,
           "float_maximum": float_maximum, "float_minimum": float_minimum,
           "truncated_mean": truncated_mean}
