"""Elementwise arithmetic, comparison, logic and unary math: one NumPy ufunc per op."""

from __future__ import annotations

import numpy as np

from runtime.ops.dispatch import apply_op
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, Promotion, register
from runtime.ops.shapes import broadcast, ufunc_result_dtype


def _binary(name: str, ufunc: np.ufunc, gradient, promotion: Promotion = Promotion.COMMON) -> OpDef:
    def infer(x, y):
        return ufunc_result_dtype(name, ufunc, (x.dtype, y.dtype)), broadcast(name, x.shape, y.shape)
    return register(OpDef(name, ufunc, infer, promotion=promotion, gradient=gradient))


def _unary(name: str, ufunc: np.ufunc, gradient) -> OpDef:
    def infer(x):
        return ufunc_result_dtype(name, ufunc, (x.dtype,)), x.shape
    return register(OpDef(name, ufunc, infer, gradient=gradient))


# Gradient rules: ``rule(node, dy)`` gives the gradient of each input, computed with ops (so it
# runs eagerly or adds to a graph). Broadcasting and promotion are undone by the caller
# (runtime.autodiff.backprop), so a rule may return a gradient of the output's shape.
_NONE = NOT_DIFFERENTIABLE


def _add_grad(node, dy):
    return dy, dy


def _subtract_grad(node, dy):
    return dy, negative(dy)


def _multiply_grad(node, dy):
    x, y = node.inputs
    return multiply(dy, y), multiply(dy, x)


def _sigmoid(x):
    return (1.0 / (1.0 + np.exp(-x))).astype(x.dtype, copy=False)


ADD = _binary("add", np.add, _add_grad)
SUBTRACT = _binary("subtract", np.subtract, _subtract_grad)
MULTIPLY = _binary("multiply", np.multiply, _multiply_grad)
DIVIDE = _binary("divide", np.true_divide, None)
FLOORDIV = _binary("floordiv", np.floor_divide, None)
MOD = _binary("mod", np.remainder, None)
POW = _binary("pow", np.power, None)
MAXIMUM = _binary("maximum", np.maximum, None)
MINIMUM = _binary("minimum", np.minimum, None)
EQUAL = _binary("equal", np.equal, _NONE, Promotion.COMPARE)
NOT_EQUAL = _binary("not_equal", np.not_equal, _NONE, Promotion.COMPARE)
GREATER = _binary("greater", np.greater, _NONE, Promotion.COMPARE)
GREATER_EQUAL = _binary("greater_equal", np.greater_equal, _NONE, Promotion.COMPARE)
LESS = _binary("less", np.less, _NONE, Promotion.COMPARE)
LESS_EQUAL = _binary("less_equal", np.less_equal, _NONE, Promotion.COMPARE)
LOGICAL_AND = _binary("logical_and", np.logical_and, _NONE, Promotion.COMPARE)
LOGICAL_OR = _binary("logical_or", np.logical_or, _NONE, Promotion.COMPARE)
LOGICAL_XOR = _binary("logical_xor", np.logical_xor, _NONE, Promotion.COMPARE)
BITWISE_AND = _binary("bitwise_and", np.bitwise_and, _NONE)
BITWISE_OR = _binary("bitwise_or", np.bitwise_or, _NONE)
BITWISE_XOR = _binary("bitwise_xor", np.bitwise_xor, _NONE)

NEGATIVE = _unary("negative", np.negative, None)
POSITIVE = _unary("positive", np.positive, None)
ABS = _unary("abs", np.absolute, None)
SIGN = _unary("sign", np.sign, None)
EXP = _unary("exp", np.exp, None)
LOG = _unary("log", np.log, None)
LOG1P = _unary("log1p", np.log1p, None)
SQRT = _unary("sqrt", np.sqrt, None)
SQUARE = _unary("square", np.square, None)
SIN = _unary("sin", np.sin, None)
COS = _unary("cos", np.cos, None)
TAN = _unary("tan", np.tan, None)
TANH = _unary("tanh", np.tanh, None)
FLOOR = _unary("floor", np.floor, None)
CEIL = _unary("ceil", np.ceil, None)
ROUND = _unary("round", np.rint, None)
LOGICAL_NOT = _unary("logical_not", np.logical_not, _NONE)
INVERT = _unary("invert", np.invert, _NONE)
SIGMOID = register(OpDef("sigmoid", _sigmoid, lambda x: (x.dtype, x.shape)))


def add(x, y):
    """``x + y`` elementwise, with broadcasting."""
    return apply_op(ADD, (x, y))


def subtract(x, y):
    return apply_op(SUBTRACT, (x, y))


def multiply(x, y):
    return apply_op(MULTIPLY, (x, y))


def divide(x, y):
    """True division: integer inputs give float64, Python's exact answer for ``/``."""
    return apply_op(DIVIDE, (x, y))


def floordiv(x, y):
    """``x // y`` with Python's rounding toward negative infinity."""
    return apply_op(FLOORDIV, (x, y))


def mod(x, y):
    """``x % y`` with the sign of ``y``, like Python."""
    return apply_op(MOD, (x, y))


def pow(x, y):  # noqa: A001 - the public name mirrors TensorFlow's
    return apply_op(POW, (x, y))


def maximum(x, y):
    return apply_op(MAXIMUM, (x, y))


def minimum(x, y):
    return apply_op(MINIMUM, (x, y))


def equal(x, y):
    return apply_op(EQUAL, (x, y))


def not_equal(x, y):
    return apply_op(NOT_EQUAL, (x, y))


def greater(x, y):
    return apply_op(GREATER, (x, y))


def greater_equal(x, y):
    return apply_op(GREATER_EQUAL, (x, y))


def less(x, y):
    return apply_op(LESS, (x, y))


def less_equal(x, y):
    return apply_op(LESS_EQUAL, (x, y))


def logical_and(x, y):
    return apply_op(LOGICAL_AND, (x, y))


def logical_or(x, y):
    return apply_op(LOGICAL_OR, (x, y))


def logical_xor(x, y):
    return apply_op(LOGICAL_XOR, (x, y))


def logical_not(x):
    return apply_op(LOGICAL_NOT, (x,))


def negative(x):
    return apply_op(NEGATIVE, (x,))


def abs(x):  # noqa: A001
    return apply_op(ABS, (x,))


def sign(x):
    return apply_op(SIGN, (x,))


def exp(x):
    return apply_op(EXP, (x,))


def log(x):
    return apply_op(LOG, (x,))


def log1p(x):
    return apply_op(LOG1P, (x,))


def sqrt(x):
    return apply_op(SQRT, (x,))


def square(x):
    return apply_op(SQUARE, (x,))


def sin(x):
    return apply_op(SIN, (x,))


def cos(x):
    return apply_op(COS, (x,))


def tan(x):
    return apply_op(TAN, (x,))


def tanh(x):
    return apply_op(TANH, (x,))


def sigmoid(x):
    return apply_op(SIGMOID, (x,))


def floor(x):
    return apply_op(FLOOR, (x,))


def ceil(x):
    return apply_op(CEIL, (x,))


def round(x):  # noqa: A001
    """Rounds half to even, like NumPy and TensorFlow."""
    return apply_op(ROUND, (x,))
