"""Elementwise arithmetic, comparison, logic and unary math: one NumPy ufunc per op; and the
gradient rules of these ops and of the reductions."""

from __future__ import annotations

import builtins

import numpy as np

from runtime import dtypes
from runtime.ops import array_ops
from runtime.ops.array_ops import (cast, expand_dims, ones_like, rank, reshape, shape, size, where,
                                   zeros_like)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, Promotion, register
from runtime.ops.reduce_ops import (REDUCE_LOGSUMEXP, REDUCE_MAX, REDUCE_MEAN, REDUCE_MIN,
                                    REDUCE_PROD, REDUCE_SUM, product_of_others, reduce_any,
                                    reduce_sum)
from runtime.ops.shapes import broadcast, reduced_shape, ufunc_result_dtype
from runtime.tensor import Tensor


def _binary(name: str, ufunc: np.ufunc, gradient, promotion: Promotion = Promotion.COMMON) -> OpDef:
    def infer(x, y):
        return ufunc_result_dtype(name, ufunc, (x.dtype, y.dtype)), broadcast(name, x.shape, y.shape)
    return register(OpDef(name, ufunc, infer, promotion=promotion, gradient=gradient))


def _unary(name: str, ufunc: np.ufunc, gradient) -> OpDef:
    def infer(x):
        return ufunc_result_dtype(name, ufunc, (x.dtype,)), x.shape
    return register(OpDef(name, ufunc, infer, gradient=gradient))


# -- gradient rules ---------------------------------------------------------------------------
# ``rule(node, dy)`` gives the gradient of each input, computed with ops (so it runs eagerly or
# adds to the graph being traced). The caller (runtime.autodiff.backprop) sums a gradient over
# the axes its input was broadcast along, casts it to the input's dtype and drops it for integer
# inputs, so a rule may return gradients of the output's shape. The formulas, and the
# conventions at ties and zeros, are TensorFlow's.
_NONE = NOT_DIFFERENTIABLE


def kernel_inputs(node) -> list:
    """The inputs as the kernel saw them. A traced node's are (promotion added the casts); an
    eager record holds what was passed, so Python numbers, arrays and tensors of another dtype
    become tensors of the dtype the op computed in."""
    dtype = node.outputs[0].dtype
    return [(value if value.dtype == dtype else cast(value, dtype))
            if isinstance(value, Tensor) else convert_to_tensor(value, dtype)
            for value in node.inputs]


def carries_gradient(value) -> bool:
    """Whether an input may want a gradient: a tensor, not a Python number or array passed to
    an eager op (a constant of a trace can be: a tape may watch the eager tensor it holds)."""
    return isinstance(value, Tensor)


def _add_grad(node, dy):
    return dy, dy


def _subtract_grad(node, dy):
    return dy, negative(dy)


def _multiply_grad(node, dy):
    x, y = node.inputs
    return multiply(dy, y), multiply(dy, x)


def _divide_grad(node, dy):
    x, y = kernel_inputs(node)
    if not carries_gradient(node.inputs[1]):
        return divide(dy, y), None
    return divide(dy, y), multiply(dy, divide(divide(negative(x), y), y))


def _mod_grad(node, dy):
    """Floor modulo ``x - floordiv(x, y) * y``; the quotient is piecewise constant."""
    x, y = kernel_inputs(node)
    return dy, multiply(dy, negative(floordiv(x, y))) if carries_gradient(node.inputs[1]) else None


def _pow_grad(node, dy):
    x, y = kernel_inputs(node)
    gx = None
    if carries_gradient(node.inputs[0]):
        gx = multiply(multiply(dy, y), pow(x, subtract(y, 1)))
    if not carries_gradient(node.inputs[1]):
        return gx, None
    # d(x**y)/dy = x**y * log(x), taken as 0 where x <= 0 (no false singularity at x = 0). The
    # log only ever sees positive values, so its own gradient stays finite too.
    positive_x = greater(x, 0)
    log_x = where(positive_x, log(where(positive_x, x, 1)), 0)
    return gx, multiply(multiply(dy, node.outputs[0]), log_x)


def _selection_grad(x_wins_fn):
    """``maximum``/``minimum``: the input that wins takes the whole gradient, ``x`` at a tie."""
    def rule(node, dy):
        x, y = kernel_inputs(node)
        x_wins = x_wins_fn(x, y)
        zero = zeros_like(dy)
        return where(x_wins, dy, zero), where(x_wins, zero, dy)
    return rule


def _negative_grad(node, dy):
    return (negative(dy),)


def _positive_grad(node, dy):
    return (dy,)


def _abs_grad(node, dy):
    return (multiply(dy, sign(kernel_inputs(node)[0])),)  # 0 at 0


def _sign_grad(node, dy):
    return (zeros_like(dy),)


def _exp_grad(node, dy):
    return (multiply(dy, node.outputs[0]),)


def _log_grad(node, dy):
    return (divide(dy, kernel_inputs(node)[0]),)


def _log1p_grad(node, dy):
    return (divide(dy, add(1, kernel_inputs(node)[0])),)


def _zero_where_dy_is_zero(node, dy, formula):
    """``formula(dy, y)`` (``y``: the op's output), and 0 wherever ``dy`` is 0: TensorFlow's
    rule for the ops whose derivative is infinite at a point (sqrt, rsqrt and reciprocal at
    0), so that a branch ``where`` left out (``where(x > 0, sqrt(x), 0)``) adds 0 to the
    gradient, not NaN. There ``formula`` sees ``y = 1``: no 0/0 or 0 * inf to warn about."""
    zero = equal(dy, 0)
    y = node.outputs[0]
    gradient = formula(dy, where(zero, ones_like(y), y))
    return (where(zero, zeros_like(gradient), gradient),)


def _sqrt_grad(node, dy):
    return _zero_where_dy_is_zero(node, dy, lambda dy, y: divide(multiply(dy, 0.5), y))


def _rsqrt_grad(node, dy):
    return _zero_where_dy_is_zero(
        node, dy, lambda dy, y: multiply(multiply(dy, -0.5), multiply(y, square(y))))


def _reciprocal_grad(node, dy):
    return _zero_where_dy_is_zero(node, dy, lambda dy, y: negative(multiply(dy, square(y))))


def _inexact(name: str, dtype: np.dtype) -> np.dtype:
    """``dtype``, a float or complex one (NumPy's reciprocal of an integer truncates; the
    public ``reciprocal`` sends integers to ``truncatediv`` instead)."""
    if dtype.kind not in "fc":
        raise TypeError(f"{name} takes floating-point or complex tensors, not {dtype.name}; "
                        f"cast the tensor to a float dtype first.")
    return dtype


def _rsqrt(x):
    return np.true_divide(1, np.sqrt(x))


def _round(x):
    return x if x.dtype.kind in "iub" else np.rint(x)


def _square_grad(node, dy):
    return (multiply(dy, multiply(kernel_inputs(node)[0], 2)),)


def _sin_grad(node, dy):
    return (multiply(dy, cos(kernel_inputs(node)[0])),)


def _cos_grad(node, dy):
    return (multiply(negative(dy), sin(kernel_inputs(node)[0])),)


def _tan_grad(node, dy):
    return (multiply(dy, square(divide(1, cos(kernel_inputs(node)[0])))),)


def _tanh_grad(node, dy):
    y = node.outputs[0]
    return (multiply(dy, subtract(1, multiply(y, y))),)


def _sigmoid_grad(node, dy):
    y = node.outputs[0]
    return (multiply(multiply(dy, y), subtract(1, y)),)


def _sigmoid(x):
    if x.dtype.kind not in "fc":  # as exp computes them: -x must not wrap around in uint8
        x = x.astype(ufunc_result_dtype("sigmoid", np.exp, (x.dtype,)))
    # exp(-x) overflows to inf for x below about -88 (float32): the sigmoid is then 0, exactly
    # what 1 / (1 + inf) gives, so the overflow is no error.
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


ADD = _binary("add", np.add, _add_grad)
SUBTRACT = _binary("subtract", np.subtract, _subtract_grad)
MULTIPLY = _binary("multiply", np.multiply, _multiply_grad)
DIVIDE = _binary("divide", np.true_divide, _divide_grad)
FLOORDIV = _binary("floordiv", np.floor_divide, _NONE)
MOD = _binary("mod", np.remainder, _mod_grad)
POW = _binary("pow", np.power, _pow_grad)
MAXIMUM = _binary("maximum", np.maximum, _selection_grad(lambda x, y: greater_equal(x, y)))
MINIMUM = _binary("minimum", np.minimum, _selection_grad(lambda x, y: less_equal(x, y)))
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

NEGATIVE = _unary("negative", np.negative, _negative_grad)
POSITIVE = _unary("positive", np.positive, _positive_grad)
ABS = _unary("abs", np.absolute, _abs_grad)
SIGN = _unary("sign", np.sign, _sign_grad)
EXP = _unary("exp", np.exp, _exp_grad)
LOG = _unary("log", np.log, _log_grad)
LOG1P = _unary("log1p", np.log1p, _log1p_grad)
SQRT = _unary("sqrt", np.sqrt, _sqrt_grad)
SQUARE = _unary("square", np.square, _square_grad)
# ``1 / sqrt(x)`` and ``1 / x`` (floats) as ops of their own, for their gradients' rule at 0.
RSQRT = register(OpDef("rsqrt", _rsqrt, lambda x: (
    ufunc_result_dtype("rsqrt", np.sqrt, (x.dtype,)), x.shape), gradient=_rsqrt_grad))
RECIPROCAL = register(OpDef("reciprocal", np.reciprocal, lambda x: (
    _inexact("reciprocal", x.dtype), x.shape), gradient=_reciprocal_grad))
SIN = _unary("sin", np.sin, _sin_grad)
COS = _unary("cos", np.cos, _cos_grad)
TAN = _unary("tan", np.tan, _tan_grad)
TANH = _unary("tanh", np.tanh, _tanh_grad)
FLOOR = _unary("floor", np.floor, _NONE)  # piecewise constant: no gradient, as in TensorFlow
CEIL = _unary("ceil", np.ceil, _NONE)
# Integers are whole already: they keep their dtype (NumPy's rint would make them floats), as
# in TensorFlow and JAX.
ROUND = register(OpDef("round", _round, lambda x: (
    x.dtype if x.dtype.kind in "iub" else ufunc_result_dtype("round", np.rint, (x.dtype,)),
    x.shape), gradient=_NONE))
LOGICAL_NOT = _unary("logical_not", np.logical_not, _NONE)
INVERT = _unary("invert", np.invert, _NONE)
# Integers compute in the float dtype ``exp`` gives them (int32 -> float64), like ``tanh``.
SIGMOID = register(OpDef("sigmoid", _sigmoid, lambda x: (
    ufunc_result_dtype("sigmoid", np.exp, (x.dtype,)), x.shape), gradient=_sigmoid_grad))


def add(x, y):
    """``x + y`` elementwise, with broadcasting."""
    return apply_op(ADD, (x, y))


def subtract(x, y):
    """Elementwise ``x - y``, broadcasting; Python numbers take the tensor's dtype."""
    return apply_op(SUBTRACT, (x, y))


def multiply(x, y):
    """Elementwise ``x * y``, broadcasting; Python numbers take the tensor's dtype."""
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
    """Elementwise ``x ** y``, broadcasting."""
    return apply_op(POW, (x, y))


def maximum(x, y):
    """Elementwise larger of ``x`` and ``y`` (NaN if either is NaN), broadcasting."""
    return apply_op(MAXIMUM, (x, y))


def minimum(x, y):
    """Elementwise smaller of ``x`` and ``y`` (NaN if either is NaN), broadcasting."""
    return apply_op(MINIMUM, (x, y))


def equal(x, y):
    """Elementwise ``x == y`` as a bool tensor, broadcasting."""
    return apply_op(EQUAL, (x, y))


def not_equal(x, y):
    """Elementwise ``x != y`` as a bool tensor, broadcasting."""
    return apply_op(NOT_EQUAL, (x, y))


def greater(x, y):
    """Elementwise ``x > y`` as a bool tensor, broadcasting."""
    return apply_op(GREATER, (x, y))


def greater_equal(x, y):
    """Elementwise ``x >= y`` as a bool tensor, broadcasting."""
    return apply_op(GREATER_EQUAL, (x, y))


def less(x, y):
    """Elementwise ``x < y`` as a bool tensor, broadcasting."""
    return apply_op(LESS, (x, y))


def less_equal(x, y):
    """Elementwise ``x <= y`` as a bool tensor, broadcasting."""
    return apply_op(LESS_EQUAL, (x, y))


def logical_and(x, y):
    """Elementwise ``x and y`` of bool tensors, broadcasting."""
    return apply_op(LOGICAL_AND, (x, y))


def logical_or(x, y):
    """Elementwise ``x or y`` of bool tensors, broadcasting."""
    return apply_op(LOGICAL_OR, (x, y))


def logical_xor(x, y):
    """Elementwise exclusive or of bool tensors, broadcasting."""
    return apply_op(LOGICAL_XOR, (x, y))


def logical_not(x):
    """Elementwise ``not x`` of a bool tensor."""
    return apply_op(LOGICAL_NOT, (x,))


def negative(x):
    """Elementwise ``-x``."""
    return apply_op(NEGATIVE, (x,))


def abs(x):  # noqa: A001
    """Elementwise absolute value (the magnitude, as a real tensor, for complex ``x``)."""
    return apply_op(ABS, (x,))


def sign(x):
    """Elementwise sign: -1, 0 or 1 (NaN stays NaN)."""
    return apply_op(SIGN, (x,))


def exp(x):
    """Elementwise ``e ** x``."""
    return apply_op(EXP, (x,))


def log(x):
    """Elementwise natural logarithm (``-inf`` at 0, NaN below)."""
    return apply_op(LOG, (x,))


def log1p(x):
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""
    return apply_op(LOG1P, (x,))


def sqrt(x):
    """Elementwise square root (NaN below 0 for real tensors)."""
    return apply_op(SQRT, (x,))


def square(x):
    """Elementwise ``x * x``."""
    return apply_op(SQUARE, (x,))


def sin(x):
    """Elementwise sine (radians)."""
    return apply_op(SIN, (x,))


def cos(x):
    """Elementwise cosine (radians)."""
    return apply_op(COS, (x,))


def tan(x):
    """Elementwise tangent (radians)."""
    return apply_op(TAN, (x,))


def tanh(x):
    """Elementwise hyperbolic tangent."""
    return apply_op(TANH, (x,))


def sigmoid(x):
    """Elementwise logistic function ``1 / (1 + exp(-x))``."""
    return apply_op(SIGMOID, (x,))


def floor(x):
    """Elementwise largest integer not above ``x``, in ``x``'s dtype."""
    return apply_op(FLOOR, (x,))


def ceil(x):
    """Elementwise smallest integer not below ``x``, in ``x``'s dtype."""
    return apply_op(CEIL, (x,))


def round(x):  # noqa: A001
    """Rounds half to even, like NumPy and TensorFlow."""
    return apply_op(ROUND, (x,))


# -- gradients of the reductions (runtime.ops.reduce_ops) -------------------------------------
# Set here rather than beside the ops: they broadcast with broadcast_to, and broadcast_ops
# sits above reduce_ops. ``axis`` is normalized (None or sorted non-negative axes).


def _unreduced(value, node):
    """``value``, shaped like the result of the reduction ``node``, with the reduced axes
    back as size-1 dimensions (the ``keepdims=True`` shape)."""
    x, axes = node.inputs[0], node.attrs["axis"]
    if node.attrs["keepdims"]:
        return value
    if x.shape is None:  # unknown rank: x's shape with the reduced axes set to 1
        dims = shape(x, dtypes.int64)
        if axes is None:
            return reshape(value, ones_like(dims))
        positions = expand_dims(array_ops.range(rank(x), dtype=dtypes.int64), 1)
        reduced = reduce_any(equal(positions, list(axes)), axis=1)
        return reshape(value, where(reduced, 1, dims))
    kept = reduced_shape(x.shape, axes, True)
    if None not in kept:
        return value if value.shape == kept else reshape(value, kept)
    for axis in builtins.range(len(kept)) if axes is None else axes:
        value = expand_dims(value, axis)  # in ascending order, each lands where it belongs
    return value


def _reduce_sum_grad(node, dy):
    x = node.inputs[0]
    return (broadcast_to(_unreduced(dy, node), shape(x, dtypes.int64)),)


def _reduce_mean_grad(node, dy):
    x, y, axes = node.inputs[0], node.outputs[0], node.attrs["axis"]
    reduced = x.shape if axes is None or x.shape is None else [x.shape[a] for a in axes]
    if reduced is not None and None not in reduced:
        # At least 1: an empty reduction leaves x no elements to divide a gradient among.
        count = float(builtins.max(np.prod(reduced, dtype=np.int64), 1))
    else:  # the number of elements of x per element of y
        count = cast(floordiv(size(x, dtypes.int64), maximum(size(y, dtypes.int64), 1)), dy.dtype)
    return (broadcast_to(divide(_unreduced(dy, node), count), shape(x, dtypes.int64)),)


def _extremum_grad(node, dy):
    """``reduce_max``/``reduce_min``: the gradient is split evenly among the elements equal to
    the result (TensorFlow's convention at ties)."""
    x = node.inputs[0]
    hits = cast(equal(_unreduced(node.outputs[0], node), x), dy.dtype)
    count = reduce_sum(hits, node.attrs["axis"], keepdims=True)
    return (multiply(divide(hits, count), _unreduced(dy, node)),)


def _reduce_prod_grad(node, dy):
    x = node.inputs[0]
    return (multiply(_unreduced(dy, node), product_of_others(x, node.attrs["axis"])),)


def _reduce_logsumexp_grad(node, dy):
    """The softmax over the reduced axes, ``exp(x - result)`` divided by its sum: the result
    is rounded on its own scale (by about 3e-5 near -1000 in float32), and the division
    cancels that error, which ``exp`` alone would pass on to every weight."""
    x = node.inputs[0]
    shifted = exp(subtract(x, _unreduced(node.outputs[0], node)))
    weights = divide(shifted, reduce_sum(shifted, node.attrs["axis"], keepdims=True))
    return (multiply(_unreduced(dy, node), weights),)


REDUCE_SUM.define_gradient(_reduce_sum_grad)
REDUCE_MEAN.define_gradient(_reduce_mean_grad)
REDUCE_MAX.define_gradient(_extremum_grad)
REDUCE_MIN.define_gradient(_extremum_grad)
REDUCE_PROD.define_gradient(_reduce_prod_grad)
REDUCE_LOGSUMEXP.define_gradient(_reduce_logsumexp_grad)
