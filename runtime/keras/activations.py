"""``rt.keras.activations``: activation functions by name, and ``get``."""

from __future__ import annotations

from typing import Callable

from runtime.keras import logits as _logits
from runtime.ops import math as _math
from runtime.ops import nn as _nn
from runtime.ops import reduce_ops as _reduce
from runtime.ops.array_ops import cast as _cast, clip_by_value as _clip, where as _where
from runtime.keras.missing import missing as _missing


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return _nn.relu(x)
    negative = _nn.relu(-x + threshold) * negative_slope if negative_slope else None
    y = x * _cast(_math.greater(x, threshold), x.dtype) if threshold else _nn.relu(x)
    if max_value is not None:
        y = _math.minimum(y, max_value)
    return y - negative if negative is not None else y


def sigmoid(x):
    return _logits.remember(_nn.sigmoid(x), x, "sigmoid")


def softmax(x, axis=-1):
    """Over one axis, or jointly over several (``axis`` a tuple), as Keras allows."""
    if isinstance(axis, (tuple, list)):
        shifted = x - _reduce.reduce_max(x, axis=list(axis), keepdims=True)
        exponentials = _math.exp(shifted)
        return exponentials / _reduce.reduce_sum(exponentials, axis=list(axis), keepdims=True)
    return _logits.remember(_nn.softmax(x, axis=axis), x, "softmax")


def tanh(x):
    return _nn.tanh(x)


def elu(x, alpha=1.0):
    y = _nn.elu(x)
    return y if alpha == 1.0 else _where(_math.greater(x, 0.0), y, y * alpha)


def selu(x):
    return _nn.selu(x)


def softplus(x):
    return _nn.softplus(x)


def softsign(x):
    return _nn.softsign(x)


def swish(x):
    return _nn.swish(x)


silu = swish


def gelu(x, approximate=False):
    return _nn.gelu(x, approximate=approximate)


def exponential(x):
    return _math.exp(x)


def leaky_relu(x, negative_slope=0.2):
    return _nn.leaky_relu(x, alpha=negative_slope)


def relu6(x):
    return _nn.relu6(x)


def hard_sigmoid(x):
    return _clip(x / 6.0 + 0.5, 0.0, 1.0)


def log_softmax(x, axis=-1):
    return _nn.log_softmax(x, axis=axis)


def log_sigmoid(x):
    return -_nn.softplus(-x)


def mish(x):
    return x * _nn.tanh(_nn.softplus(x))


def hard_silu(x):
    return x * hard_sigmoid(x)


def celu(x, alpha=1.0):
    """``x`` above 0, ``alpha * (exp(x / alpha) - 1)`` below."""
    return _nn.relu(x) + _math.minimum(0.0, alpha * (_math.exp(x / alpha) - 1.0))


def hard_tanh(x):
    return _clip(x, -1.0, 1.0)


def tanh_shrink(x):
    return x - _nn.tanh(x)


def squareplus(x, b=4):
    return (x + _math.sqrt(_math.square(x) + b)) / 2.0


_BY_NAME = {fn.__name__: fn for fn in (linear, relu, sigmoid, softmax, tanh, elu, selu, softplus,
                                      softsign, swish, gelu, exponential, leaky_relu, relu6,
                                      hard_sigmoid, log_softmax, log_sigmoid, mish, hard_silu,
                                      celu, hard_tanh, tanh_shrink, squareplus)}
_BY_NAME["silu"] = swish
hard_swish = _BY_NAME["hard_swish"] = hard_silu


def get(identifier) -> Callable:
    """The activation function named ``identifier`` (``None`` is ``linear``); a callable is
    returned as it is."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        try:
            return _BY_NAME[identifier]
        except KeyError:
            raise ValueError(f"unknown activation {identifier!r}; known: "
                             f"{', '.join(sorted(_BY_NAME))}, or pass a function.") from None
    if callable(identifier):
        return identifier
    raise TypeError(f"an activation is a name or a function, got {type(identifier).__name__}.")


def serialize(activation) -> str:
    return getattr(activation, "__name__", type(activation).__name__)



__getattr__ = _missing("keras.activations")
