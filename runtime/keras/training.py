"""``compile``, ``fit``, ``evaluate`` and ``predict`` (the ``Model`` methods that train).

The training step (forward pass under a ``GradientTape``, gradients, the optimizer's update,
the loss and metrics of the batch) is one traced function, made once per ``compile``: every
batch of one shape runs the same graph (a last, smaller batch traces a second one). Metrics
are averaged over samples in Python from each batch's mean, weighted by the batch's size, as
Keras' ``Mean`` metrics are; so is the loss shown and logged.

The steps are runtime code, traced with ``rt.function``; the layers' ``call`` methods they
reach are converted as the layers are called (``Layer.__call__``, ``runtime.conversion``).
"""

from __future__ import annotations

import itertools

import numpy as np

from runtime import nest
from runtime.autodiff.tape import GradientTape
from runtime.function import function
from runtime.keras import batches
from runtime.keras import callbacks as callbacks_module
from runtime.keras import compiled_loss
from runtime.keras import custom_step
from runtime.keras import metrics as metrics_module
from runtime.keras import optimizers as optimizers_module
from runtime.keras.progress import Progbar
from runtime.ops import random_ops
from runtime.ops.array_ops import cast, convert_to_tensor, shape as shape_of, stack
from runtime.ops.reduce_ops import reduce_sum


class Trainer:
    def __init__(self):
        self.optimizer = None
        self.loss = None
        self.stop_training = False
        self.history = None
        self.compiled = False
        self._compiled = None

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", **kwargs):
        """``run_eagerly=True`` runs the steps op by op instead of tracing them (the same
        kernels: the same bits in every fit checked against the traced one).
        ``jit_compile`` and ``steps_per_execution`` are accepted and ignored: the traced steps
        are ``rt.function``s of the default ``jit_compile=None``, which move to the compiled
        tier's exact kernels when hot, so results never depend on them (TensorFlow's XLA fit
        differs from its default by float32 rounding only)."""
        self.optimizer = optimizers_module.get(optimizer)
        self.loss = loss
        # What model.save writes (runtime.keras.compile_saving) for load_model to compile with.
        self._compile_args = {"loss": loss, "metrics": metrics, "loss_weights": loss_weights,
                              "weighted_metrics": weighted_metrics, "run_eagerly": run_eagerly}
        self._compiled = _Compiled(self, loss, metrics or [], run_eagerly, loss_weights,
                                   weighted_metrics)
        self.compiled = True

    @property
    def metrics_names(self) -> list[str]:
        """Keras 3's: the names of ``metrics`` (``["loss", "compile_metrics"]``, not each
        metric's), then each output's loss of a model of several outputs; none before
        ``compile``."""
        names = [metric.name for metric in self.metrics]
        if self._compiled is not None and type(self).metrics is Trainer.metrics:
            names += self._compiled.loss_names()[1:]
        return names

    # -- fit ---------------------------------------------------------------------------------

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        compiled = self._require_compiled("fit")
        if class_weight is not None and sample_weight is not None:
            raise ValueError("fit: give class_weight or sample_weight, not both (Keras refuses "
                             "them together too); fold the class weights into sample_weight.")
        verbose = 1 if verbose == "auto" else verbose
        data = batches.Data(x, y, batch_size, sample_weight)
        if validation_split and validation_data is None:
            if data.dataset is not None:
                raise ValueError("validation_split needs arrays; give a dataset's validation "
                                 "data as validation_data.")
            data, validation = data.split(validation_split)
        else:
            validation = None if validation_data is None else batches.Data(
                *batches.unpack_validation(validation_data, validation_batch_size or batch_size
                                    or data.batch_size))
        # Shuffled the same way after the same keras.utils.set_random_seed, as in Keras.
        epochs_of = batches.Epochs(data, shuffle, np.random.default_rng(random_ops.drawn_seed()),
                                   steps_per_epoch)
        history = callbacks_module.History()
        callback_list = callbacks_module.CallbackList(
            list(callbacks or []) + [history], self,
            {"verbose": verbose, "epochs": epochs, "steps": epochs_of.steps()})
        self.stop_training = False
        callback_list.on_train_begin()
        logs = {}
        train_step = self._loop_step("train_step", compiled)
        for epoch in range(initial_epoch, epochs):
            callback_list.on_epoch_begin(epoch)
            if verbose and epochs > 1:  # Keras shows no "Epoch 1/1"
                print(f"Epoch {epoch + 1}/{epochs}")
            progress = Progbar(epochs_of.steps(), verbose) if verbose else None
            train_step.start_epoch()
            step, batch_logs = 0, {}
            for step, (xb, yb, wb, count) in enumerate(epochs_of.epoch(), start=1):
                callback_list.on_train_batch_begin(step - 1)
                if class_weight is not None:
                    wb = batches.class_weights_of(yb, class_weight)
                batch_logs = train_step(xb, yb, wb, count)
                callback_list.on_train_batch_end(step - 1, batch_logs)
                if progress:
                    progress.update(step, batch_logs)
                if self.stop_training:
                    break
            logs = train_step.epoch_logs(batch_logs)
            if validation is not None and (epoch + 1) % validation_freq == 0:
                logs.update({f"val_{k}": v for k, v in self._evaluate_data(
                    validation, compiled, callback_list, steps=validation_steps).items()})
            logs = _by_name(logs)
            callback_list.on_epoch_end(epoch, logs)
            if progress:
                progress.update(step, logs, finalize=True)
            if self.stop_training:
                break
        if epochs > 0:  # with use_ema, the averages become the weights (as in Keras 3)
            self.optimizer.finalize_variable_values(self.trainable_variables)
        callback_list.on_train_end(logs)
        self.history = history
        return history

    # -- evaluate / predict ------------------------------------------------------------------

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        compiled = self._require_compiled("evaluate")
        verbose = 1 if verbose == "auto" else verbose
        data = batches.Data(x, y, batch_size, sample_weight)
        callback_list = self._loop_callbacks(callbacks, verbose, _at_most(data.steps(), steps))
        logs = self._evaluate_data(data, compiled, callback_list, verbose, steps)
        return logs if return_dict else self._loop_step("test_step", compiled).in_order(logs)

    def _loop_callbacks(self, callbacks, verbose, steps) -> callbacks_module.CallbackList:
        """The callbacks of ``evaluate`` or ``predict``: one epoch of ``steps`` batches."""
        return callbacks_module.CallbackList(callbacks, self, {"verbose": verbose, "epochs": 1,
                                                               "steps": steps})

    def _evaluate_data(self, data, compiled, callback_list, verbose=0, steps=None) -> dict:
        """Runs the test step over ``data``, calling the test hooks of ``callback_list`` (the
        one of ``fit`` for its validation); the logs averaged over the batches."""
        test_step = self._loop_step("test_step", compiled)
        test_step.start_epoch()
        progress = Progbar(_at_most(data.steps(), steps), verbose) if verbose else None
        callback_list.on_test_begin()
        step, logs = 0, {}
        for step, (xb, yb, wb, count) in enumerate(
                itertools.islice(data.batches(False, None), steps), start=1):
            callback_list.on_test_batch_begin(step - 1)
            logs = test_step(xb, yb, wb, count)  # the first call resolves the metrics' names
            callback_list.on_test_batch_end(step - 1, logs)
            if progress:
                progress.update(step, logs)
        logs = test_step.epoch_logs(logs)
        if progress:
            progress.update(step, logs, finalize=True)
        callback_list.on_test_end(logs)
        return logs

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        verbose = 1 if verbose == "auto" else verbose
        data = batches.Data(x, None, batch_size)
        predict_step = self._predict_function()
        outputs = []
        progress = Progbar(_at_most(data.steps(), steps), verbose) if verbose else None
        callback_list = self._loop_callbacks(callbacks, verbose, _at_most(data.steps(), steps))
        callback_list.on_predict_begin()
        step = 0
        for step, (xb, _, _weights, _count) in enumerate(
                itertools.islice(data.batches(False, None), steps), start=1):
            callback_list.on_predict_batch_begin(step - 1)
            batch = custom_step.pack_x_y_sample_weight(xb)
            outputs.append(nest.map_structure(lambda t: np.asarray(t.numpy()), predict_step(batch)))
            callback_list.on_predict_batch_end(step - 1, {"outputs": outputs[-1]})
            if progress:
                progress.update(step)
        if progress:
            progress.update(step, finalize=True)
        callback_list.on_predict_end()
        if not outputs:
            return None
        return nest.pack_like(outputs[0], [np.concatenate(parts, axis=0) for parts in
                                           zip(*[nest.flatten(o) for o in outputs])])

    def predict_on_batch(self, x):
        # Keras gives predict_step the batch as (x,) here (predict gives x alone).
        return nest.map_structure(lambda t: np.asarray(t.numpy()),
                                  self._predict_function()((batches.as_tensors(x),)))

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        """One training step on one batch; the batch's loss and metrics (as ``fit`` logs
        them, not averaged with earlier batches)."""
        compiled = self._require_compiled("train_on_batch")
        y = None if y is None else batches.as_tensors(y)
        weights = batches.as_tensors(sample_weight) if sample_weight is not None else \
            batches.class_weights_of(y, class_weight) if class_weight is not None else None
        step = self._loop_step("train_step", compiled)
        logs = step.on_batch(batches.as_tensors(x), y, weights)
        return logs if return_dict else step.in_order(logs)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss and metrics of one batch, without training."""
        compiled = self._require_compiled("test_on_batch")
        step = self._loop_step("test_step", compiled)
        logs = step.on_batch(
            batches.as_tensors(x), None if y is None else batches.as_tensors(y),
            None if sample_weight is None else batches.as_tensors(sample_weight))
        return logs if return_dict else step.in_order(logs)

    def _predict_function(self):
        fn = self.__dict__.get("_predict_step")
        if fn is None:
            fn = self._predict_step = function(_Step(lambda data: self.predict_step(data),
                                                     "predict_step"))
        return fn

    def _loop_step(self, name: str, compiled: "_Compiled"):
        """What ``fit`` (``name="train_step"``) or ``evaluate`` (``"test_step"``) runs on each
        batch: the model's own override of that method, or the compiled, traced default."""
        if getattr(type(self), name) is not getattr(Trainer, name):
            return compiled.custom_step(name)
        return _DefaultStep(compiled, compiled.train_step if name == "train_step"
                            else compiled.test_step)

    # -- Keras' API for custom steps (see runtime.keras.custom_step) -------------------------

    def train_step(self, data) -> dict:
        """One training step on ``data`` (``(x, y)``, ``(x, y, sample_weight)`` or ``x``);
        returns the results of ``self.metrics``. Override it to change what ``fit`` does."""
        compiled = self._require_compiled("train_step")
        x, y, sample_weight = custom_step.unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = compiled.total_loss(y, y_pred, sample_weight)
            scaled = self.optimizer.scale_loss(loss)  # loss_scale_factor's
        variables = self.trainable_variables
        self.optimizer.apply_gradients(zip(tape.gradient(scaled, variables), variables))
        return self._updated_metrics(x, y, y_pred, loss, sample_weight)

    def test_step(self, data) -> dict:
        """The loss and metrics of ``data`` (as ``train_step`` takes it), without training;
        returns the results of ``self.metrics``. Override it to change what ``evaluate``
        does."""
        compiled = self._require_compiled("test_step")
        x, y, sample_weight = custom_step.unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = compiled.total_loss(y, y_pred, sample_weight)
        return self._updated_metrics(x, y, y_pred, loss, sample_weight)

    def predict_step(self, data):
        """The predictions for ``data`` (``x``, or a tuple starting with it). Override it to
        change what ``predict`` returns."""
        x, _, _ = custom_step.unpack_x_y_sample_weight(data)
        return self(x, training=False)

    def _updated_metrics(self, x, y, y_pred, loss, sample_weight) -> dict:
        for metric in self.metrics:
            if metric is self._compiled.loss_tracker:  # a batch's loss counts once per sample
                metric.update_state(loss, sample_weight=shape_of(nest.flatten(x)[0])[0])
            else:
                metric.update_state(y, y_pred, sample_weight)
        return {metric.name: metric.result() for metric in self.metrics}

    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of ``y_pred`` against ``y`` plus the model's extra losses."""
        return self._require_compiled("compute_loss").total_loss(y, y_pred, sample_weight)

    @property
    def metrics(self) -> list:
        """After ``compile``: the loss tracker (a ``Mean`` named "loss") and the compiled
        metrics (one object whose result is a dict)."""
        compiled = self._compiled
        if compiled is None:
            return []
        return [compiled.loss_tracker] + ([compiled.compile_metrics]
                                          if compiled.metric_specs else [])

    def reset_metrics(self) -> None:
        for metric in self.metrics:
            metric.reset_state()

    def _require_compiled(self, what):
        if self._compiled is None:
            raise RuntimeError(f"{what}: compile the model first, e.g. "
                               f"model.compile(optimizer='adam', loss='mse').")
        return self._compiled


class _Compiled:
    """The loss, metrics and traced steps of one ``compile``."""

    def __init__(self, model, loss, metrics, run_eagerly, loss_weights=None,
                 weighted_metrics=None):
        self.model = model
        # No loss is allowed for a model whose own train_step computes one.
        self.loss = None if loss is None else \
            compiled_loss.CompiledLoss(loss, loss_weights, metrics, weighted_metrics)
        self.metric_specs = list(metrics) if isinstance(metrics, (list, tuple)) else [metrics]
        self.loss_tracker = metrics_module.Mean(name="loss")
        self.compile_metrics = custom_step.CompileMetrics(self.metric_specs)
        self._wrap = (lambda f: f) if run_eagerly else function
        self.train_step = self._wrap(_Step(self._train_step, "train_step"))
        self.test_step = self._wrap(_Step(self._test_step, "test_step"))
        self._custom_steps: dict[str, custom_step.CustomStep] = {}

    def custom_step(self, name: str) -> custom_step.CustomStep:
        """The model's own ``train_step`` or ``test_step`` (``name``), traced once per
        compile."""
        step = self._custom_steps.get(name)
        if step is None:
            method = lambda data: getattr(self.model, name)(data)  # noqa: E731
            step = self._custom_steps[name] = custom_step.CustomStep(
                self.model, self._wrap(_Step(method, name)))
        return step

    def names(self) -> list[str]:
        """What ``fit`` logs: the losses, then the metrics."""
        if self.loss is None:
            return ["loss"]
        return self.loss.loss_names() + [m.name for m in self.loss.all_metrics()]

    def loss_names(self) -> list[str]:
        """What a traced step returns: the loss (and each output's)."""
        return self.loss.loss_names() if self.loss is not None else ["loss"]

    def metric_logs(self) -> dict:
        """The compiled metrics' results so far (their state, updated by each step)."""
        return {m.name: _log_value(m.result()) for m in self.loss.all_metrics()} \
            if self.loss is not None else {}

    def reset_metric_states(self) -> None:
        for metric in self.loss.all_metrics() if self.loss is not None else []:
            metric.reset_state()

    def _outputs(self, y, y_pred, losses, sample_weight=None) -> list:
        loss, parts = losses
        self.loss.update_metrics(y, y_pred, sample_weight)  # variable updates, in the step
        return [loss] + parts

    def total_loss(self, y, y_pred, sample_weight):
        return self._losses(y, y_pred, sample_weight)[0]

    def _losses(self, y, y_pred, sample_weight):
        """The compiled loss plus the model's extra losses (regularizers, ``add_loss``), as
        Keras' ``compute_loss`` adds them."""
        if self.loss is None:
            raise ValueError(f"{self.model.name} was compiled without a loss: give "
                             f"compile(loss=...), or override train_step (and test_step) to "
                             f"compute one.")
        self.loss.build(self.model, y, y_pred)
        loss, parts = self.loss(y, y_pred, sample_weight)
        extra = self.model.losses
        if not extra:
            return loss, parts
        return reduce_sum(stack([loss] + [reduce_sum(cast(convert_to_tensor(value), loss.dtype))
                                          for value in extra])), parts

    def _train_step(self, x, y, sample_weight=None):
        model = self.model
        with GradientTape() as tape:
            y_pred = model(x, training=True)
            losses = self._losses(y, y_pred, sample_weight)
            scaled = model.optimizer.scale_loss(losses[0])  # loss_scale_factor's
        variables = model.trainable_variables
        gradients = tape.gradient(scaled, variables)
        model.optimizer.apply_gradients(zip(gradients, variables))
        return self._outputs(y, y_pred, losses, sample_weight)

    def _test_step(self, x, y, sample_weight=None):
        y_pred = self.model(x, training=False)
        return self._outputs(y, y_pred, self._losses(y, y_pred, sample_weight), sample_weight)


class _DefaultStep:
    """``fit``'s or ``evaluate``'s step when ``train_step`` or ``test_step`` is Keras' own:
    the compiled, traced ``step``, its loss and metrics averaged over the epoch's samples in
    Python."""

    def __init__(self, compiled: _Compiled, step):
        self.compiled, self.step = compiled, step
        self.totals = _Totals()

    def start_epoch(self) -> None:
        self.totals = _Totals()
        self.compiled.reset_metric_states()

    def __call__(self, x, y, sample_weight, count) -> dict:
        values = self.step(x, y, sample_weight)
        self.totals.add(self.compiled.loss_names(), values, count)
        return _by_name({**self.totals.logs(), **self.compiled.metric_logs()})

    def epoch_logs(self, logs: dict) -> dict:
        """The epoch's logs: the last batch's (running means over the epoch)."""
        return dict(logs)

    def on_batch(self, x, y, sample_weight) -> dict:
        """The loss and metrics of one batch alone (``train_on_batch``, ``test_on_batch``)."""
        self.compiled.reset_metric_states()
        values = self.step(x, y, sample_weight)
        logs = {name: float(np.asarray(value))
                for name, value in zip(self.compiled.loss_names(), values)}
        return _by_name({**logs, **self.compiled.metric_logs()})

    def in_order(self, logs: dict):
        """``logs`` as ``evaluate`` returns them without ``return_dict``: the losses, then the
        metrics (one value alone)."""
        values = [logs[name] for name in self.compiled.names() if name in logs]
        return values[0] if len(values) == 1 else values


def _log_value(result):
    """A metric's result in the logs: a float, or an array for a metric of several values (an
    ``F1Score`` per class), as Keras 3 keeps it."""
    value = np.asarray(result)
    return float(value) if value.ndim == 0 else value


def _by_name(logs: dict) -> dict:
    """Logs in Keras 3's order, which every hook, ``evaluate(return_dict=True)`` and
    ``train_on_batch(return_dict=True)`` show: by name."""
    return dict(sorted(logs.items()))


def _at_most(batches_in_data, steps):
    """The batches a loop over the data runs with ``steps`` (None: all of them; None known)."""
    if steps is None:
        return batches_in_data
    return steps if batches_in_data is None else min(batches_in_data, steps)


class _Step:
    """One compile's step as a callable of its own, so that the retrace detector (keyed by
    code) counts each model's traces apart instead of all models' together."""

    def __init__(self, fn, name):
        self._fn = fn
        self.__name__ = self.__qualname__ = name

    def __call__(self, *args):
        return self._fn(*args)


class _Totals:
    """Sums of batch means times batch sizes, per name."""

    def __init__(self):
        self.sums: dict[str, float] = {}
        self.count = 0

    def add(self, names, values, count: int) -> None:
        for name, value in zip(names, values):
            self.sums[name] = self.sums.get(name, 0.0) + float(np.asarray(value)) * count
        self.count += count

    def logs(self) -> dict:
        return {name: total / self.count for name, total in self.sums.items()} if self.count \
            else {}
