"""The activations of ``rt.nn`` that compose from existing ops (TensorFlow's formulas), so
each has its gradient without a rule of its own: ``elu``, ``selu``, ``gelu``, ``silu``/
``swish``, ``softsign``, ``relu6``."""

from __future__ import annotations

import math

from runtime.ops.array_ops import where
from runtime.ops.math_ops import (abs, add, divide, exp, greater_equal,  # noqa: A004
                                  minimum, multiply, sigmoid, subtract, tanh)
from runtime.ops.nn_ops import _floating, relu
from runtime.ops.special_math_ops import erf
from runtime.tensor import Tensor

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def elu(features) -> Tensor:
    """``features`` where positive, ``exp(features) - 1`` elsewhere. The exponential sees
    ``min(features, 0)``, so large inputs cannot overflow into the unused branch's gradient.
    At 0 (where both sides are 0 with slope 1) the positive side is taken, so the second
    derivative there is 0, as in TensorFlow."""
    x = _floating("elu", features)
    return where(greater_equal(x, 0), x, subtract(exp(minimum(x, 0)), 1))


def selu(features) -> Tensor:
    """``scale * elu(features)`` with the negative side scaled by ``alpha`` (the constants of
    self-normalizing networks). At 0 both sides are 0; the gradient there is the positive
    side's, ``scale``, as in TensorFlow."""
    x = _floating("selu", features)
    negative_side = multiply(subtract(exp(minimum(x, 0)), 1), _SELU_ALPHA)
    return multiply(where(greater_equal(x, 0), x, negative_side), _SELU_SCALE)


def gelu(features, approximate: bool = False) -> Tensor:
    """``x * Phi(x)`` with ``Phi`` the standard normal CDF (through ``erf``), or TensorFlow's
    tanh approximation when ``approximate`` is True."""
    x = _floating("gelu", features)
    if approximate:
        inner = multiply(add(x, multiply(multiply(multiply(x, x), x), 0.044715)),
                         math.sqrt(2.0 / math.pi))
        return multiply(multiply(x, 0.5), add(tanh(inner), 1))
    return multiply(multiply(x, 0.5), add(erf(multiply(x, 1.0 / math.sqrt(2.0))), 1))


def silu(features, beta: float = 1.0) -> Tensor:
    """``features * sigmoid(beta * features)`` (also called swish)."""
    x = _floating("silu", features)
    return multiply(x, sigmoid(x if beta == 1.0 else multiply(x, beta)))


swish = silu


def softsign(features) -> Tensor:
    """``features / (|features| + 1)``: a tanh-like curve that approaches ±1 polynomially."""
    x = _floating("softsign", features)
    return divide(x, add(abs(x), 1.0))


def relu6(features) -> Tensor:
    """``min(max(features, 0), 6)``; the gradient is 1 strictly between 0 and 6, as in
    TensorFlow, and 0 at both ends (through ``relu``, whose second derivative is zeros, not
    None). Integer features stay integers."""
    rectified = relu(features)
    return where(greater_equal(rectified, 6), 6, rectified)  # NaN stays NaN
