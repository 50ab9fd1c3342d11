"""The base of ``rt.keras.metrics``: ``Metric`` (a running, weighted mean held in variables),
``MeanMetricWrapper`` (a metric from a per-sample function), ``Mean`` and ``Sum``."""

from __future__ import annotations

import numpy as np

from runtime import display, tracing
from runtime.keras import initializers, masks
from runtime.keras.layers.base import KerasVariable, unique_name
from runtime.keras.losses import _snake
from runtime.ops.array_ops import (cast, convert_to_tensor, expand_dims, reshape,
                                   shape as shape_of, size)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.math_composites import divide_no_nan
from runtime.ops.reduce_ops import reduce_mean, reduce_sum
from runtime.variables import Variable


class Metric:
    """A running, weighted mean of per-sample values, held in two ``rt.Variable``s (``total``
    and ``count``), so ``update_state`` works eagerly and inside a traced function (a
    hand-written training step), as Keras' metrics do. ``metric(...)`` updates and returns
    ``result()``, a scalar tensor. Subclasses give ``fn``; ``values(y_true, y_pred)`` is what
    it computes per sample (``compile``'s metrics call it inside the training step)."""

    fn = None

    def __init__(self, name=None, dtype=None, **fn_kwargs):
        self.name = name or _snake(type(self).__name__)
        self.dtype = np.dtype(dtype or "float32")
        self.fn_kwargs = fn_kwargs
        self.total = self._state_variable("total", np.zeros((), self.dtype))
        self.count = self._state_variable("count", np.zeros((), self.dtype))

    def _state_variable(self, name: str, value: np.ndarray) -> Variable:
        """A variable of the metric's state, with Keras' name and path (``mean/total``). It is
        made outside any trace: a metric may be made or built while a step is traced
        (compile resolves "accuracy" there), and its state outlives the trace."""
        with tracing.eager_scope():
            return KerasVariable(value, name, self, trainable=False)

    def values(self, y_true, y_pred):
        return type(self).fn(y_true, y_pred, **self.fn_kwargs)

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        mask = masks.mask_of(y_pred)  # padded steps count for nothing, as in Keras
        values = self.values(y_true, y_pred)
        if mask is not None:
            mask = cast(convert_to_tensor(mask), self.dtype)
            if sample_weight is not None:
                sample_weight = cast(convert_to_tensor(sample_weight), self.dtype)
                while sample_weight.ndim is not None and sample_weight.ndim < mask.ndim:
                    sample_weight = expand_dims(sample_weight, -1)
            sample_weight = mask if sample_weight is None else sample_weight * mask
        self.accumulate(values, sample_weight)

    def accumulate(self, values, sample_weight=None) -> None:
        """Adds ``values`` (one per sample; a value of higher rank is first averaged over its
        other axes), weighted by ``sample_weight``, as Keras' ``Mean`` does."""
        values = cast(convert_to_tensor(values), self.dtype)
        rank = values.ndim if values.ndim is not None else 1
        if sample_weight is None:
            if rank > 1:
                values = reduce_mean(values, axis=list(range(1, rank)))
            self.total.assign_add(reduce_sum(values))
            self.count.assign_add(cast(size(values), self.dtype) if rank else
                                  convert_to_tensor(np.ones((), self.dtype)))
            return
        weight = cast(convert_to_tensor(sample_weight), self.dtype)
        if weight.ndim is not None and weight.ndim > rank:
            weight = reshape(weight, shape_of(values))
        if weight.ndim is not None and rank > weight.ndim:
            values = reduce_mean(values, axis=list(range(weight.ndim, rank)))
        weight = broadcast_to(weight, shape_of(values))
        self.total.assign_add(reduce_sum(values * weight))
        self.count.assign_add(reduce_sum(weight))

    def result(self):
        return divide_no_nan(self.total.value(), self.count.value())

    def add_weight(self, name=None, shape=(), initializer="zeros", dtype=None,
                   aggregation="sum") -> Variable:
        """A new state variable (Keras' way for a ``Metric`` subclass to keep its state):
        ``variables`` are then the ones added, and ``reset_state`` sets them to zeros."""
        dtype = np.dtype(dtype or self.dtype)
        shape = tuple(int(d) for d in ((shape,) if isinstance(shape, int) else shape))
        with tracing.eager_scope():  # a metric's state outlives the trace that may make it
            value = initializers.get(initializer)(shape, dtype=dtype)
        variable = self._state_variable(name or unique_name("variable"), np.asarray(value, dtype))
        self.__dict__.setdefault("_added_variables", []).append(variable)
        return variable

    def reset_state(self) -> None:
        for variable in self.variables:
            variable.assign(np.zeros(variable.shape, variable.dtype))

    reset_states = reset_state

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    @property
    def variables(self) -> list:
        return list(self.__dict__.get("_added_variables", ())) or [self.total, self.count]

    def __repr__(self) -> str:
        if display.style() == display.TENSORFLOW:  # Keras 3's text
            return f"<{type(self).__name__} name={self.name}>"
        return f"<rt.keras.metrics.{type(self).__name__} {self.name!r}>"


class MeanMetricWrapper(Metric):
    def __init__(self, fn, name=None, dtype=None, **kwargs):
        self._fn = fn
        super().__init__(name or fn.__name__, dtype, **kwargs)

    def values(self, y_true, y_pred):
        return self._fn(y_true, y_pred, **self.fn_kwargs)


class Mean(Metric):
    """The running mean of the values given to ``update_state(values, sample_weight=None)``."""

    def update_state(self, values, sample_weight=None) -> None:
        self.accumulate(values, sample_weight)


class Sum(Metric):
    """The running sum of the values given to ``update_state(values, sample_weight=None)``
    (weighted by ``sample_weight``)."""

    def update_state(self, values, sample_weight=None) -> None:
        values = cast(convert_to_tensor(values), self.dtype)
        if sample_weight is not None:
            values = values * broadcast_to(cast(convert_to_tensor(sample_weight), self.dtype),
                                           shape_of(values))
        self.total.assign_add(reduce_sum(values))

    def result(self):
        return self.total.value()
