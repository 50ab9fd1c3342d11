"""The elementwise functions of ``rt.math`` that need a kernel of their own: inverse
trigonometric and hyperbolic functions (and their inverses), ``expm1``, ``erf``, ``rint``,
``log_sigmoid``, ``atan2``, ``truncatediv``, ``truncatemod`` and the float classifications. Each is one ``OpDef`` with its
gradient rule, built from ops like the rules of ``runtime.ops.math_ops``.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.errors import IntegerDivisionByZeroError
from runtime.ops.dispatch import apply_op
from runtime.ops.math_ops import (add, divide, exp, kernel_inputs, multiply, negative, sigmoid,
                                  sqrt, square, subtract)
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, Promotion, register
from runtime.ops.shapes import broadcast, ufunc_result_dtype
from runtime.tensor import Tensor


def _unary(name: str, kernel, gradient, dtype_rule: np.ufunc) -> OpDef:
    """An op whose output dtype is what NumPy's ``dtype_rule`` gives (int32 -> float64)."""
    def infer(x):
        return ufunc_result_dtype(name, dtype_rule, (x.dtype,)), x.shape
    return register(OpDef(name, kernel, infer, gradient=gradient))


def _binary(name: str, ufunc: np.ufunc, gradient) -> OpDef:
    def infer(x, y):
        return ufunc_result_dtype(name, ufunc, (x.dtype, y.dtype)), broadcast(name, x.shape, y.shape)
    return register(OpDef(name, ufunc, infer, promotion=Promotion.COMMON, gradient=gradient))


def _one_minus_square_root(node):
    return sqrt(subtract(1, square(kernel_inputs(node)[0])))


def _asin_grad(node, dy):
    return (divide(dy, _one_minus_square_root(node)),)


def _acos_grad(node, dy):
    return (negative(divide(dy, _one_minus_square_root(node))),)


def _atan_grad(node, dy):
    return (divide(dy, add(1, square(kernel_inputs(node)[0]))),)


def _sinh_grad(node, dy):
    return (multiply(dy, cosh(kernel_inputs(node)[0])),)


def _cosh_grad(node, dy):
    return (multiply(dy, sinh(kernel_inputs(node)[0])),)


def _asinh_grad(node, dy):
    return (divide(dy, cosh(node.outputs[0])),)


def _acosh_grad(node, dy):
    return (divide(dy, sinh(node.outputs[0])),)


def _atanh_grad(node, dy):
    return (divide(dy, subtract(1, square(kernel_inputs(node)[0]))),)


def _expm1_grad(node, dy):
    return (multiply(dy, exp(kernel_inputs(node)[0])),)


def _erf_grad(node, dy):
    x = kernel_inputs(node)[0]
    return (multiply(dy, multiply(2 / math.sqrt(math.pi), exp(negative(square(x))))),)


def _log_sigmoid_grad(node, dy):
    return (multiply(dy, sigmoid(negative(kernel_inputs(node)[0]))),)


def _atan2_grad(node, dy):
    """``atan2(y, x)``: d/dy = x / (x² + y²), d/dx = -y / (x² + y²)."""
    y, x = kernel_inputs(node)
    scale = divide(dy, add(square(x), square(y)))
    return multiply(scale, x), negative(multiply(scale, y))


def _float_of(x: np.ndarray) -> np.ndarray:
    """Integers compute in the float dtype NumPy's ``exp`` gives them."""
    return x if x.dtype.kind in "fc" else x.astype(ufunc_result_dtype("erf", np.exp, (x.dtype,)))


_math_erf = np.frompyfunc(math.erf, 1, 1)


def _erf_kernel(x):
    # NumPy has no erf; Python's (C99's) is correctly rounded to double, applied per element.
    x = _float_of(x)
    return np.asarray(_math_erf(x.astype(np.float64)), dtype=np.float64).astype(x.dtype)


def _log_sigmoid_kernel(x):
    # log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)): no overflow and full precision for
    # large |x| (log(sigmoid(x)) would give log(0) = -inf below about -88 in float32).
    x = _float_of(x)
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _truncatediv_kernel(x, y):
    """Division rounded toward zero (C's); an integer division by zero raises, as ``//``."""
    if x.dtype.kind in "fc":
        return np.trunc(x / y)
    if not np.all(y):
        raise IntegerDivisionByZeroError.in_op("truncatediv")
    with np.errstate(divide="ignore", over="ignore"):
        quotient = np.floor_divide(x, y)
        remainder = np.remainder(x, y)
    if x.dtype.kind == "u":
        return quotient
    rounds_down = (remainder != 0) & ((x < 0) != (y < 0))
    return (quotient + rounds_down).astype(quotient.dtype)


def _truncatemod_kernel(x, y):
    """The remainder of ``truncatediv`` (C's ``%`` and ``fmod``: it has the sign of ``x``);
    an integer remainder by zero raises, as ``%``."""
    if x.dtype.kind in "iu" and not np.all(y):
        raise IntegerDivisionByZeroError.in_op("truncatemod")
    return np.fmod(x, y)


ASIN = _unary("asin", np.arcsin, _asin_grad, np.arcsin)
ACOS = _unary("acos", np.arccos, _acos_grad, np.arccos)
ATAN = _unary("atan", np.arctan, _atan_grad, np.arctan)
SINH = _unary("sinh", np.sinh, _sinh_grad, np.sinh)
COSH = _unary("cosh", np.cosh, _cosh_grad, np.cosh)
ASINH = _unary("asinh", np.arcsinh, _asinh_grad, np.arcsinh)
ACOSH = _unary("acosh", np.arccosh, _acosh_grad, np.arccosh)
ATANH = _unary("atanh", np.arctanh, _atanh_grad, np.arctanh)
# Rounds half to even in the float dtype; piecewise constant, so no gradient (as in TensorFlow).
RINT = _unary("rint", np.rint, NOT_DIFFERENTIABLE, np.rint)
EXPM1 = _unary("expm1", np.expm1, _expm1_grad, np.expm1)
ERF = _unary("erf", _erf_kernel, _erf_grad, np.exp)
LOG_SIGMOID = _unary("log_sigmoid", _log_sigmoid_kernel, _log_sigmoid_grad, np.exp)
IS_NAN = register(OpDef("is_nan", np.isnan, lambda x: (np.dtype(np.bool_), x.shape),
                        gradient=NOT_DIFFERENTIABLE))
IS_INF = register(OpDef("is_inf", np.isinf, lambda x: (np.dtype(np.bool_), x.shape),
                        gradient=NOT_DIFFERENTIABLE))
IS_FINITE = register(OpDef("is_finite", np.isfinite, lambda x: (np.dtype(np.bool_), x.shape),
                           gradient=NOT_DIFFERENTIABLE))
ATAN2 = _binary("atan2", np.arctan2, _atan2_grad)
TRUNCATEDIV = register(OpDef(
    "truncatediv", _truncatediv_kernel,
    lambda x, y: (ufunc_result_dtype("truncatediv", np.floor_divide, (x.dtype, y.dtype)),
                  broadcast("truncatediv", x.shape, y.shape)),
    promotion=Promotion.COMMON, gradient=NOT_DIFFERENTIABLE))
# No gradient rule, as in TensorFlow (asking for one is an error).
TRUNCATEMOD = register(OpDef(
    "truncatemod", _truncatemod_kernel,
    lambda x, y: (ufunc_result_dtype("truncatemod", np.fmod, (x.dtype, y.dtype)),
                  broadcast("truncatemod", x.shape, y.shape)),
    promotion=Promotion.COMMON))


def asin(x) -> Tensor:
    """The inverse sine, NaN outside [-1, 1]."""
    return apply_op(ASIN, (x,))


def acos(x) -> Tensor:
    """The inverse cosine, NaN outside [-1, 1]."""
    return apply_op(ACOS, (x,))


def atan(x) -> Tensor:
    """Elementwise arctangent, in radians."""
    return apply_op(ATAN, (x,))


def sinh(x) -> Tensor:
    """Elementwise hyperbolic sine."""
    return apply_op(SINH, (x,))


def cosh(x) -> Tensor:
    """Elementwise hyperbolic cosine."""
    return apply_op(COSH, (x,))


def asinh(x) -> Tensor:
    """The inverse hyperbolic sine."""
    return apply_op(ASINH, (x,))


def acosh(x) -> Tensor:
    """The inverse hyperbolic cosine, NaN below 1."""
    return apply_op(ACOSH, (x,))


def atanh(x) -> Tensor:
    """The inverse hyperbolic tangent: ±inf at ±1, NaN beyond."""
    return apply_op(ATANH, (x,))


def rint(x) -> Tensor:
    """The nearest whole number, half to even, in ``x``'s float dtype (``round`` keeps
    integers as they are; ``rint`` computes in floats, as NumPy's)."""
    return apply_op(RINT, (x,))


def expm1(x) -> Tensor:
    """``exp(x) - 1``, precise for ``x`` near 0."""
    return apply_op(EXPM1, (x,))


def erf(x) -> Tensor:
    """The Gauss error function."""
    return apply_op(ERF, (x,))


def log_sigmoid(x) -> Tensor:
    """``log(sigmoid(x))``, finite for every finite ``x``."""
    return apply_op(LOG_SIGMOID, (x,))


def atan2(y, x) -> Tensor:
    """The angle of the point ``(x, y)``, in TensorFlow's argument order (``y`` first)."""
    return apply_op(ATAN2, (y, x))


def truncatediv(x, y) -> Tensor:
    """Division rounded toward zero (``floordiv`` rounds toward negative infinity)."""
    return apply_op(TRUNCATEDIV, (x, y))


def truncatemod(x, y) -> Tensor:
    """The remainder of ``truncatediv``, with the sign of ``x`` (``floormod``'s has the sign
    of ``y``)."""
    return apply_op(TRUNCATEMOD, (x, y))


def is_nan(x) -> Tensor:
    """Elementwise test for NaN, as a bool tensor."""
    return apply_op(IS_NAN, (x,))


def is_inf(x) -> Tensor:
    """Elementwise test for positive or negative infinity, as a bool tensor."""
    return apply_op(IS_INF, (x,))


def is_finite(x) -> Tensor:
    """Elementwise test for a value that is neither infinite nor NaN, as a bool tensor."""
    return apply_op(IS_FINITE, (x,))

