"""Metrics counted from a confusion matrix, with Keras' thresholds: ``Precision`` and
``Recall`` (a prediction above ``thresholds``, 0.5 by default, is positive; a list of
thresholds gives one value each; ``top_k`` and ``class_id`` as in Keras) and ``AUC`` (the
area under the ROC or precision-recall curve, from counts at ``num_thresholds`` thresholds
evenly spread over [0, 1], summed by Keras' interpolation). Unnamed, they are named as Keras
names them: ``auc``, then ``auc_1``, ... Counts are ``rt.Variable``s, so the
metrics work in ``fit`` and in a hand-written traced step; labels count as positive when
non-zero, and sample weights weigh the counts."""

from __future__ import annotations

import numpy as np

from runtime.keras.metric_base import Metric
from runtime.keras.layers.base import snake_case, unique_name
from runtime.ops.array_ops import (cast, clip_by_value, convert_to_tensor, expand_dims, getitem,
                                   ones_like, reshape, shape as shape_of, where)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.layout_ops import one_hot
from runtime.ops.math_composites import divide_no_nan
from runtime.ops.math_ops import (abs, greater, greater_equal, log, logical_and,  # noqa: A004
                                  maximum, minimum, not_equal, sigmoid)
from runtime.ops.reduce_ops import reduce_max, reduce_mean, reduce_sum
from runtime.ops.sort_ops import top_k

EPSILON = 1e-7


NEGATIVE_INFINITY = -1e10  # Keras' score for the entries top_k leaves out


class _Counts(Metric):
    """Counts of true/false positives/negatives at fixed thresholds. With ``top_k``, only the
    ``top_k`` highest predictions of each sample can be positive; with ``class_id``, only
    that class (last axis) is counted."""

    counts: tuple[str, ...] = ()

    def __init__(self, thresholds, name, dtype=None, top_k=None, class_id=None):
        self.name = name or unique_name(snake_case(type(self).__name__))
        self.dtype, self.fn_kwargs = np.dtype(dtype or "float32"), {}
        self.thresholds = np.asarray(thresholds, np.float32)
        self.top_k, self.class_id = top_k, class_id
        for count in self.counts:
            setattr(self, count, self._state_variable(count, np.zeros(self.thresholds.shape,
                                                                      self.dtype)))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        labels, y_pred = self._selected(convert_to_tensor(y_true),
                                        self._scores(cast(convert_to_tensor(y_pred), self.dtype)))
        weight = self._weights(sample_weight, labels)
        positive = cast(not_equal(cast(labels, self.dtype), 0.0), self.dtype)
        positive, y_pred = reshape(positive, [-1, 1]), reshape(y_pred, [-1, 1])
        above = cast(greater(y_pred, self.thresholds), self.dtype)
        updates = {"true_positives": positive * above, "false_positives": (1.0 - positive) * above,
                   "true_negatives": (1.0 - positive) * (1.0 - above),
                   "false_negatives": positive * (1.0 - above)}
        for count in self.counts:
            getattr(self, count).assign_add(reduce_sum(updates[count] * weight, axis=0))

    def _selected(self, labels, y_pred) -> tuple:
        """Labels and predictions with ``top_k`` and ``class_id`` applied (``class_id`` keeps
        its axis, so sample weights still broadcast)."""
        if self.top_k is not None:
            y_pred = _only_top_k(y_pred, self.top_k)
        if self.class_id is not None:
            pick = (Ellipsis, slice(self.class_id, self.class_id + 1))
            labels, y_pred = getitem(labels, pick), getitem(y_pred, pick)
        return labels, y_pred

    def _weights(self, sample_weight, labels):
        """One weight per label (a sample's weight for each of its labels), as a column."""
        if sample_weight is None:
            return 1.0
        weight = cast(convert_to_tensor(sample_weight), self.dtype)
        while weight.ndim is not None and labels.ndim is not None and weight.ndim < labels.ndim:
            weight = expand_dims(weight, -1)
        return reshape(broadcast_to(weight, shape_of(labels)), [-1, 1])

    def _scores(self, y_pred):
        """What is compared with the thresholds."""
        return y_pred

    def reset_state(self) -> None:
        for count in self.counts:
            getattr(self, count).assign(np.zeros(self.thresholds.shape, self.dtype))

    @property
    def variables(self) -> list:
        return [getattr(self, count) for count in self.counts]


def _only_top_k(y_pred, k: int):
    """``y_pred`` with all but the ``k`` highest entries of each row (the first of equal
    ones) replaced by ``NEGATIVE_INFINITY``, which no threshold counts as positive."""
    chosen = top_k(y_pred, k).indices
    kept = reduce_sum(one_hot(chosen, shape_of(y_pred)[-1], dtype=y_pred.dtype), axis=-2)
    return y_pred * kept + NEGATIVE_INFINITY * (1.0 - kept)


def _thresholds(value, default: float) -> list[float]:
    """The thresholds given (a number or a list), or ``[default]``; each in [0, 1]."""
    if value is None:
        return [default]
    values = [float(t) for t in value] if isinstance(value, (list, tuple, np.ndarray)) \
        else [float(value)]
    if not values or any(not 0.0 <= t <= 1.0 for t in values):
        raise ValueError(f"thresholds must be numbers in [0, 1], got {value!r}.")
    return values


class _PrecisionOrRecall(_Counts):
    """A ratio of counts per threshold: one number for one threshold, a vector for several."""

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        default = 0.5 if top_k is None else NEGATIVE_INFINITY
        super().__init__(_thresholds(thresholds, default), name, dtype, top_k, class_id)
        self.init_thresholds = thresholds

    def _ratio(self, other):
        tp = self.true_positives.value()
        values = divide_no_nan(tp, tp + other.value())
        return values[0] if self.thresholds.shape[0] == 1 else values

    def get_config(self) -> dict:
        return {"thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id, "name": self.name, "dtype": self.dtype.name}


class Precision(_PrecisionOrRecall):
    """True positives / predicted positives."""

    counts = ("true_positives", "false_positives")

    def result(self):
        return self._ratio(self.false_positives)


class Recall(_PrecisionOrRecall):
    """True positives / actual positives."""

    counts = ("true_positives", "false_negatives")

    def result(self):
        return self._ratio(self.false_negatives)


class _OneCount(_Counts):
    """The weighted number of one kind of outcome, at ``thresholds`` (0.5 by default)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(_thresholds(thresholds, 0.5), name, dtype)
        self.init_thresholds = thresholds

    def result(self):
        values = getattr(self, self.counts[0]).value()
        return values[0] if self.thresholds.shape[0] == 1 else values

    def get_config(self) -> dict:
        return {"thresholds": self.init_thresholds, "name": self.name, "dtype": self.dtype.name}


class TruePositives(_OneCount):
    counts = ("true_positives",)


class FalsePositives(_OneCount):
    counts = ("false_positives",)


class TrueNegatives(_OneCount):
    counts = ("true_negatives",)


class FalseNegatives(_OneCount):
    counts = ("false_negatives",)


class AUC(_Counts):
    """Area under the ROC curve (``curve="ROC"``) or the precision-recall curve (``"PR"``),
    from counts at ``num_thresholds`` thresholds evenly spread over [0, 1] (or at the
    ``thresholds`` given, with one just below 0 and one just above 1 added). Predictions are
    probabilities, or logits with ``from_logits=True``.

    ``summation_method``: "interpolation" (trapezoids for ROC; for PR, the precision
    interpolated between thresholds as true positives grow linearly with predicted
    positives, Davis & Goadrich's rule, as Keras does), "minoring" or "majoring" (the lower
    or higher end of each step)."""

    counts = ("true_positives", "false_positives", "true_negatives", "false_negatives")

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name=None, dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        curve, summation_method = curve.upper(), summation_method.lower()
        if curve not in ("ROC", "PR") or summation_method not in ("interpolation", "minoring",
                                                                  "majoring"):
            raise ValueError(f"AUC: curve must be 'ROC' or 'PR' and summation_method "
                             f"'interpolation', 'minoring' or 'majoring', got {curve!r} and "
                             f"{summation_method!r}.")
        unsupported = [option for option, value in (
            ("multi_label", multi_label or None), ("label_weights", label_weights))
            if value is not None]
        if unsupported:
            raise NotImplementedError(f"AUC: {', '.join(unsupported)} is not supported yet by "
                                      f"rt.keras.")
        if thresholds is not None:
            inner = sorted(_thresholds(thresholds, 0.5))
            num_thresholds = len(inner) + 2
        elif num_thresholds <= 1:
            raise ValueError(f"AUC: num_thresholds must be an integer > 1, got {num_thresholds}.")
        else:
            inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        self.num_thresholds, self.curve = num_thresholds, curve
        self.summation_method, self.from_logits = summation_method, from_logits
        self.init_thresholds = thresholds
        super().__init__([-EPSILON] + inner + [1.0 + EPSILON], name, dtype)

    def _scores(self, y_pred):
        if self.from_logits:
            return sigmoid(y_pred)
        return clip_by_value(y_pred, 0.0, 1.0)

    def result(self):
        tp, fp = self.true_positives.value(), self.false_positives.value()
        tn, fn = self.true_negatives.value(), self.false_negatives.value()
        if (self.curve, self.summation_method) == ("PR", "interpolation"):
            return _interpolated_pr_area(tp, fp, fn)
        recall = divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = divide_no_nan(fp, fp + tn), recall
        else:
            x, y = recall, divide_no_nan(tp, tp + fp)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = minimum(y[:-1], y[1:])
        else:
            heights = maximum(y[:-1], y[1:])
        return reduce_sum((x[:-1] - x[1:]) * heights)

    def get_config(self) -> dict:
        return {"num_thresholds": self.num_thresholds, "curve": self.curve,
                "summation_method": self.summation_method, "name": self.name,
                "dtype": self.dtype.name, "thresholds": self.init_thresholds,
                "from_logits": self.from_logits}


def _interpolated_pr_area(tp, fp, fn):
    """The area under the precision-recall curve when, between two neighbouring thresholds,
    true positives grow linearly with predicted positives (``tp = slope * p + intercept``):
    precision is then ``slope + intercept / p``, whose integral over recall has a closed
    form with ``log`` (Davis & Goadrich, 2006). Each threshold ``i`` is higher than ``i-1``,
    so counts fall from ``lower`` to ``upper``."""
    predicted = tp + fp
    tp_lower, tp_upper = tp[:-1], tp[1:]
    p_lower, p_upper = predicted[:-1], predicted[1:]
    tp_step = tp_lower - tp_upper
    slope = divide_no_nan(tp_step, maximum(p_lower - p_upper, 0.0))
    intercept = tp_upper - slope * p_upper
    both_positive = logical_and(greater(p_lower, 0.0), greater(p_upper, 0.0))
    p_ratio = where(both_positive, divide_no_nan(p_lower, maximum(p_upper, 0.0)),
                    ones_like(p_upper))
    actual_positives = maximum(tp_upper + fn[1:], 0.0)
    return reduce_sum(divide_no_nan(slope * (tp_step + intercept * log(p_ratio)),
                                    actual_positives))


_AVERAGES = (None, "micro", "macro", "weighted")


class FBetaScore(Metric):
    """Keras' F-beta score per class of one-hot (or multi-label) labels: a prediction is
    positive above ``threshold``, or (None) where it is its sample's largest (and not 0).
    ``average``: None (one score per class), "micro" (of the counts summed over classes),
    "macro" (the mean score) or "weighted" (weighted by each class's positive labels)."""

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        if average not in _AVERAGES:
            raise ValueError(f"{type(self).__name__}: average must be one of {_AVERAGES}, got "
                             f"{average!r}.")
        if not beta > 0:
            raise ValueError(f"{type(self).__name__}: beta must be greater than 0, got {beta!r}.")
        self.name, self.dtype, self.fn_kwargs = name, np.dtype(dtype or "float32"), {}
        self.average, self.beta, self.threshold = average, float(beta), threshold
        self.classes = None  # the counts are made on the first update, one per class

    def _build(self, classes) -> None:
        if classes is None:
            raise ValueError(f"{type(self).__name__} needs the number of classes (the last "
                             f"dimension of y_pred) known on the first update.")
        shape = () if self.average == "micro" else (int(classes),)
        for count in ("true_positives", "false_positives", "false_negatives",
                      "intermediate_weights"):
            setattr(self, count, self._state_variable(count, np.zeros(shape, self.dtype)))
        self.classes = int(classes)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true = cast(convert_to_tensor(y_true), self.dtype)
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        if self.classes is None:
            self._build(y_pred.shape[-1] if y_pred.shape else None)
        if self.threshold is None:
            largest = reduce_max(y_pred, axis=-1, keepdims=True)
            positive = logical_and(greater_equal(y_pred, largest), greater(abs(y_pred), 1e-9))
        else:
            positive = greater(y_pred, self.threshold)
        y_pred = cast(positive, self.dtype)
        axis = None if self.average == "micro" else 0

        def weighted_sum(value):
            if sample_weight is not None:
                value = value * expand_dims(cast(convert_to_tensor(sample_weight), self.dtype), 1)
            return reduce_sum(value, axis=axis)

        self.true_positives.assign_add(weighted_sum(y_pred * y_true))
        self.false_positives.assign_add(weighted_sum(y_pred * (1.0 - y_true)))
        self.false_negatives.assign_add(weighted_sum((1.0 - y_pred) * y_true))
        self.intermediate_weights.assign_add(weighted_sum(y_true))

    def result(self):
        if self.classes is None:
            return convert_to_tensor(np.zeros((), self.dtype))
        true_positives = self.true_positives.value()
        precision = true_positives / (true_positives + self.false_positives.value() + EPSILON)
        recall = true_positives / (true_positives + self.false_negatives.value() + EPSILON)
        beta_squared = self.beta ** 2
        score = precision * recall / (beta_squared * precision + recall + EPSILON) \
            * (1.0 + beta_squared)
        if self.average == "weighted":
            weights = self.intermediate_weights.value()
            return reduce_sum(score * (weights / (reduce_sum(weights) + EPSILON)))
        return score if self.average is None else reduce_mean(score)

    def reset_state(self) -> None:
        for variable in self.variables:
            variable.assign(np.zeros(variable.shape, self.dtype))

    @property
    def variables(self) -> list:
        if self.classes is None:
            return []
        return [self.true_positives, self.false_positives, self.false_negatives,
                self.intermediate_weights]

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype.name, "average": self.average,
                "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """``FBetaScore`` with ``beta=1``."""

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["beta"]
        return config
