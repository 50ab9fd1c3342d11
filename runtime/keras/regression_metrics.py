"""Metrics whose state is more than a running mean: ``IoU`` and its forms ``MeanIoU``,
``BinaryIoU``, ``OneHotIoU``, ``OneHotMeanIoU`` (a confusion matrix over classes) and
``R2Score`` (sums per output), with Keras 3's formulas. Their state is ``rt.Variable``s, so
they work in ``fit`` and in a hand-written traced step."""

from __future__ import annotations

import numpy as np

from runtime.keras import label_shapes
from runtime.keras.layers.base import snake_case, unique_name
from runtime.keras.metric_base import Metric
from runtime.ops.array_ops import (cast, convert_to_tensor, expand_dims, reshape,
                                   shape as shape_of, size, transpose, where, zeros_like)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.layout_ops import one_hot
from runtime.ops.linalg_ops import matmul
from runtime.ops.scatter_ops import gather
from runtime.ops.math_composites import divide_no_nan
from runtime.ops.math_ops import greater, greater_equal, not_equal
from runtime.ops.reduce_ops import argmax, reduce_mean, reduce_sum
from runtime.ops.special_math_ops import is_inf


class IoU(Metric):
    """The intersection over union of each of ``target_class_ids`` (true positives / (true +
    predicted - true positives)), averaged over those that occur. Labels and predictions are
    class ids, or scores over the classes along ``axis`` when ``sparse_y_true`` /
    ``sparse_y_pred`` is False; ``ignore_class`` leaves a label out.

    The confusion matrix has the metric's ``dtype``, int32 by default as in Keras 3: sample
    weights are then truncated to integers (pass ``dtype="float32"`` to weigh by fractions).
    The result is float32."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        self.name = name or unique_name(snake_case(type(self).__name__))
        self.dtype, self.fn_kwargs = np.dtype(dtype or "int32"), {}
        self.num_classes, self.ignore_class = int(num_classes), ignore_class
        self.target_class_ids = [int(c) for c in target_class_ids]
        if any(not 0 <= c < self.num_classes for c in self.target_class_ids):
            raise ValueError(f"{type(self).__name__}: target_class_ids must be class ids below "
                             f"num_classes={self.num_classes}, got {list(target_class_ids)}.")
        self.sparse_y_true, self.sparse_y_pred, self.axis = sparse_y_true, sparse_y_pred, axis
        self.total_cm = self._state_variable(
            "total_confusion_matrix", np.zeros((self.num_classes, self.num_classes), self.dtype))

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        labels, predicted = self._class_ids(y_true, self.sparse_y_true), \
            self._class_ids(y_pred, self.sparse_y_pred)
        weight = self._weights(sample_weight, labels)
        if self.ignore_class is not None:
            weight = weight * cast(not_equal(labels, self.ignore_class), self.dtype)
        rows = one_hot(labels, self.num_classes, dtype=self.dtype) * expand_dims(weight, -1)
        self.total_cm.assign_add(
            matmul(transpose(rows), one_hot(predicted, self.num_classes, dtype=self.dtype)))

    def _class_ids(self, values, sparse: bool):
        values = convert_to_tensor(values)
        if not sparse:
            values = argmax(values, axis=self.axis)
        return reshape(cast(values, "int32"), [-1])

    def _weights(self, sample_weight, labels):
        if sample_weight is None:
            return cast(zeros_like(labels), self.dtype) + 1
        return reshape(cast(convert_to_tensor(sample_weight), self.dtype), [-1]) \
            + cast(zeros_like(labels), self.dtype)

    def result(self):
        matrix = cast(self.total_cm.value(), "float32")
        true_positives = reduce_sum(matrix * np.eye(self.num_classes, dtype="float32"), axis=1)
        union = reduce_sum(matrix, axis=0) + reduce_sum(matrix, axis=1) - true_positives
        true_positives = gather(true_positives, self.target_class_ids)
        union = gather(union, self.target_class_ids)
        classes_seen = reduce_sum(cast(not_equal(union, 0.0), "float32"))
        return divide_no_nan(reduce_sum(divide_no_nan(true_positives, union)), classes_seen)

    def reset_state(self) -> None:
        self.total_cm.assign(np.zeros((self.num_classes, self.num_classes), self.dtype))

    @property
    def variables(self) -> list:
        return [self.total_cm]

    def get_config(self) -> dict:
        return {"num_classes": self.num_classes, "target_class_ids": self.target_class_ids,
                "name": self.name, "dtype": self.dtype.name, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred,
                "axis": self.axis}


class MeanIoU(IoU):
    """``IoU`` averaged over every class."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_true=True, sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, range(int(num_classes)), name, dtype, ignore_class,
                         sparse_y_true, sparse_y_pred, axis)


class BinaryIoU(IoU):
    """``IoU`` of two classes, the predictions being 1 where at least ``threshold``."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, target_class_ids, name, dtype)
        self.threshold = float(threshold)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        predicted = cast(greater_equal(cast(convert_to_tensor(y_pred), "float32"),
                                       self.threshold), self.dtype)
        super().update_state(y_true, predicted, sample_weight)

    def get_config(self) -> dict:
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold,
                "name": self.name, "dtype": self.dtype.name}


class OneHotIoU(IoU):
    """``IoU`` of one-hot labels and class scores."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, target_class_ids, name, dtype, ignore_class, False,
                         sparse_y_pred, axis)


class OneHotMeanIoU(IoU):
    """``MeanIoU`` of one-hot labels and class scores."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None,
                 sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, range(int(num_classes)), name, dtype, ignore_class, False,
                         sparse_y_pred, axis)


_AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")


class R2Score(Metric):
    """The coefficient of determination, 1 - (squared errors / variance of the labels), per
    output (labels of shape (samples, outputs)), then averaged
    (``class_aggregation``: "uniform_average", "variance_weighted_average", or None for one
    score per output); with ``num_regressors``, adjusted for the number of regressors."""

    _sums = ("squared_sum", "sum", "total_mse", "count")

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score",
                 dtype=None):
        if class_aggregation not in _AGGREGATIONS:
            raise ValueError(f"R2Score: class_aggregation must be one of {_AGGREGATIONS}, got "
                             f"{class_aggregation!r}.")
        if num_regressors < 0:
            raise ValueError(f"R2Score: num_regressors must be at least 0, got "
                             f"{num_regressors!r}.")
        self.name, self.dtype, self.fn_kwargs = name, np.dtype(dtype or "float32"), {}
        self.class_aggregation, self.num_regressors = class_aggregation, num_regressors
        self.num_samples = self._state_variable("num_samples", np.zeros((), "int32"))
        self.outputs = None  # the sums per output are made on the first update

    def _build(self, outputs: int) -> None:
        if self.outputs is None:
            self.outputs = outputs
            for sum_name in self._sums:
                setattr(self, sum_name,
                        self._state_variable(sum_name, np.zeros((outputs,), self.dtype)))
        elif outputs != self.outputs:
            raise ValueError(f"R2Score: it was updated with {self.outputs} outputs per sample, "
                             f"now with {outputs}; reset_state() does not change that, make a "
                             f"new R2Score.")

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        y_true, y_pred = label_shapes.same_rank(cast(convert_to_tensor(y_true), self.dtype),
                                                cast(convert_to_tensor(y_pred), self.dtype))
        if y_true.ndim != 2 or y_true.shape[-1] is None:
            raise ValueError(f"R2Score takes labels and predictions of shape (samples, "
                             f"outputs), got shapes {y_true.shape} and {y_pred.shape}; give "
                             f"one output as shape (samples, 1).")
        self._build(int(y_true.shape[-1]))
        weight = 1.0 if sample_weight is None else cast(convert_to_tensor(sample_weight),
                                                        self.dtype)
        if sample_weight is not None and weight.ndim == 1:
            weight = expand_dims(weight, 1)
        weight = broadcast_to(weight, shape_of(y_true))
        weighted = y_true * weight
        self.sum.assign_add(reduce_sum(weighted, axis=0))
        self.squared_sum.assign_add(reduce_sum(y_true * weighted, axis=0))
        self.total_mse.assign_add(reduce_sum((y_true - y_pred) ** 2 * weight, axis=0))
        self.count.assign_add(reduce_sum(weight, axis=0))
        self.num_samples.assign_add(cast(size(y_true), "int32"))  # values, as Keras counts

    def result(self):
        if self.outputs is None:
            return convert_to_tensor(np.zeros((), self.dtype))
        mean = self.sum.value() / self.count.value()
        variance_total = self.squared_sum.value() - self.sum.value() * mean
        scores = 1.0 - self.total_mse.value() / variance_total
        scores = where(is_inf(scores), zeros_like(scores), scores)
        if self.class_aggregation == "uniform_average":
            score = reduce_mean(scores)
        elif self.class_aggregation == "variance_weighted_average":
            score = reduce_sum(scores * variance_total) / reduce_sum(variance_total)
        else:
            score = scores
        return self._adjusted(score) if self.num_regressors else score

    def _adjusted(self, score):
        """Adjusted R²: ``1 - (1 - r2) (n - 1) / (n - p - 1)``, with ``n`` the values seen
        (as Keras counts them), given ``n > p + 1`` (else the score as it is, as Keras keeps
        it)."""
        samples = cast(self.num_samples.value(), self.dtype)
        regressors = float(self.num_regressors)
        adjusted = 1.0 - (1.0 - score) * divide_no_nan(samples - 1.0,
                                                       samples - regressors - 1.0)
        return where(greater(samples, regressors + 1.0), adjusted, score)

    def reset_state(self) -> None:
        self.num_samples.assign(np.zeros((), "int32"))
        for sum_name in self._sums if self.outputs is not None else ():
            getattr(self, sum_name).assign(np.zeros((self.outputs,), self.dtype))

    @property
    def variables(self) -> list:
        sums = [getattr(self, s) for s in self._sums] if self.outputs is not None else []
        return sums + [self.num_samples]

    def get_config(self) -> dict:
        return {"class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors, "name": self.name,
                "dtype": self.dtype.name}
