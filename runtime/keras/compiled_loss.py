"""What ``compile(loss=, loss_weights=, metrics=)`` computes in a training step, for a model
with one output or several.

One output: the loss of the batch, then each metric's mean. Several outputs (a list or a dict
of predictions): ``loss`` may be one loss for every output, a list (one per output) or a dict
by output name; ``loss_weights`` likewise; ``metrics`` a list of lists or a dict of lists. The
step's loss is the weighted sum of the outputs' losses; what is logged, as in Keras, is
``loss`` (that sum), ``<output>_loss`` (each unweighted) and ``<output>_<metric>``. An output
is named after the layer that made it (``output_1``, ... for a subclassed model).
"""

from __future__ import annotations

from runtime import nest
from runtime.keras import losses as losses_module
from runtime.keras import metrics as metrics_module


class CompiledLoss:
    def __init__(self, loss, loss_weights=None, metrics=None, weighted_metrics=None):
        self.loss_spec, self.weight_spec = loss, loss_weights
        self.metric_specs = _specs(metrics)
        self.weighted_specs = _specs(weighted_metrics)
        self.weighted: list | None = None  # per output: metrics given the sample weights
        self.output_names: list[str] | None = None  # None until built: one output
        self.losses: list = []
        self.weights: list[float] = []
        self.metrics: list | None = None  # per output: a list of Metric objects

    # -- building, from the first batch ---------------------------------------------------

    def build(self, model, y, y_pred) -> None:
        if self.metrics is not None:
            return
        if not isinstance(y_pred, (list, tuple, dict)) or len(nest.flatten(y_pred)) == 1:
            self.losses = [losses_module.as_loss_object(self.loss_spec)]
            self.weights = [1.0 if self.weight_spec is None else
                            float(nest.flatten(self.weight_spec)[0])]
            self.metrics, self.weighted = (
                [[metrics_module.get(spec, _shape(y), _shape(y_pred)) for spec in
                  (list(nest.flatten(list(specs.values()))) if isinstance(specs, dict)
                   else specs)]] for specs in (self.metric_specs, self.weighted_specs))
            self._name_weighted(None)
            return
        names = output_names(model, y_pred)
        self.output_names = names
        self.losses = [losses_module.as_loss_object(spec)
                       for spec in self._per_output(self.loss_spec, names, "loss")]
        self.weights = [1.0 if w is None else float(w) for w in
                        self._per_output(self.weight_spec, names, "loss_weights", default=1.0)]
        per_output = self._per_output(self.metric_specs if self.metric_specs else None,
                                      names, "metrics", default=[], lists=True)
        weighted = self._per_output(self.weighted_specs if self.weighted_specs else None,
                                    names, "weighted_metrics", default=[], lists=True)
        ys, preds = self.split(y, names), self.split(y_pred, names)
        self.metrics, self.weighted = (
            [[_named(metrics_module.get(spec, _shape(t), _shape(p)), name)
              for spec in ([specs] if isinstance(specs, str) else specs or [])]
             for name, specs, t, p in zip(names, chosen, ys, preds)]
            for chosen in (per_output, weighted))
        self._name_weighted(names)

    def _name_weighted(self, names) -> None:
        """A weighted metric named like an unweighted one becomes ``weighted_<name>`` (after
        the output's name), as Keras names it."""
        taken = {m.name for m in self.all_metrics(weighted=False)}
        for index, metrics in enumerate(self.weighted):
            for metric in metrics:
                if metric.name in taken:
                    base = metric.name[len(names[index]) + 1:] if names else metric.name
                    metric.name = f"{names[index]}_weighted_{base}" if names else \
                        f"weighted_{base}"
                taken.add(metric.name)

    @staticmethod
    def _per_output(spec, names, what, default=None, lists=False):
        if spec is None:
            return [default] * len(names)
        if isinstance(spec, dict):
            unknown = sorted(set(spec) - set(names))
            if unknown:
                raise ValueError(f"compile: {what} names {unknown}, which are not outputs of the "
                                 f"model (its outputs: {', '.join(names)}).")
            return [spec.get(name, default) for name in names]
        if isinstance(spec, (list, tuple)):
            if lists and all(isinstance(s, str) for s in spec):
                raise ValueError(f"compile: for a model of {len(names)} outputs, give metrics as "
                                 f"one list per output ([[...], [...]]) or a dict by output name.")
            if len(spec) != len(names):
                raise ValueError(f"compile: {what} has {len(spec)} entries for a model of "
                                 f"{len(names)} outputs ({', '.join(names)}).")
            return list(spec)
        return [spec] * len(names)  # one loss (or weight) for every output

    def split(self, values, names) -> list:
        """Targets or predictions per output, from a list or a dict by output name."""
        if isinstance(values, dict):
            return [values[name] for name in names]
        values = list(values)
        if len(values) != len(names):
            raise ValueError(f"the model has {len(names)} outputs ({', '.join(names)}), the "
                             f"targets give {len(values)}.")
        return values

    # -- the step -----------------------------------------------------------------------------

    def loss_names(self) -> list[str]:
        if self.output_names is None:
            return ["loss"]
        return ["loss"] + [f"{name}_loss" for name in self.output_names]

    def all_metrics(self, weighted: bool = True) -> list:
        groups = (self.metrics or []) + ((self.weighted or []) if weighted else [])
        return [m for metrics in groups for m in metrics]

    def __call__(self, y, y_pred, sample_weight=None):
        """The weighted total loss, and each output's (unweighted) loss."""
        if self.output_names is None:
            loss = self.losses[0](y, y_pred, sample_weight=sample_weight)
            return (loss if self.weights[0] == 1.0 else loss * self.weights[0]), []
        parts = [loss(t, p, sample_weight=sample_weight) for loss, t, p in
                 zip(self.losses, self.split(y, self.output_names),
                     self.split(y_pred, self.output_names))]
        total = None
        for weight, part in zip(self.weights, parts):
            term = part * weight if weight != 1.0 else part
            total = term if total is None else total + term
        return total, parts

    def update_metrics(self, y, y_pred, sample_weight=None) -> None:
        """Updates each metric's state with the batch: ``metrics`` unweighted,
        ``weighted_metrics`` with the sample weights."""
        if self.output_names is None:
            ys, preds = [y], [y_pred]
        else:
            ys, preds = self.split(y, self.output_names), self.split(y_pred, self.output_names)
        for metrics, weighted, t, p in zip(self.metrics, self.weighted, ys, preds):
            for m in metrics:
                m.update_state(t, p)
            for m in weighted:
                m.update_state(t, p, sample_weight)


def output_names(model, y_pred) -> list[str]:
    """The names of a model's outputs: the layers that made them (a functional model), the
    keys of a dict of predictions, else ``output_1``, ``output_2``, ..."""
    if isinstance(y_pred, dict):
        return sorted(y_pred)
    if model.__dict__.get("_graph") is not None:
        names = model.output_names
        if len(set(names)) == len(names):
            return names
    return [f"output_{i + 1}" for i in range(len(y_pred))]


def _specs(metrics) -> list | dict:
    if metrics is None:
        return []
    return metrics if isinstance(metrics, (list, tuple, dict)) else [metrics]


def _named(metric, output: str):
    metric.name = f"{output}_{metric.name}"
    return metric


def _shape(tensor):
    return tuple(tensor.shape) if getattr(tensor, "shape", None) is not None else None
