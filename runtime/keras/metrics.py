"""``rt.keras.metrics``: per-sample metric functions, and the objects ``compile`` builds.

A metric of ``fit``/``evaluate`` is the mean of its per-sample values over every sample seen
(Keras' ``MeanMetricWrapper``); a metric object keeps that running mean in variables, so it
also works in a training loop written by hand, inside a ``tf.function``. ``"accuracy"`` resolves,
as in Keras 3, from the shapes of the first batch: one output unit is a binary accuracy
(threshold 0.5), integer labels of lower rank (or one label per sample against several units)
a sparse categorical one, otherwise a categorical one.
"""

from __future__ import annotations

from runtime.keras import label_shapes
from runtime.keras import losses as _losses
from runtime.keras import more_losses as _more
from runtime.keras.confusion_metrics import (AUC, F1Score, FalseNegatives,  # noqa: F401
                                             FalsePositives, FBetaScore, Precision, Recall,
                                             TrueNegatives, TruePositives)
from runtime.keras.metric_base import Mean, MeanMetricWrapper, Metric, Sum  # noqa: F401
from runtime.keras.regression_metrics import (BinaryIoU, IoU, MeanIoU, OneHotIoU,  # noqa: F401
                                              OneHotMeanIoU, R2Score)
from runtime.keras.missing import missing as _missing
from runtime.ops.array_ops import cast, convert_to_tensor, reshape
from runtime.ops.layout_ops import one_hot
from runtime.ops.math_ops import equal, greater, less, sqrt, square
from runtime.ops.reduce_ops import argmax, reduce_sum

mean_squared_error = mse = MSE = _losses.mean_squared_error
mean_absolute_error = mae = MAE = _losses.mean_absolute_error
binary_crossentropy = _losses.binary_crossentropy
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy


def binary_accuracy(y_true, y_pred, threshold=0.5):
    """1 where the prediction, thresholded, equals the label, else 0, per element (Keras 3
    no longer averages the last axis here; the metric averages everything)."""
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    predicted = cast(greater(y_pred, threshold), y_pred.dtype)
    return cast(equal(y_true, predicted), y_pred.dtype)


def categorical_accuracy(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    hit = equal(argmax(convert_to_tensor(y_true), axis=-1), argmax(y_pred, axis=-1))
    return cast(hit, y_pred.dtype if y_pred.dtype.kind == "f" else "float32")


def sparse_categorical_accuracy(y_true, y_pred):
    y_pred = convert_to_tensor(y_pred)
    labels = convert_to_tensor(y_true)
    if labels.shape is not None and y_pred.shape is not None \
            and len(labels.shape) == len(y_pred.shape) and labels.shape[-1] == 1:
        labels = reshape(labels, [-1] if len(labels.shape) == 2 else labels.shape[:-1])
    predicted = argmax(y_pred, axis=-1)
    hit = equal(cast(labels, predicted.dtype), predicted)
    return cast(hit, y_pred.dtype if y_pred.dtype.kind == "f" else "float32")


def _in_top_k(labels, y_pred, k):
    # A label is in the top k when fewer than k classes score strictly more (ties count in,
    # as TensorFlow's in_top_k counts them).
    y_pred = convert_to_tensor(y_pred)
    labels = cast(reshape(convert_to_tensor(labels), [-1]), "int32")
    chosen = reduce_sum(y_pred * one_hot(labels, y_pred.shape[-1], dtype=y_pred.dtype),
                        axis=-1, keepdims=True)
    above = reduce_sum(cast(greater(y_pred, chosen), "int32"), axis=-1)
    return cast(less(above, k), y_pred.dtype if y_pred.dtype.kind == "f" else "float32")


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return _in_top_k(argmax(convert_to_tensor(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    return _in_top_k(y_true, y_pred, k)


class MeanSquaredError(Metric):
    fn = staticmethod(mean_squared_error)

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(name, dtype)


class MeanAbsoluteError(Metric):
    fn = staticmethod(mean_absolute_error)

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(name, dtype)


class BinaryAccuracy(Metric):
    fn = staticmethod(binary_accuracy)

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        super().__init__(name, dtype, threshold=threshold)


class CategoricalAccuracy(Metric):
    fn = staticmethod(categorical_accuracy)

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(name, dtype)


class SparseCategoricalAccuracy(Metric):
    fn = staticmethod(sparse_categorical_accuracy)

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(name, dtype)


def _squared_errors(y_true, y_pred):
    """Squared errors element by element, not averaged over the last axis: given flat
    labels, each element counts as one sample, as in Keras' ``RootMeanSquaredError``."""
    y_true, y_pred = label_shapes.prepared(y_true, y_pred)
    return square(y_pred - y_true)


class RootMeanSquaredError(Metric):
    """``sqrt`` of the mean squared error over every sample seen (not a mean of roots)."""
    fn = staticmethod(_squared_errors)

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name, dtype)

    def result(self):
        return sqrt(super().result())


class TopKCategoricalAccuracy(Metric):
    fn = staticmethod(top_k_categorical_accuracy)

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        super().__init__(name, dtype, k=k)


class SparseTopKCategoricalAccuracy(Metric):
    fn = staticmethod(sparse_top_k_categorical_accuracy)

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None,
                 from_sorted_ids=False):
        if from_sorted_ids:
            raise NotImplementedError("SparseTopKCategoricalAccuracy: from_sorted_ids is not "
                                      "supported yet by rt.keras.")
        super().__init__(name, dtype, k=k)


class Accuracy(Metric):
    """Exact equality of labels and predictions, element by element (flat labels count one
    sample each, and take one sample weight each)."""

    @staticmethod
    def fn(y_true, y_pred):
        y_true, y_pred = label_shapes.prepared(y_true, y_pred)
        return cast(equal(y_true, y_pred), y_pred.dtype)

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(name, dtype)


class MeanAbsolutePercentageError(Metric):
    fn = staticmethod(_losses.mape)

    def __init__(self, name="mean_absolute_percentage_error", dtype=None):
        super().__init__(name, dtype)


class MeanSquaredLogarithmicError(Metric):
    fn = staticmethod(_losses.msle)

    def __init__(self, name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(name, dtype)


class KLDivergence(Metric):
    fn = staticmethod(_losses.kl_divergence)

    def __init__(self, name="kl_divergence", dtype=None):
        super().__init__(name, dtype)


class Poisson(Metric):
    fn = staticmethod(_losses.poisson)

    def __init__(self, name="poisson", dtype=None):
        super().__init__(name, dtype)


class Hinge(Metric):
    fn = staticmethod(_losses.hinge)

    def __init__(self, name="hinge", dtype=None):
        super().__init__(name, dtype)


class SquaredHinge(Metric):
    fn = staticmethod(_losses.squared_hinge)

    def __init__(self, name="squared_hinge", dtype=None):
        super().__init__(name, dtype)


class CategoricalHinge(Metric):
    fn = staticmethod(_losses.categorical_hinge)

    def __init__(self, name="categorical_hinge", dtype=None):
        super().__init__(name, dtype)


class LogCoshError(Metric):
    fn = staticmethod(_losses.log_cosh)

    def __init__(self, name="logcosh", dtype=None):
        super().__init__(name, dtype)


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine of the angle between label and prediction (1: same direction); the loss of
    the same name is its negative."""
    return -_losses.cosine_similarity(y_true, y_pred, axis=axis)


class CosineSimilarity(Metric):
    fn = staticmethod(cosine_similarity)

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(name, dtype, axis=axis)


class BinaryCrossentropy(Metric):
    fn = staticmethod(binary_crossentropy)

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0.0):
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing)


class CategoricalCrossentropy(Metric):
    fn = staticmethod(categorical_crossentropy)

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False,
                 label_smoothing=0.0, axis=-1):
        super().__init__(name, dtype, from_logits=from_logits, label_smoothing=label_smoothing,
                         axis=axis)


class SparseCategoricalCrossentropy(Metric):
    fn = staticmethod(sparse_categorical_crossentropy)

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False,
                 axis=-1):
        super().__init__(name, dtype, from_logits=from_logits, axis=axis)


class PearsonCorrelation(Metric):
    fn = staticmethod(_more.pearson_correlation)

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(name, dtype, axis=axis)


class ConcordanceCorrelation(Metric):
    fn = staticmethod(_more.concordance_correlation)

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(name, dtype, axis=axis)


mape = MAPE = _losses.mape
msle = MSLE = _losses.msle
kld = KLD = kl_divergence = kullback_leibler_divergence = _losses.kl_divergence
huber = _losses.huber
poisson, hinge, squared_hinge = _losses.poisson, _losses.hinge, _losses.squared_hinge
categorical_hinge, logcosh = _losses.categorical_hinge, _losses.log_cosh
pearson_correlation = _more.pearson_correlation
concordance_correlation = _more.concordance_correlation
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy

_FUNCTIONS = {"mse": mean_squared_error, "mean_squared_error": mean_squared_error,
              "mae": mean_absolute_error, "mean_absolute_error": mean_absolute_error,
              "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
              "sparse_categorical_accuracy": sparse_categorical_accuracy,
              "binary_crossentropy": binary_crossentropy,
              "categorical_crossentropy": categorical_crossentropy,
              "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
              "mape": _losses.mape, "mean_absolute_percentage_error": _losses.mape,
              "msle": _losses.msle, "mean_squared_logarithmic_error": _losses.msle,
              "kld": _losses.kld, "kl_divergence": _losses.kld, "poisson": _losses.poisson,
              "hinge": _losses.hinge, "squared_hinge": _losses.squared_hinge,
              "categorical_hinge": _losses.categorical_hinge, "logcosh": _losses.log_cosh,
              "cosine_similarity": cosine_similarity,
              "top_k_categorical_accuracy": top_k_categorical_accuracy,
              "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
              "pearson_correlation": pearson_correlation,
              "concordance_correlation": concordance_correlation}

# The metric classes by name: ``metrics=["AUC", "Precision"]`` makes them, as in Keras.
_CLASSES = {name: value for name, value in globals().items()
            if isinstance(value, type) and issubclass(value, Metric)
            and value not in (Metric, MeanMetricWrapper)}


def get(identifier, y_true_shape=None, y_pred_shape=None, y_true_dtype=None) -> Metric:
    """A metric object from a name, a function, a class or an instance; ``"accuracy"`` (or
    ``"acc"``) needs the shapes of a batch to choose its kind (see the module docstring)."""
    if isinstance(identifier, Metric):
        return identifier
    if isinstance(identifier, type) and issubclass(identifier, Metric):
        return identifier()
    if isinstance(identifier, str):
        if identifier in ("accuracy", "acc"):
            return MeanMetricWrapper(_accuracy_kind(y_true_shape, y_pred_shape, y_true_dtype),
                                     name=identifier)
        if identifier in _FUNCTIONS:
            return MeanMetricWrapper(_FUNCTIONS[identifier], name=identifier)
        if identifier in _CLASSES:  # Keras names the metric by the string it was given
            return _CLASSES[identifier](name=identifier)
        raise ValueError(f"unknown metric {identifier!r}; known: accuracy, "
                         f"{', '.join(sorted(_FUNCTIONS) + sorted(_CLASSES))}.")
    if callable(identifier):
        return MeanMetricWrapper(identifier, name=getattr(identifier, "__name__", "metric"))
    raise TypeError(f"a metric is a name, a Metric or a function (y_true, y_pred), got "
                    f"{type(identifier).__name__}.")


def _accuracy_kind(y_true_shape, y_pred_shape, y_true_dtype):
    if y_pred_shape is None:
        return binary_accuracy
    if y_pred_shape[-1] == 1:
        return binary_accuracy
    if y_true_shape is not None and (len(y_true_shape) < len(y_pred_shape) or (
            y_true_shape[-1] == 1 and y_pred_shape[-1] > 1)):
        return sparse_categorical_accuracy
    return categorical_accuracy


__getattr__ = _missing("keras.metrics")
