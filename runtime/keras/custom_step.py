"""``fit`` for a model that overrides ``train_step(data)`` (Keras' "customizing what happens
in fit"), and the stateful metrics such a step updates.

The override is traced once per compile (``data`` is ``(x, y)``, ``(x, y, sample_weight)``
or ``x``); it returns a dict of results, which may nest a dict (``compile_metrics``), and
``fit`` shows the flattened dict of each batch and logs the last batch's at the epoch's end,
except that, as Keras 3's ``_get_metrics_result_or_logs``, results named exactly as the
model's metrics' results are replaced by those results (see ``epoch_logs``). The model's
``metrics`` are reset at the start of each epoch, so results are running means over the epoch,
as in Keras.
``model.metrics`` is ``[loss tracker, compile metrics]`` after ``compile`` (the compile
metrics resolve ``"accuracy"`` from the shapes of their first update), unless the model
defines its own ``metrics`` property.
"""

from __future__ import annotations

import numpy as np

from runtime import nest
from runtime.keras import metrics as metrics_module


class CompileMetrics:
    """The metrics given to ``compile``, as one metric: ``update_state(y, y_pred)`` updates
    each, ``result()`` is a dict of their results."""

    name = "compile_metrics"

    def __init__(self, specs):
        self.specs = list(specs)
        self.metrics = None

    def build(self, y_true=None, y_pred=None) -> list:
        if self.metrics is None:
            self.metrics = [metrics_module.get(spec, _shape(y_true), _shape(y_pred))
                            for spec in self.specs]
        return self.metrics

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        for metric in self.build(y_true, y_pred):
            metric.update_state(y_true, y_pred, sample_weight)

    def result(self) -> dict:
        return {metric.name: metric.result() for metric in self.metrics or []}

    def reset_state(self) -> None:
        for metric in self.metrics or []:
            metric.reset_state()


def _shape(tensor):
    return tuple(tensor.shape) if getattr(tensor, "shape", None) is not None else None


def overrides_train_step(model) -> bool:
    from_trainer = getattr(type(model), "_default_train_step", None)
    return from_trainer is not None and type(model).train_step is not from_trainer


class CustomTrainStep:
    """``fit``'s step for an overridden ``train_step`` (``fn``: it, traced unless the model
    was compiled with ``run_eagerly=True``), its results as floats."""

    def __init__(self, model, fn):
        self.model, self.fn = model, fn

    def start_epoch(self) -> None:
        self.model.reset_metrics()

    def __call__(self, x, y, sample_weight, count) -> dict:
        data = x if y is None else (x, y) if sample_weight is None else (x, y, sample_weight)
        return flat_logs(self.fn(data))

    def epoch_logs(self, logs: dict) -> dict:
        """The epoch's logs from the last batch's ``logs``, as Keras 3 makes them: the results
        of ``model.metrics`` when their names are exactly the step's result names, else
        ``logs``. So a step that returns ``{"loss": loss}`` without updating the compiled loss
        tracker logs the tracker's 0 (TensorFlow 2.21 / Keras 3.15 does), and one that returns
        ``{"my_loss": loss}`` logs its last batch's value."""
        results = flat_logs({metric.name: metric.result() for metric in self.model.metrics})
        return results if set(results) == set(logs) else dict(logs)


def flat_logs(logs) -> dict:
    """A step's results as ``{name: float}``, nested dicts (compile metrics) flattened."""
    if not isinstance(logs, dict):
        raise TypeError(f"train_step must return a dict of metric results, got "
                        f"{type(logs).__name__}.")
    flat = {}
    for name, value in logs.items():
        if isinstance(value, dict):
            flat.update(flat_logs(value))
        else:
            flat[name] = float(np.asarray(nest.flatten(value)[0]))
    return flat
