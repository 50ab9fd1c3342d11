"""``fit`` and ``evaluate`` for a model that overrides ``train_step(data)`` or
``test_step(data)`` (Keras' "customizing what happens in fit"), the ``data`` such a step (and
``predict_step``) receives, and the stateful metrics such a step updates.

The override is traced once per compile (``data`` is ``(x, y)``, ``(x, y, sample_weight)``
or ``x``, as ``pack_x_y_sample_weight`` makes it); it returns a dict of results, which may
nest a dict (``compile_metrics``), and ``fit`` (or ``evaluate``) shows the flattened dict of
each batch and logs the last batch's at the end, except that, as Keras 3's
``_get_metrics_result_or_logs``, results named exactly as the model's metrics' results are
replaced by those results (see ``epoch_logs``). The model's ``metrics`` are reset at the start
of each epoch (and of ``evaluate``), so results are running means, as in Keras. A model
compiled without a loss may override both steps: neither needs one.
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


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """A batch as Keras gives it to ``train_step``, ``test_step`` and ``predict_step``: ``x``
    alone (``(x,)`` when ``x`` is a list or tuple of inputs) when there is no ``y``, else
    ``(x, y)`` or ``(x, y, sample_weight)``."""
    if y is None:
        return (x,) if isinstance(x, (list, tuple)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def unpack_x_y_sample_weight(data) -> tuple:
    """``(x, y, sample_weight)`` of a batch packed by ``pack_x_y_sample_weight``; missing parts
    are None."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if not 1 <= len(data) <= 3:
        raise ValueError(f"a batch must be x, (x,), (x, y) or (x, y, sample_weight); got a "
                         f"tuple of {len(data)} parts. Pack several inputs into one list: "
                         f"([x1, x2], y).")
    return data + (None,) * (3 - len(data))


class CustomStep:
    """``fit``'s or ``evaluate``'s step for an overridden ``train_step`` or ``test_step``
    (``fn``: it, traced unless the model was compiled with ``run_eagerly=True``), its results
    as floats."""

    def __init__(self, model, fn):
        self.model, self.fn = model, fn

    def start_epoch(self) -> None:
        self.model.reset_metrics()

    def __call__(self, x, y, sample_weight, count) -> dict:
        return flat_logs(self.fn(pack_x_y_sample_weight(x, y, sample_weight)))

    def on_batch(self, x, y, sample_weight) -> dict:
        """The results of one batch (``train_on_batch``, ``test_on_batch``), which Keras
        gives the step as ``(x, y, sample_weight)``, after resetting the metrics."""
        self.model.reset_metrics()
        return flat_logs(self.fn((x, y, sample_weight)))

    def epoch_logs(self, logs: dict) -> dict:
        """The epoch's logs from the last batch's ``logs``, as Keras 3 makes them: the results
        of ``model.metrics`` when their names are exactly the step's result names, else
        ``logs``. So a step that returns ``{"loss": loss}`` without updating the compiled loss
        tracker logs the tracker's 0 (TensorFlow 2.21 / Keras 3.15 does), and one that returns
        ``{"my_loss": loss}`` logs its last batch's value."""
        results = flat_logs({metric.name: metric.result() for metric in self.model.metrics})
        return results if set(results) == set(logs) else dict(logs)

    def in_order(self, logs: dict):
        """``logs`` as ``evaluate`` returns them without ``return_dict``, in Keras 3's order:
        the results named as ``model.metrics`` (each compiled metric on its own) in their
        order, then the others by name; one value alone."""
        names = []
        for metric in self.model.metrics:
            names += [m.name for m in metric.metrics or []] \
                if isinstance(metric, CompileMetrics) else [metric.name]
        ordered = [logs[name] for name in names if name in logs] + \
            [logs[name] for name in sorted(logs) if name not in names]
        return ordered[0] if len(ordered) == 1 else ordered


def flat_logs(logs) -> dict:
    """A step's results as ``{name: float}``, by name as Keras orders them, nested dicts
    (compile metrics) flattened."""
    if not isinstance(logs, dict):
        raise TypeError(f"train_step and test_step must return a dict of metric results, got "
                        f"{type(logs).__name__}.")
    flat = {}
    for name, value in sorted(logs.items()):
        if isinstance(value, dict):
            flat.update(flat_logs(value))
        else:
            flat[name] = float(np.asarray(nest.flatten(value)[0]))
    return flat
