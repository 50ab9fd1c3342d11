"""Elementwise arithmetic, comparisons, logic and unary math in JAX, with NumPy's results.

Each rule computes in the dtype the graph gives the op's output (NumPy's loop for it: int32
true division is float64, ``exp`` of int32 float64), so no JAX promotion rule is involved.
Where XLA differs from NumPy, the rule says how it gets NumPy's answer: integer ``//`` and
``%`` by zero give 0 (XLA: -1 and the dividend), the sign of a zero quotient or remainder is
NumPy's, a negative integer exponent raises as in NumPy, comparisons of mixed dtypes promote
as NumPy does.
"""

from __future__ import annotations

import numpy as np

import jax.numpy as jnp
from jax import lax

from runtime.export.jax_checks import check
from runtime.export.jax_values import to_jax
from runtime.ops import math_ops as m


def out_dtype(node, index: int = 0) -> np.dtype:
    return node.outputs[index].dtype


def operands(node, values, dtype=None) -> list:
    """The inputs as JAX arrays of ``dtype`` (default: the output's)."""
    dtype = out_dtype(node) if dtype is None else dtype
    return [to_jax(v, dtype, node) for v in values]


def _elementwise(fn, bool_fn=None):
    """A rule applying ``fn`` to the inputs in the output dtype (``bool_fn`` for bools)."""
    def rule(node, *values):
        args = operands(node, values)
        if out_dtype(node) == np.bool_ and bool_fn is not None:
            return bool_fn(*args)
        return fn(*args)
    return rule


def _floordiv(node, x, y):
    x, y = operands(node, (x, y))
    if x.dtype.kind == "f":
        quotient = jnp.floor_divide(x, y)
        # NumPy's zero quotient has the sign of x / y (JAX's is +0).
        return jnp.where(quotient == 0, jnp.copysign(jnp.zeros_like(quotient), x / y), quotient)
    zero = y == 0
    safe = jnp.where(zero, jnp.ones_like(y), y)
    quotient, remainder = lax.div(x, safe), lax.rem(x, safe)  # truncated toward zero
    if x.dtype.kind == "i":
        quotient = quotient - ((remainder != 0) & ((remainder < 0) != (safe < 0))).astype(x.dtype)
    return jnp.where(zero, jnp.zeros_like(quotient), quotient)  # NumPy: x // 0 == 0


def _mod(node, x, y):
    x, y = operands(node, (x, y))
    if x.dtype.kind == "f":
        remainder = jnp.remainder(x, y)
        # NumPy's zero remainder has the sign of y.
        return jnp.where(remainder == 0, jnp.copysign(jnp.zeros_like(remainder), y), remainder)
    zero = y == 0
    safe = jnp.where(zero, jnp.ones_like(y), y)
    remainder = lax.rem(x, safe)
    if x.dtype.kind == "i":
        remainder = jnp.where((remainder != 0) & ((remainder < 0) != (safe < 0)),
                              remainder + safe, remainder)
    return jnp.where(zero, jnp.zeros_like(remainder), remainder)  # NumPy: x % 0 == 0


def _pow(node, x, y):
    dtype = out_dtype(node)
    if dtype.kind in "iu":
        check(node, y >= 0 if dtype.kind == "i" else np.bool_(True),
              lambda: "Integers to negative integer powers are not allowed.")
    return jnp.power(*operands(node, (x, y)))


def _compare(fn):
    """NumPy compares mixed dtypes in the dtype they promote to (Python numbers already took
    a dtype next to the tensor when the graph was traced)."""
    def rule(node, x, y):
        dtype = np.result_type(x.dtype, y.dtype)
        return fn(*operands(node, (x, y), dtype))
    return rule


def truth(node, value):
    """A value as NumPy's logical ops see it: nonzero is true."""
    value = to_jax(value, value.dtype, node)
    return value if value.dtype == np.bool_ else value != 0


def _logical(fn):
    def rule(node, *values):
        return fn(*(truth(node, v) for v in values))
    return rule


def _float_unary(fn):
    """Math that NumPy computes in the float dtype the output has (int32 -> float64)."""
    def rule(node, x):
        return fn(*operands(node, (x,)))
    return rule


def _rounding(fn):
    def rule(node, x):
        (x,) = operands(node, (x,))
        return x if x.dtype.kind not in "fc" else fn(x)
    return rule


def _sigmoid(node, x):
    (x,) = operands(node, (x,))
    return 1 / (1 + jnp.exp(-x))  # the kernel's formula: exp(-x) -> inf gives 0


def _sign(node, x):
    (x,) = operands(node, (x,))
    return x if x.dtype == np.bool_ else jnp.sign(x)


def _abs(node, x):
    (x,) = operands(node, (x,))
    return x if x.dtype == np.bool_ else jnp.abs(x)


def _invert(node, x):
    (x,) = operands(node, (x,))
    return jnp.logical_not(x) if x.dtype == np.bool_ else jnp.invert(x)


LOWERINGS = {
    m.ADD: _elementwise(jnp.add, jnp.logical_or),
    m.SUBTRACT: _elementwise(jnp.subtract),
    m.MULTIPLY: _elementwise(jnp.multiply, jnp.logical_and),
    m.DIVIDE: _elementwise(jnp.true_divide),
    m.FLOORDIV: _floordiv,
    m.MOD: _mod,
    m.POW: _pow,
    m.MAXIMUM: _elementwise(jnp.maximum, jnp.logical_or),
    m.MINIMUM: _elementwise(jnp.minimum, jnp.logical_and),
    m.EQUAL: _compare(jnp.equal),
    m.NOT_EQUAL: _compare(jnp.not_equal),
    m.GREATER: _compare(jnp.greater),
    m.GREATER_EQUAL: _compare(jnp.greater_equal),
    m.LESS: _compare(jnp.less),
    m.LESS_EQUAL: _compare(jnp.less_equal),
    m.LOGICAL_AND: _logical(jnp.logical_and),
    m.LOGICAL_OR: _logical(jnp.logical_or),
    m.LOGICAL_XOR: _logical(jnp.logical_xor),
    m.LOGICAL_NOT: _logical(jnp.logical_not),
    m.BITWISE_AND: _elementwise(jnp.bitwise_and),
    m.BITWISE_OR: _elementwise(jnp.bitwise_or),
    m.BITWISE_XOR: _elementwise(jnp.bitwise_xor),
    m.NEGATIVE: _elementwise(jnp.negative),
    m.POSITIVE: _elementwise(lambda x: x),
    m.ABS: _abs,
    m.SIGN: _sign,
    m.EXP: _float_unary(jnp.exp),
    m.LOG: _float_unary(jnp.log),
    m.LOG1P: _float_unary(jnp.log1p),
    m.SQRT: _float_unary(jnp.sqrt),
    m.RSQRT: _float_unary(lambda x: 1 / jnp.sqrt(x)),
    m.RECIPROCAL: _float_unary(lambda x: 1 / x),
    m.SQUARE: _elementwise(lambda x: x * x, jnp.logical_and),
    m.SIN: _float_unary(jnp.sin),
    m.COS: _float_unary(jnp.cos),
    m.TAN: _float_unary(jnp.tan),
    m.TANH: _float_unary(jnp.tanh),
    m.FLOOR: _rounding(jnp.floor),
    m.CEIL: _rounding(jnp.ceil),
    m.ROUND: _rounding(lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)),
    m.INVERT: _invert,
    m.SIGMOID: _sigmoid,
}
