"""``keras.backend``: ``clear_session`` (layer names start again from ``dense``), and the
functions of Keras 2's backend that ``tf.keras.backend`` still has (``K.mean(K.square(...))``
in custom losses and metrics of older programs): TensorFlow's ops under Keras' names, with
Keras' defaults (``axis=None`` reduces every axis, bools are averaged as floats, ``sqrt``
clips negative values to 0, ``clip`` takes ``max_value < min_value`` as ``min_value``)."""

from __future__ import annotations

import numpy as _np

import runtime as _rt
from runtime.keras import activations as _activations
from runtime.keras.ops import (all, any, dot, max, min, prod, stack,  # noqa: A004,F401
                               sum)  # (the same in Keras' ops)
from runtime.keras.layers import base as _base
from runtime.keras.missing import missing as _missing


def clear_session() -> None:
    """Forgets the layer names given so far, so the next ``Dense`` is ``dense`` again."""
    with _base._name_lock:
        _base._name_counts.clear()


def floatx() -> str:
    return "float32"


def epsilon() -> float:
    """The fuzz factor losses and metrics use (clipping probabilities, dividing)."""
    return 1e-7


def image_data_format() -> str:
    """Images are channels last, the only layout the layers take."""
    return "channels_last"


def int_shape(x) -> tuple:
    """The static shape of a tensor, variable or Keras tensor, None for unknown dimensions."""
    return tuple(x.shape)


def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic input or output of a functional model."""
    from runtime.keras.functional import KerasTensor  # (imports the layers, which import this)
    return isinstance(x, KerasTensor)


def ndim(x) -> int:
    return len(x.shape)


def count_params(x) -> int:
    return int(_np.prod(x.shape))


def cast_to_floatx(x) -> _np.ndarray:
    return _np.asarray(x, dtype=floatx())


def get_value(x) -> _np.ndarray:
    return _np.asarray(x.numpy())


def set_value(x, value) -> None:
    x.assign(_np.asarray(value, dtype=x.dtype))


def constant(value, dtype=None, shape=None):
    tensor = _rt.constant(value, dtype or floatx())
    return tensor if shape is None else _rt.broadcast_to(tensor, shape)


# -- elementwise: TensorFlow's ops ---------------------------------------------------------

abs, round, pow = _rt.abs, _rt.round, _rt.pow  # noqa: A001
cos, exp, log, sin, sign = _rt.cos, _rt.exp, _rt.math.log, _rt.sin, _rt.sign
square, tanh, sigmoid = _rt.square, _rt.tanh, _rt.sigmoid
softplus, softsign = _rt.nn.softplus, _rt.nn.softsign
equal, not_equal, greater, greater_equal = _rt.equal, _rt.not_equal, _rt.greater, _rt.greater_equal
less, less_equal, maximum, minimum = _rt.less, _rt.less_equal, _rt.maximum, _rt.minimum
cast, zeros_like, ones_like = _rt.cast, _rt.zeros_like, _rt.ones_like
stop_gradient, shape, transpose, gather, tile = (_rt.stop_gradient, _rt.shape, _rt.transpose,
                                                 _rt.gather, _rt.tile)
relu, elu, hard_sigmoid = _activations.relu, _activations.elu, _activations.hard_sigmoid


def sqrt(x):
    """The square root of ``x`` clipped to ``[0, inf)`` first (no NaN for tiny negatives)."""
    return _rt.sqrt(_rt.clip_by_value(x, 0.0, _np.inf))


def clip(x, min_value, max_value):
    if max_value is None:
        max_value = _np.inf
    if min_value is None:
        min_value = -_np.inf
    if max_value < min_value:
        max_value = min_value
    return _rt.clip_by_value(x, min_value, max_value)


def softmax(x, axis=-1):
    return _rt.nn.softmax(x, axis=axis)


def l2_normalize(x, axis=None):
    return _rt.math.l2_normalize(x, axis=axis)


# -- reductions: every axis when ``axis`` is None (sum, prod, max, min, any and all are
# Keras' ops) ------------------------------------------------------------------------------

def _floats_if_bool(x):
    x = _rt.convert_to_tensor(x)
    return _rt.cast(x, floatx()) if x.dtype == _np.bool_ else x


def mean(x, axis=None, keepdims=False):
    return _rt.reduce_mean(_floats_if_bool(x), axis=axis, keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    return _rt.math.reduce_variance(_floats_if_bool(x), axis=axis, keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    return _rt.math.reduce_std(_floats_if_bool(x), axis=axis, keepdims=keepdims)


def argmax(x, axis=-1):
    return _rt.argmax(x, axis=axis)


def argmin(x, axis=-1):
    return _rt.argmin(x, axis=axis)


def cumsum(x, axis=0):
    return _rt.cumsum(x, axis=axis)


def cumprod(x, axis=0):
    return _rt.math.cumprod(x, axis=axis)


# -- shapes --------------------------------------------------------------------------------

def concatenate(tensors, axis=-1):
    return _rt.concat(list(tensors), axis=axis)


def reshape(x, shape):
    return _rt.reshape(x, shape)


def expand_dims(x, axis=-1):
    return _rt.expand_dims(x, axis)


def squeeze(x, axis):
    return _rt.squeeze(x, axis=axis)


def flatten(x):
    return _rt.reshape(x, [-1])


def batch_flatten(x):
    """Each sample flattened: shape ``(batch, everything else)``."""
    return _rt.reshape(x, [-1, int(_np.prod(x.shape[1:]))])


def permute_dimensions(x, pattern):
    return _rt.transpose(x, list(pattern))


def repeat_elements(x, rep, axis):
    return _rt.repeat(x, rep, axis=axis)


def one_hot(indices, num_classes):
    return _rt.one_hot(indices, num_classes, axis=-1)


def arange(start, stop=None, step=1, dtype="int32"):
    return _rt.cast(_rt.range(start, stop, step), dtype)


__getattr__ = _missing("keras.backend")
