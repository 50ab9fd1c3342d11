"""Keras' other regression and classification losses (one value per sample, Keras 3's
formulas): ``huber``, ``log_cosh``, ``kl_divergence``, ``poisson``,
``mean_squared_logarithmic_error``, ``mean_absolute_percentage_error``,
``cosine_similarity``, ``hinge``, ``squared_hinge``, ``categorical_hinge``.
``runtime.keras.losses`` wraps each in its loss class."""

from __future__ import annotations

import math

from runtime.keras import label_shapes
from runtime.ops import nn as _nn
from runtime.ops.array_ops import cast, clip_by_value, convert_to_tensor, where
from runtime.ops.math_ops import (abs, equal, log, logical_or, maximum, minimum,  # noqa: A004
                                  sqrt, square)
from runtime.ops.reduce_ops import reduce_all, reduce_max, reduce_mean, reduce_sum

EPSILON = 1e-7


def huber(y_true, y_pred, delta=1.0):
    """Squared error up to ``delta`` (halved), linear beyond it."""
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    error = y_pred - y_true
    magnitude = abs(error)
    delta = cast(convert_to_tensor(delta), y_pred.dtype)
    return reduce_mean(where(magnitude <= delta, 0.5 * square(error),
                             delta * magnitude - 0.5 * square(delta)), axis=-1)


def log_cosh(y_true, y_pred):
    """``log(cosh(error))``, computed as ``x + softplus(-2x) - log(2)`` (no overflow)."""
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    x = y_pred - y_true
    return reduce_mean(x + _nn.softplus(x * -2.0) - math.log(2.0), axis=-1)


def kl_divergence(y_true, y_pred):
    """``sum(p * log(p / q))`` with both clipped to ``[epsilon, 1]``."""
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    y_true = clip_by_value(y_true, EPSILON, 1.0)
    y_pred = clip_by_value(y_pred, EPSILON, 1.0)
    return reduce_sum(y_true * log(y_true / y_pred), axis=-1)


def poisson(y_true, y_pred):
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    return reduce_mean(y_pred - y_true * log(y_pred + EPSILON), axis=-1)


def mean_squared_logarithmic_error(y_true, y_pred):
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    first = log(maximum(y_pred, EPSILON) + 1.0)
    second = log(maximum(y_true, EPSILON) + 1.0)
    return reduce_mean(square(first - second), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    return 100.0 * reduce_mean(abs((y_true - y_pred) / maximum(abs(y_true), EPSILON)), axis=-1)


def _l2_normalized(x, axis):
    # A zero vector's inverse norm is 1 / EPSILON; 1e-30 only keeps 1 / 0 (and its warning)
    # out of the way, since any sum below it has an inverse norm far above 1 / EPSILON.
    squares = maximum(reduce_sum(square(x), axis=axis, keepdims=True), 1e-30)
    inverse_norm = minimum(1.0 / sqrt(squares), 1.0 / EPSILON)
    return x * inverse_norm


def cosine_similarity(y_true, y_pred, axis=-1):
    """Minus the cosine of the angle between target and prediction (-1: same direction)."""
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    return -reduce_sum(_l2_normalized(y_true, axis) * _l2_normalized(y_pred, axis), axis=axis)


def _signed(y_true):
    # Labels of 0 and 1 become -1 and 1; other labels are kept (Keras checks all of them).
    binary = reduce_all(logical_or(equal(y_true, 0.0), equal(y_true, 1.0)))
    return where(binary, 2.0 * y_true - 1.0, y_true)


def hinge(y_true, y_pred):
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    return reduce_mean(maximum(1.0 - _signed(y_true) * y_pred, 0.0), axis=-1)


def squared_hinge(y_true, y_pred):
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    return reduce_mean(square(maximum(1.0 - _signed(y_true) * y_pred, 0.0)), axis=-1)


def categorical_hinge(y_true, y_pred):
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    positive = reduce_sum(y_true * y_pred, axis=-1)
    negative = reduce_max((1.0 - y_true) * y_pred, axis=-1)
    return maximum(negative - positive + 1.0, 0.0)
