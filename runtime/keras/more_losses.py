"""Keras' other regression and classification losses (one value per sample, Keras 3's
formulas): ``huber``, ``log_cosh``, ``kl_divergence``, ``poisson``,
``mean_squared_logarithmic_error``, ``mean_absolute_percentage_error``,
``cosine_similarity``, ``hinge``, ``squared_hinge``, ``categorical_hinge``; the
segmentation overlaps ``dice`` and ``tversky``; ``categorical_focal_crossentropy``; and the
correlations that Keras' metrics of the same names average (``pearson_correlation``,
``concordance_correlation``).
``runtime.keras.losses`` wraps each in its loss class."""

from __future__ import annotations

import math

from runtime.keras import label_shapes
from runtime.ops import nn as _nn
from runtime.ops.array_ops import cast, clip_by_value, convert_to_tensor, shape, where
from runtime.ops.math_ops import (abs, equal, log, logical_or, maximum, minimum,  # noqa: A004
                                  pow, sqrt, square)
from runtime.ops.math_composites import reduce_std, reduce_variance
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


def dice(y_true, y_pred, axis=None):
    """``1 - 2 |A ∩ B| / (|A| + |B|)`` with soft sets (sums over ``axis``; None: over
    everything, one value for the batch)."""
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    intersection = reduce_sum(y_true * y_pred, axis=axis)
    total = reduce_sum(y_true, axis=axis) + reduce_sum(y_pred, axis=axis) + EPSILON
    return 1.0 - 2.0 * intersection / total


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """``1 - TP / (TP + alpha FP + beta FN)`` with soft counts (sums over ``axis``): Dice's
    overlap with false positives and negatives weighed apart."""
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    true_positives = reduce_sum(y_true * y_pred, axis=axis)
    false_positives = reduce_sum((1.0 - y_pred) * y_true, axis=axis)
    false_negatives = reduce_sum(y_pred * (1.0 - y_true), axis=axis)
    return 1.0 - true_positives / (true_positives + false_positives * alpha
                                   + false_negatives * beta + EPSILON)


def categorical_focal_crossentropy(y_true, y_pred, alpha=0.25, gamma=2.0, from_logits=False,
                                   label_smoothing=0.0, axis=-1):
    """The categorical cross-entropy of each class weighed by ``alpha (1 - p) ** gamma``
    (``p``: the predicted probability), so confident predictions count less (Lin et al.'s
    focal loss), summed over ``axis``."""
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        classes = cast(shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        y_pred = _nn.softmax(y_pred, axis=axis)
    output = clip_by_value(y_pred / reduce_sum(y_pred, axis=axis, keepdims=True), EPSILON,
                           1.0 - EPSILON)
    cross_entropy = -y_true * log(output)
    weight = pow(1.0 - output, gamma) * cast(convert_to_tensor(alpha), y_pred.dtype)
    return reduce_sum(weight * cross_entropy, axis=axis)


def pearson_correlation(y_true, y_pred, axis=-1):
    """The correlation coefficient of target and prediction along ``axis`` (1: perfectly
    correlated): the mean product of the standardized values."""
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    true_centred = y_true - reduce_mean(y_true, axis=axis, keepdims=True)
    pred_centred = y_pred - reduce_mean(y_pred, axis=axis, keepdims=True)
    true_standard = true_centred / reduce_std(true_centred, axis=axis, keepdims=True)
    pred_standard = pred_centred / reduce_std(pred_centred, axis=axis, keepdims=True)
    return reduce_mean(true_standard * pred_standard, axis=axis)


def concordance_correlation(y_true, y_pred, axis=-1):
    """Lin's concordance correlation along ``axis``: correlation penalized for a shift or a
    scale between target and prediction (1: identical). Keras 3's formula, whose covariance
    term centres both factors on the prediction's mean."""
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    true_mean = reduce_mean(y_true, axis=axis, keepdims=True)
    pred_mean = reduce_mean(y_pred, axis=axis, keepdims=True)
    true_variance = reduce_variance(y_true - true_mean, axis=axis, keepdims=True)
    pred_variance = reduce_variance(y_pred - pred_mean, axis=axis, keepdims=True)
    covariance = (y_true - pred_mean) * (y_pred - pred_mean)
    norm = true_variance + pred_variance + square(true_mean - pred_mean)
    return reduce_mean(2.0 * covariance / (norm + EPSILON), axis=axis)
