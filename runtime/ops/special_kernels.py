"""NumPy kernels of the special functions TensorFlow has and NumPy lacks: the log-gamma
function, digamma and polygamma, ``erfc``, the inverse error function and the inverse normal
CDF (``ndtri``), and the exponentially scaled modified Bessel functions ``i0e`` and ``i1e``.

Each computes in float64 (from series, asymptotic expansions, recurrences and Newton steps on
Python's correctly rounded ``math.erf``/``erfc``/``lgamma``) and returns the input's float
dtype, so float32 results are float64 ones rounded once. Integers compute in float64, as
NumPy's ``exp`` does for them. The values at poles and outside the domains are TensorFlow's.
"""

from __future__ import annotations

import math

import numpy as np

# B_2, B_4, ..., B_18: the Bernoulli numbers of the asymptotic series of the polygamma functions.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798)
# Above this (plus twice the order) the asymptotic series is exact to float64 with the terms above.
_ASYMPTOTIC_FROM = 12.0
# Where the power series of the Bessel functions gives way to their asymptotic series: both
# are exact to float64 on their side (the series' terms are all positive; the asymptotic
# series' terms still fall fast at k = 30).
_BESSEL_SERIES_UP_TO = 30.0
_BESSEL_SERIES_TERMS = 90
_BESSEL_ASYMPTOTIC_TERMS = 30


def _float64(x: np.ndarray) -> tuple[np.ndarray, np.dtype]:
    """``x`` as float64, and the dtype the result is returned in."""
    x = np.asarray(x)
    dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    return x.astype(np.float64), dtype


def _elementwise(function) -> np.ufunc:
    return np.frompyfunc(function, 1, 1)


def _lgamma_or_inf(value: float) -> float:
    """Python's lgamma, with TensorFlow's +inf at the poles (Python raises there)."""
    try:
        return math.lgamma(value)
    except ValueError:  # 0 and the negative integers
        return math.inf


_math_lgamma = _elementwise(_lgamma_or_inf)
_math_erf = _elementwise(math.erf)
_math_erfc = _elementwise(math.erfc)


def _apply(function, x: np.ndarray) -> np.ndarray:
    """``function`` (of Python floats) on each element, in float64, back in ``x``'s dtype."""
    values, dtype = _float64(x)
    return np.asarray(function(values), dtype=np.float64).astype(dtype)


def lgamma(x: np.ndarray) -> np.ndarray:
    """``log|Γ(x)|``; +inf at 0 and the negative integers."""
    return _apply(_math_lgamma, x)


def erfc(x: np.ndarray) -> np.ndarray:
    """``1 - erf(x)``, without the cancellation (exact far into the right tail)."""
    return _apply(_math_erfc, x)


# -- digamma and polygamma ----------------------------------------------------------------------


def polygamma(order, x) -> np.ndarray:
    """The ``order``-th derivative of the digamma function (``order`` 0: digamma itself),
    elementwise with broadcasting; NaN for an order that is not a non-negative integer, as in
    TensorFlow. At the poles (0, the negative integers, -inf): +inf for odd orders, NaN for
    even ones. The result has ``x``'s float dtype."""
    order, _ = _float64(order)
    values, dtype = _float64(x)
    order, values = np.broadcast_arrays(order, values)
    result = np.full(values.shape, np.nan)
    for n in np.unique(order[(order >= 0) & (order == np.floor(order))]):
        here = order == n
        result[here] = _polygamma_of_order(int(n), values[here])
    return result.astype(dtype)


def digamma(x: np.ndarray) -> np.ndarray:
    """``ψ(x)``, the logarithmic derivative of the gamma function."""
    return polygamma(0, x)


def _polygamma_of_order(n: int, x: np.ndarray) -> np.ndarray:
    pole = (x <= 0) & (x == np.floor(x)) | (x == -np.inf)
    negative = (x < 0) & ~pole
    result = np.where(pole, np.inf if n % 2 else np.nan, np.nan)
    positive = ~pole & ~negative & ~np.isnan(x)
    result[positive] = _polygamma_positive(n, x[positive])
    result[negative] = _polygamma_reflected(n, x[negative])
    return result


def _polygamma_positive(n: int, x: np.ndarray) -> np.ndarray:
    """For ``x > 0``: the recurrence ``ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) - (-1)ⁿ n! / x⁽ⁿ⁺¹⁾`` carries
    ``x`` to where the asymptotic series is exact, and the terms it steps over are summed."""
    start = _ASYMPTOTIC_FROM + 2 * n
    steps = 0 if x.size == 0 else int(np.ceil(max(start - float(np.min(x)), 0)))
    sign_n_factorial = (-1) ** n * math.factorial(n)
    with np.errstate(over="ignore", divide="ignore"):
        correction = np.zeros_like(x)
        shifted = x.copy()
        for _ in range(steps):
            below = shifted < start
            correction[below] += sign_n_factorial / shifted[below] ** (n + 1)
            shifted[below] += 1
        return _polygamma_asymptotic(n, shifted) - correction


def _polygamma_asymptotic(n: int, x: np.ndarray) -> np.ndarray:
    """The asymptotic series of ``ψ⁽ⁿ⁾`` at large ``x`` (Stirling's series differentiated)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        inverse = 1 / x
        if n == 0:
            total = np.log(x) - 0.5 * inverse
            power = inverse * inverse
            for k, bernoulli in enumerate(_BERNOULLI, start=1):
                total -= bernoulli / (2 * k) * power
                power = power * inverse * inverse
            return np.where(x == np.inf, np.inf, total)
        total = math.factorial(n - 1) * inverse ** n + math.factorial(n) / 2 * inverse ** (n + 1)
        for k, bernoulli in enumerate(_BERNOULLI, start=1):
            coefficient = bernoulli * math.factorial(2 * k + n - 1) / math.factorial(2 * k)
            total += coefficient * inverse ** (2 * k + n)
        return (-1) ** (n + 1) * total


def _polygamma_reflected(n: int, x: np.ndarray) -> np.ndarray:
    """For ``x < 0`` (not an integer): the reflection formula
    ``ψ⁽ⁿ⁾(x) = (-1)ⁿ ψ⁽ⁿ⁾(1 - x) - π dⁿ/dxⁿ cot(πx)``; the derivative of the cotangent is a
    polynomial in ``c = cot(πx)``, computed from ``x``'s distance to the nearest integer so
    that large ``|x|`` keeps its precision."""
    fraction = x - np.round(x)
    cotangent = 1 / np.tan(np.pi * fraction)
    polynomial = np.polynomial.Polynomial([0.0, 1.0])  # cot, as a polynomial in c
    for _ in range(n):  # d/dx P(c) = P'(c) * dc/dx, and dc/dx = -π (1 + c²)
        polynomial = -polynomial.deriv() * np.polynomial.Polynomial([1.0, 0.0, 1.0])
    derivative = np.pi ** n * polynomial(cotangent)
    return (-1) ** n * _polygamma_positive(n, 1 - x) - np.pi * derivative


# -- the inverse error function and the inverse normal CDF ------------------------------------

_NEWTON_STEPS = 5
_TWO_OVER_ROOT_PI = 2 / math.sqrt(math.pi)


def _inverse_erf_positive(a: np.ndarray, complement: np.ndarray) -> np.ndarray:
    """``x >= 0`` with ``erf(x) = a`` (``0 <= a < 1``), given ``complement = 1 - a`` computed
    exactly by the caller (the right tail lives in it). A closed-form approximation (Winitzki's,
    within 0.2%) then Newton steps: on ``erf(x) - a`` for small ``a``, on ``log erfc(x) -
    log(1 - a)`` in the tail, where that function is nearly linear and keeps full precision."""
    log_term = np.log(complement) + np.log1p(a)  # log(1 - a²), exact in the tail
    width = 0.147
    half = 2 / (np.pi * width) + log_term / 2
    x = np.sqrt(np.maximum(np.sqrt(half * half - log_term / width) - half, 0))
    tail = a > 0.5
    log_complement = np.log(np.where(tail, complement, 1.0))
    for _ in range(_NEWTON_STEPS):
        slope = _TWO_OVER_ROOT_PI * np.exp(-x * x)
        with np.errstate(divide="ignore", invalid="ignore"):
            erfc_x = np.asarray(_math_erfc(np.where(tail, x, 0.0)), dtype=np.float64)
            tail_step = (np.log(erfc_x) - log_complement) / (-slope / erfc_x)
        erf_x = np.asarray(_math_erf(np.where(tail, 0.0, x)), dtype=np.float64)
        step = np.where(tail, tail_step, (erf_x - a) / slope)
        x = np.where(np.isfinite(step), np.maximum(x - step, 0), x)
    return x


def _inverse_erf_signed(sign, a, complement) -> np.ndarray:
    """``sign * x`` with ``erf(x) = a`` where ``0 <= a < 1``; ±inf where ``1 - a`` is 0
    and NaN beyond (and for NaN). The tail is told by ``complement``: ``a`` may round to 1."""
    result = np.where(complement == 0, np.inf, np.nan)
    inside = complement > 0
    result[inside] = _inverse_erf_positive(a[inside], complement[inside])
    return sign * result


def erfinv(y: np.ndarray) -> np.ndarray:
    """The inverse of ``erf`` on [-1, 1]: ±inf at ±1, NaN outside."""
    values, dtype = _float64(y)
    a = np.abs(values)
    return _inverse_erf_signed(np.sign(values) + (values == 0), a, 1 - a).astype(dtype)


def ndtri(p: np.ndarray) -> np.ndarray:
    """The inverse of the standard normal CDF on [0, 1]: ``-sqrt(2) erfcinv(2p)``, from the
    nearer tail so that small ``p`` and ``1 - p`` keep their precision; ±inf at 1 and 0."""
    values, dtype = _float64(p)
    nearer = np.minimum(values, 1 - values)  # 1 - p is exact for p >= 1/2
    with np.errstate(invalid="ignore"):
        sign = np.where(values < 0.5, -np.sqrt(2), np.sqrt(2))
        result = _inverse_erf_signed(sign, 1 - 2 * nearer, 2 * nearer)
    return np.where((values < 0) | (values > 1), np.nan, result).astype(dtype)


# -- exponentially scaled modified Bessel functions of orders 0 and 1 ---------------------------


def _bessel_series(order: int, x: np.ndarray) -> np.ndarray:
    """``I_order(x) e^-x`` for ``0 <= x <= 30`` from the power series
    ``Σ (x/2)^(2k + order) / (k! (k + order)!)``, whose terms are all positive."""
    quarter_square = x * x / 4
    term = (x / 2) ** order / math.factorial(order)
    total = term
    for k in range(1, _BESSEL_SERIES_TERMS):
        term = term * quarter_square / (k * (k + order))
        total = total + term
    return total * np.exp(-x)


def _bessel_asymptotic(order: int, x: np.ndarray) -> np.ndarray:
    """``I_order(x) e^-x`` for ``x > 30``: ``(2πx)^-1/2 Σ (-1)^k a_k / x^k`` with
    ``a_k = Π_{j<=k} (4 order² - (2j - 1)²) / (k! 8^k)``; the terms fall fast there."""
    term = np.ones_like(x)
    total = term
    for k in range(1, _BESSEL_ASYMPTOTIC_TERMS):
        term = -term * (4 * order * order - (2 * k - 1) ** 2) / (8 * k * x)
        total = total + term
    with np.errstate(divide="ignore"):
        return total / np.sqrt(2 * np.pi * x)


def _scaled_bessel(order: int, x: np.ndarray) -> np.ndarray:
    values, dtype = _float64(x)
    magnitude = np.abs(values)
    small = magnitude <= _BESSEL_SERIES_UP_TO
    result = np.empty_like(magnitude)
    result[small] = _bessel_series(order, magnitude[small])
    result[~small] = _bessel_asymptotic(order, magnitude[~small])
    if order % 2:
        result = np.sign(values) * result
    return np.where(np.isnan(values), np.nan, result).astype(dtype)


def bessel_i0e(x: np.ndarray) -> np.ndarray:
    """``I₀(x) e^-|x|``: finite for every ``x`` (``I₀`` itself overflows past about 713)."""
    return _scaled_bessel(0, x)


def bessel_i1e(x: np.ndarray) -> np.ndarray:
    """``I₁(x) e^-|x|``, odd in ``x``."""
    return _scaled_bessel(1, x)
