"""``rt.keras.losses``: loss functions (one value per sample) and loss objects (one scalar).

A loss object averages its function's per-sample values over everything (Keras'
"sum_over_batch_size": the sum divided by the number of values). Cross-entropies of
probabilities clip them to ``[EPSILON, 1 - EPSILON]`` first; given the output of a sigmoid or
softmax activation they use its logits instead, as Keras does (see ``runtime.keras.logits``).
"""

from __future__ import annotations

from runtime.keras import label_shapes
from runtime.keras import logits as _logits
from runtime.keras import masks
from runtime.keras import more_losses as _more
from runtime.ops import nn as _nn
from runtime.ops.array_ops import (cast, clip_by_value, convert_to_tensor, expand_dims, reshape,
                                   size, squeeze, where, zeros_like)
from runtime.ops.math_ops import (abs, log, logical_and, not_equal, pow,  # noqa: A004
                                  square)
from runtime.ops.reduce_ops import reduce_mean, reduce_sum
from runtime.keras.missing import missing as _missing
from runtime.tensor import format_shape

EPSILON = 1e-7  # Keras' backend.epsilon()


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    return reduce_mean(square(y_true - y_pred), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    return reduce_mean(abs(y_true - y_pred), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    logits = None if from_logits else _logits.logits_of(y_pred, "sigmoid")
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    if y_true.ndim is not None and y_pred.ndim is not None and y_true.ndim != y_pred.ndim:
        raise ValueError(
            f"binary_crossentropy: the labels have shape {format_shape(y_true.shape)} and the "
            f"predictions {format_shape(y_pred.shape)}, of different ranks, so they would "
            f"broadcast into a wrong loss. Reshape the labels to the predictions' shape, or use "
            f"the loss object keras.losses.BinaryCrossentropy(), which adds or removes a "
            f"trailing axis of 1 (as Keras does).")
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return reduce_mean(_binary_crossentropies(y_true, y_pred, y_pred if from_logits else logits),
                       axis=axis)


def _binary_crossentropies(y_true, y_pred, logits=None):
    """The cross-entropy of each element: from ``logits`` when known (exact where the
    probability rounds to 0 or 1), else from the clipped probabilities ``y_pred``."""
    if logits is not None:
        return _nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=logits)
    p = clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    return -(y_true * log(p) + (1.0 - y_true) * log(1.0 - p))


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing=False, alpha=0.25,
                              gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1):
    """The binary cross-entropy of each element times ``(1 - p_t) ** gamma`` (``p_t``: the
    probability given to the true label), so well-classified elements count less (Lin et
    al.'s focal loss); with ``apply_class_balancing``, positives weigh ``alpha`` and
    negatives ``1 - alpha``. Averaged over ``axis``."""
    y_pred = convert_to_tensor(y_pred)
    y_true = cast(convert_to_tensor(y_true), y_pred.dtype)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    logits = y_pred if from_logits else _logits.logits_of(y_pred, "sigmoid")
    if from_logits:
        y_pred = _nn.sigmoid(y_pred)
    p_t = y_true * y_pred + (1.0 - y_true) * (1.0 - y_pred)
    focal = pow(1.0 - p_t, gamma) * _binary_crossentropies(y_true, y_pred, logits)
    if apply_class_balancing:
        focal = focal * (y_true * alpha + (1.0 - y_true) * (1.0 - alpha))
    return reduce_mean(focal, axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    logits = None if from_logits else _logits.logits_of(y_pred, "softmax")
    y_true, y_pred = label_shapes.with_prediction_dtype(y_true, y_pred)
    if label_smoothing:
        classes = cast(convert_to_tensor(y_pred.shape[axis]), y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits or logits is not None:
        return _nn.softmax_cross_entropy_with_logits(
            labels=y_true, logits=y_pred if from_logits else logits, axis=axis)
    p = y_pred / reduce_sum(y_pred, axis=axis, keepdims=True)
    p = clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return -reduce_sum(y_true * log(p), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    """Cross-entropy against integer labels. Samples labelled ``ignore_class`` give 0 and
    are masked, so a loss object averages over the other samples only (as in Keras)."""
    logits = None if from_logits else _logits.logits_of(y_pred, "softmax")
    y_pred = convert_to_tensor(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.shape is not None and y_pred.shape is not None \
            and len(labels.shape) == len(y_pred.shape) and labels.shape[-1] == 1:
        labels = reshape(labels, [-1] if len(labels.shape) == 2 else labels.shape[:-1])
    labels = cast(labels, "int64")
    if from_logits:
        logits = y_pred
    elif logits is None:
        logits = log(clip_by_value(y_pred, EPSILON, 1.0 - EPSILON))
    if ignore_class is None:
        return _nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    valid = not_equal(labels, ignore_class)
    # The ignored labels become 0, so one out of range (-1, 255) is never looked up.
    losses = _nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels * cast(valid, labels.dtype), logits=logits)
    losses = where(valid, losses, zeros_like(losses))
    masks.set_masks(losses, valid)
    return losses


class Loss:
    """Base class of loss objects: ``loss(y_true, y_pred, sample_weight=None)`` is the mean
    of ``call(y_true, y_pred)`` (weighted by ``sample_weight`` when given)."""

    def __init__(self, name=None, reduction="sum_over_batch_size"):
        if reduction not in ("sum_over_batch_size", "sum", "none", None):
            raise ValueError(f"reduction must be 'sum_over_batch_size', 'sum' or 'none', "
                             f"got {reduction!r}.")
        self.name = name or _snake(type(self).__name__)
        self.reduction = reduction

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def __call__(self, y_true, y_pred, sample_weight=None):
        mask = masks.mask_of(y_pred)  # padded steps of a sequence model's output
        values = self.call(y_true, y_pred)
        mask = _both_masks(mask, masks.mask_of(values))  # values a loss function left out
        weight = None
        if sample_weight is not None:
            weight = cast(convert_to_tensor(sample_weight), values.dtype)
            if weight.shape is not None and values.shape is not None \
                    and len(weight.shape) > len(values.shape) + 1:
                weight = reshape(weight, [-1])
        if mask is not None:
            weight = self._masked(cast(convert_to_tensor(mask), values.dtype), weight)
        if weight is not None:
            values, weight = _same_rank(values, weight)
            values = values * weight
        if self.reduction in ("none", None):
            return values
        total = reduce_sum(values)
        if self.reduction == "sum":
            return total
        return total / cast(size(values), values.dtype)


    def _masked(self, mask, weight):
        """The weights that leave the padded values out: as Keras does, the real ones are
        scaled by (all values / real values), so the mean is over the real values."""
        if self.reduction == "sum_over_batch_size":
            mask = mask * (cast(size(mask), mask.dtype) / (reduce_sum(mask) + EPSILON))
        if weight is None:
            return mask
        while weight.ndim is not None and mask.ndim is not None and weight.ndim < mask.ndim:
            weight = expand_dims(weight, -1)
        return weight * mask


def _same_rank(values, weight):
    """Keras' pairing of losses with sample weights whose rank differs by one: a trailing
    dimension of 1 is squeezed, or a vector gets one (losses of shape (batch, 1), which a
    loss function that does not reduce its last axis returns, with weights (batch,)), so
    that they multiply element by element instead of broadcasting to (batch, batch)."""
    if values.ndim is None or weight.ndim is None:
        return values, weight
    if values.ndim == weight.ndim + 1 and values.shape[-1] == 1:
        return (values, expand_dims(weight, -1)) if weight.ndim == 1 else \
            (squeeze(values, [-1]), weight)
    if weight.ndim == values.ndim + 1 and weight.shape[-1] == 1:
        return (expand_dims(values, -1), weight) if values.ndim == 1 else \
            (values, squeeze(weight, [-1]))
    return values, weight


def _both_masks(first, second):
    """The entries both masks keep (a missing mask keeps everything)."""
    if first is None or second is None:
        return second if first is None else first
    return logical_and(cast(convert_to_tensor(first), "bool"),
                       cast(convert_to_tensor(second), "bool"))


class LossFunctionWrapper(Loss):
    def __init__(self, fn, name=None, reduction="sum_over_batch_size", **kwargs):
        super().__init__(name or fn.__name__, reduction)
        self.fn, self.fn_kwargs = fn, kwargs

    def call(self, y_true, y_pred):
        return self.fn(*label_shapes.same_rank(y_true, y_pred), **self.fn_kwargs)


class MeanSquaredError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error"):
        super().__init__(mean_squared_error, name, reduction)


class MeanAbsoluteError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error"):
        super().__init__(mean_absolute_error, name, reduction)


class BinaryCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="binary_crossentropy"):
        super().__init__(binary_crossentropy, name, reduction, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class BinaryFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False,
                 label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_focal_crossentropy"):
        super().__init__(binary_focal_crossentropy, name, reduction,
                         apply_class_balancing=apply_class_balancing, alpha=alpha, gamma=gamma,
                         from_logits=from_logits, label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class CategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_crossentropy"):
        super().__init__(categorical_crossentropy, name, reduction, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)
        self.from_logits = from_logits


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size",
                 name="sparse_categorical_crossentropy"):
        super().__init__(sparse_categorical_crossentropy, name, reduction,
                         from_logits=from_logits, ignore_class=ignore_class)
        self.from_logits, self.ignore_class = from_logits, ignore_class


class Huber(LossFunctionWrapper):
    def __init__(self, delta=1.0, reduction="sum_over_batch_size",
                 name="huber_loss"):
        super().__init__(_more.huber, name, reduction, delta=delta)


class LogCosh(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="log_cosh"):
        super().__init__(_more.log_cosh, name, reduction)


class KLDivergence(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="kl_divergence"):
        super().__init__(_more.kl_divergence, name, reduction)


class Poisson(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="poisson"):
        super().__init__(_more.poisson, name, reduction)


class MeanSquaredLogarithmicError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_squared_logarithmic_error"):
        super().__init__(_more.mean_squared_logarithmic_error, name, reduction)


class MeanAbsolutePercentageError(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="mean_absolute_percentage_error"):
        super().__init__(_more.mean_absolute_percentage_error, name, reduction)


class CosineSimilarity(LossFunctionWrapper):
    def __init__(self, axis=-1, reduction="sum_over_batch_size",
                 name="cosine_similarity"):
        super().__init__(_more.cosine_similarity, name, reduction, axis=axis)


class Hinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="hinge"):
        super().__init__(_more.hinge, name, reduction)


class SquaredHinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="squared_hinge"):
        super().__init__(_more.squared_hinge, name, reduction)


class CategoricalHinge(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size",
                 name="categorical_hinge"):
        super().__init__(_more.categorical_hinge, name, reduction)


class CategoricalFocalCrossentropy(LossFunctionWrapper):
    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy"):
        super().__init__(_more.categorical_focal_crossentropy, name, reduction, alpha=alpha,
                         gamma=gamma, from_logits=from_logits, label_smoothing=label_smoothing,
                         axis=axis)
        self.from_logits = from_logits


class Dice(LossFunctionWrapper):
    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None):
        super().__init__(_more.dice, name, reduction, axis=axis)


class Tversky(LossFunctionWrapper):
    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky",
                 axis=None):
        super().__init__(_more.tversky, name, reduction, alpha=alpha, beta=beta, axis=axis)


huber, log_cosh, kl_divergence, poisson = (_more.huber, _more.log_cosh, _more.kl_divergence,
                                           _more.poisson)
mean_squared_logarithmic_error = _more.mean_squared_logarithmic_error
mean_absolute_percentage_error = _more.mean_absolute_percentage_error
cosine_similarity, hinge = _more.cosine_similarity, _more.hinge
squared_hinge, categorical_hinge = _more.squared_hinge, _more.categorical_hinge
dice, tversky = _more.dice, _more.tversky
categorical_focal_crossentropy = _more.categorical_focal_crossentropy
logcosh, kld, KLD, kullback_leibler_divergence = log_cosh, kl_divergence, kl_divergence, \
    kl_divergence
msle = MSLE = mean_squared_logarithmic_error
mape = MAPE = mean_absolute_percentage_error
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error

_FUNCTIONS = {"mean_squared_error": mean_squared_error, "mse": mean_squared_error,
              "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
              "binary_crossentropy": binary_crossentropy,
              "binary_focal_crossentropy": binary_focal_crossentropy,
              "categorical_crossentropy": categorical_crossentropy,
              "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
              "huber": huber, "log_cosh": log_cosh, "logcosh": log_cosh,
              "kl_divergence": kl_divergence, "kld": kl_divergence, "poisson": poisson,
              "mean_squared_logarithmic_error": msle, "msle": msle,
              "mean_absolute_percentage_error": mape, "mape": mape,
              "cosine_similarity": cosine_similarity, "hinge": hinge,
              "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge,
              "dice": dice, "tversky": tversky,
              "categorical_focal_crossentropy": categorical_focal_crossentropy}
_CLASSES = {"MeanSquaredError": MeanSquaredError, "MeanAbsoluteError": MeanAbsoluteError,
            "Huber": Huber, "LogCosh": LogCosh, "KLDivergence": KLDivergence,
            "Poisson": Poisson, "MeanSquaredLogarithmicError": MeanSquaredLogarithmicError,
            "MeanAbsolutePercentageError": MeanAbsolutePercentageError,
            "CosineSimilarity": CosineSimilarity, "Hinge": Hinge, "SquaredHinge": SquaredHinge,
            "CategoricalHinge": CategoricalHinge,
            "BinaryCrossentropy": BinaryCrossentropy,
            "BinaryFocalCrossentropy": BinaryFocalCrossentropy,
            "CategoricalCrossentropy": CategoricalCrossentropy,
            "SparseCategoricalCrossentropy": SparseCategoricalCrossentropy,
            "CategoricalFocalCrossentropy": CategoricalFocalCrossentropy, "Dice": Dice,
            "Tversky": Tversky}


def get(identifier):
    """A loss function from its name (``"mse"``, ``"binary_crossentropy"``, ...) or class
    name; a callable (function or ``Loss``) is returned as it is."""
    if isinstance(identifier, str):
        if identifier in _FUNCTIONS:
            return _FUNCTIONS[identifier]
        if identifier in _CLASSES:
            return _CLASSES[identifier]()
        raise ValueError(f"unknown loss {identifier!r}; known: "
                         f"{', '.join(sorted(_FUNCTIONS) + sorted(_CLASSES))}.")
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        return identifier
    raise TypeError(f"a loss is a name, a Loss or a function (y_true, y_pred), got "
                    f"{type(identifier).__name__}.")


def as_loss_object(identifier) -> Loss:
    """``get(identifier)`` as a ``Loss`` (a function is averaged over its values)."""
    loss = get(identifier)
    if isinstance(loss, Loss):
        return loss
    return LossFunctionWrapper(loss, getattr(loss, "__name__", "loss"))


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


__getattr__ = _missing("keras.losses")
