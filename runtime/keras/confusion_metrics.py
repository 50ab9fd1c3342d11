"""Metrics counted from a confusion matrix, with Keras' thresholds: ``Precision`` and
``Recall`` (a prediction above ``thresholds``, 0.5 by default, is positive) and ``AUC`` (the
area under the ROC or precision-recall curve, from counts at ``num_thresholds`` thresholds
evenly spread over [0, 1], summed by Keras' interpolation). Counts are ``rt.Variable``s, so the
metrics work in ``fit`` and in a hand-written traced step; labels count as positive when
non-zero, and sample weights weigh the counts."""

from __future__ import annotations

import numpy as np

from runtime import tracing
from runtime.keras.metric_base import Metric
from runtime.ops.array_ops import (cast, clip_by_value, convert_to_tensor, expand_dims, reshape,
                                   shape as shape_of)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.math_composites import divide_no_nan
from runtime.ops.math_ops import greater, maximum, minimum, not_equal
from runtime.ops.reduce_ops import reduce_sum
from runtime.variables import Variable

EPSILON = 1e-7


class _Counts(Metric):
    """Counts of true/false positives/negatives at fixed thresholds."""

    counts: tuple[str, ...] = ()

    def __init__(self, thresholds, name, dtype=None):
        self.name, self.dtype, self.fn_kwargs = name, np.dtype(dtype or "float32"), {}
        self.thresholds = np.asarray(thresholds, np.float32)
        with tracing.eager_scope():  # a metric may be made while a step is traced
            for count in self.counts:
                setattr(self, count, Variable(np.zeros(self.thresholds.shape, self.dtype),
                                              name=f"{name}/{count}", trainable=False))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_pred = cast(convert_to_tensor(y_pred), self.dtype)
        labels = convert_to_tensor(y_true)
        weight = self._weights(sample_weight, labels)
        positive = cast(not_equal(cast(labels, self.dtype), 0.0), self.dtype)
        positive, y_pred = reshape(positive, [-1, 1]), reshape(y_pred, [-1, 1])
        above = cast(greater(self._clipped(y_pred), self.thresholds), self.dtype)
        updates = {"true_positives": positive * above, "false_positives": (1.0 - positive) * above,
                   "true_negatives": (1.0 - positive) * (1.0 - above),
                   "false_negatives": positive * (1.0 - above)}
        for count in self.counts:
            getattr(self, count).assign_add(reduce_sum(updates[count] * weight, axis=0))

    def _weights(self, sample_weight, labels):
        """One weight per label (a sample's weight for each of its labels), as a column."""
        if sample_weight is None:
            return 1.0
        weight = cast(convert_to_tensor(sample_weight), self.dtype)
        while weight.ndim is not None and labels.ndim is not None and weight.ndim < labels.ndim:
            weight = expand_dims(weight, -1)
        return reshape(broadcast_to(weight, shape_of(labels)), [-1, 1])

    def _clipped(self, y_pred):
        return y_pred

    def reset_state(self) -> None:
        for count in self.counts:
            getattr(self, count).assign(np.zeros(self.thresholds.shape, self.dtype))

    @property
    def variables(self) -> list:
        return [getattr(self, count) for count in self.counts]


def _threshold(value) -> float:
    if value is None:
        return 0.5
    if isinstance(value, (list, tuple)):
        raise NotImplementedError("a list of thresholds is not supported yet by rt.keras; give "
                                  "one threshold.")
    return float(value)


def _refuse(name, top_k, class_id) -> None:
    if top_k is not None or class_id is not None:
        raise NotImplementedError(f"{name}: top_k and class_id are not supported yet by "
                                  f"rt.keras.")


class Precision(_Counts):
    """True positives / predicted positives."""

    counts = ("true_positives", "false_positives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="precision",
                 dtype=None):
        _refuse("Precision", top_k, class_id)
        super().__init__([_threshold(thresholds)], name, dtype)

    def result(self):
        tp = self.true_positives.value()
        return divide_no_nan(tp, tp + self.false_positives.value())[0]


class Recall(_Counts):
    """True positives / actual positives."""

    counts = ("true_positives", "false_negatives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name="recall", dtype=None):
        _refuse("Recall", top_k, class_id)
        super().__init__([_threshold(thresholds)], name, dtype)

    def result(self):
        tp = self.true_positives.value()
        return divide_no_nan(tp, tp + self.false_negatives.value())[0]


class _OneCount(_Counts):
    """The weighted number of one kind of outcome, at ``thresholds`` (0.5 by default)."""

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__([_threshold(thresholds)], name, dtype)

    def result(self):
        return getattr(self, self.counts[0]).value()[0]


class TruePositives(_OneCount):
    counts = ("true_positives",)

    def __init__(self, thresholds=None, name="true_positives", dtype=None):
        super().__init__(thresholds, name, dtype)


class FalsePositives(_OneCount):
    counts = ("false_positives",)

    def __init__(self, thresholds=None, name="false_positives", dtype=None):
        super().__init__(thresholds, name, dtype)


class TrueNegatives(_OneCount):
    counts = ("true_negatives",)

    def __init__(self, thresholds=None, name="true_negatives", dtype=None):
        super().__init__(thresholds, name, dtype)


class FalseNegatives(_OneCount):
    counts = ("false_negatives",)

    def __init__(self, thresholds=None, name="false_negatives", dtype=None):
        super().__init__(thresholds, name, dtype)


class AUC(_Counts):
    """Area under the ROC curve (``curve="ROC"``) or the precision-recall curve (``"PR"``,
    with ``summation_method`` "minoring" or "majoring")."""

    counts = ("true_positives", "false_positives", "true_negatives", "false_negatives")

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation",
                 name="auc", dtype=None, thresholds=None, multi_label=False, num_labels=None,
                 label_weights=None, from_logits=False):
        curve, summation_method = curve.upper(), summation_method.lower()
        if curve not in ("ROC", "PR") or summation_method not in ("interpolation", "minoring",
                                                                  "majoring"):
            raise ValueError(f"AUC: curve must be 'ROC' or 'PR' and summation_method "
                             f"'interpolation', 'minoring' or 'majoring', got {curve!r} and "
                             f"{summation_method!r}.")
        unsupported = [option for option, value in (
            ("thresholds", thresholds), ("multi_label", multi_label or None),
            ("label_weights", label_weights), ("from_logits", from_logits or None),
            ("curve='PR' with summation_method='interpolation'",
             True if (curve, summation_method) == ("PR", "interpolation") else None))
            if value is not None]
        if unsupported:
            raise NotImplementedError(f"AUC: {', '.join(unsupported)} is not supported yet by "
                                      f"rt.keras.")
        if num_thresholds <= 1:
            raise ValueError(f"AUC: num_thresholds must be an integer > 1, got {num_thresholds}.")
        self.num_thresholds, self.curve = num_thresholds, curve
        self.summation_method = summation_method
        inner = [(i + 1) / (num_thresholds - 1) for i in range(num_thresholds - 2)]
        super().__init__([-EPSILON] + inner + [1.0 + EPSILON], name, dtype)

    def _clipped(self, y_pred):
        return clip_by_value(y_pred, 0.0, 1.0)

    def result(self):
        tp, fp = self.true_positives.value(), self.false_positives.value()
        tn, fn = self.true_negatives.value(), self.false_negatives.value()
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
