"""The special functions of ``tf.math``: ``lgamma``, ``digamma``, ``polygamma``, ``erfc``,
``erfinv``, ``ndtri`` and the modified Bessel functions of orders 0 and 1 (exponentially scaled
or not). Each op is one ``OpDef``: its kernel (``runtime.ops.special_kernels``), type rule and
gradient rule, the derivatives being TensorFlow's formulas.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.ops import special_kernels
from runtime.ops.array_ops import ones_like, where
from runtime.ops.dispatch import apply_op
from runtime.ops.math_ops import (abs, add, divide, equal, exp,  # noqa: A004
                                  kernel_inputs, multiply, negative, sign, square, subtract)
from runtime.ops.registry import OpDef, Promotion, register
from runtime.ops.shapes import broadcast, ufunc_result_dtype
from runtime.tensor import Tensor


def _float_dtype(name: str, dtype: np.dtype) -> np.dtype:
    """The dtype the kernels return: the input's float dtype, float64 for integers (as
    NumPy's ``exp`` computes them)."""
    return ufunc_result_dtype(name, np.exp, (dtype,))


def _unary(name: str, kernel, gradient) -> OpDef:
    return register(OpDef(name, kernel, lambda x: (_float_dtype(name, x.dtype), x.shape),
                          gradient=gradient))


def _lgamma_grad(node, dy):
    return (multiply(dy, digamma(kernel_inputs(node)[0])),)


def _digamma_grad(node, dy):
    return (multiply(dy, polygamma(1, kernel_inputs(node)[0])),)


def _polygamma_grad(node, dy):
    """``d/dx ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁺¹⁾(x)``; the order gets none (TensorFlow has no derivative
    in it either)."""
    order, x = kernel_inputs(node)
    return None, multiply(dy, polygamma(add(order, 1), x))


def _erfc_grad(node, dy):
    x = kernel_inputs(node)[0]
    return (multiply(dy, multiply(-2 / math.sqrt(math.pi), exp(negative(square(x))))),)


def _erfinv_grad(node, dy):
    y = node.outputs[0]
    return (multiply(dy, multiply(math.sqrt(math.pi) / 2, exp(square(y)))),)


def _ndtri_grad(node, dy):
    y = node.outputs[0]
    return (multiply(dy, multiply(math.sqrt(2 * math.pi), exp(divide(square(y), 2)))),)


def _bessel_i0e_grad(node, dy):
    """``i0e' = i1e - sign(x) i0e``."""
    x = kernel_inputs(node)[0]
    return (multiply(dy, subtract(bessel_i1e(x), multiply(sign(x), node.outputs[0]))),)


def _bessel_i1e_grad(node, dy):
    """``i1e' = i0e - i1e (sign(x) + 1/x)``, and its limit 1/2 at 0."""
    x = kernel_inputs(node)[0]
    at_zero = equal(x, 0)
    safe_x = where(at_zero, ones_like(x), x)
    slope = subtract(bessel_i0e(x), multiply(node.outputs[0], add(sign(x), divide(1, safe_x))))
    return (multiply(dy, where(at_zero, 0.5, slope)),)


LGAMMA = _unary("lgamma", special_kernels.lgamma, _lgamma_grad)
DIGAMMA = _unary("digamma", special_kernels.digamma, _digamma_grad)
POLYGAMMA = register(OpDef(
    "polygamma", special_kernels.polygamma,
    lambda order, x: (_float_dtype("polygamma", x.dtype),  # one dtype: promoted
                      broadcast("polygamma", order.shape, x.shape)),
    promotion=Promotion.COMMON, gradient=_polygamma_grad))
ERFC = _unary("erfc", special_kernels.erfc, _erfc_grad)
ERFINV = _unary("erfinv", special_kernels.erfinv, _erfinv_grad)
NDTRI = _unary("ndtri", special_kernels.ndtri, _ndtri_grad)
BESSEL_I0E = _unary("bessel_i0e", special_kernels.bessel_i0e, _bessel_i0e_grad)
BESSEL_I1E = _unary("bessel_i1e", special_kernels.bessel_i1e, _bessel_i1e_grad)


def lgamma(x) -> Tensor:
    """``log|Γ(x)|``: +inf at 0 and the negative integers."""
    return apply_op(LGAMMA, (x,))


def digamma(x) -> Tensor:
    """``ψ(x)``, the derivative of ``lgamma``: NaN at 0 and the negative integers."""
    return apply_op(DIGAMMA, (x,))


def polygamma(a, x) -> Tensor:
    """``ψ⁽ᵃ⁾(x)``, the ``a``-th derivative of ``digamma`` (TensorFlow's argument order);
    NaN where ``a`` is not a non-negative whole number."""
    return apply_op(POLYGAMMA, (a, x))


def erfc(x) -> Tensor:
    """The complementary error function ``1 - erf(x)``, precise in the right tail."""
    return apply_op(ERFC, (x,))


def erfinv(x) -> Tensor:
    """The inverse error function on [-1, 1] (±inf at ±1, NaN outside)."""
    return apply_op(ERFINV, (x,))


def ndtri(x) -> Tensor:
    """The quantile function of the standard normal distribution on [0, 1]."""
    return apply_op(NDTRI, (x,))


def bessel_i0e(x) -> Tensor:
    """The modified Bessel function of order 0 scaled by ``exp(-|x|)``."""
    return apply_op(BESSEL_I0E, (x,))


def bessel_i1e(x) -> Tensor:
    """The modified Bessel function of order 1 scaled by ``exp(-|x|)``."""
    return apply_op(BESSEL_I1E, (x,))


def bessel_i0(x) -> Tensor:
    """The modified Bessel function of order 0: ``i0e(x) exp(|x|)`` (inf past about 713)."""
    return multiply(bessel_i0e(x), exp(abs(x)))


def bessel_i1(x) -> Tensor:
    """The modified Bessel function of order 1: ``i1e(x) exp(|x|)``."""
    return multiply(bessel_i1e(x), exp(abs(x)))
