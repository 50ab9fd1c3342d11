"""``rt.keras.callbacks``: hooks called by ``fit``: ``History``, ``EarlyStopping``,
``LearningRateScheduler``, ``ReduceLROnPlateau``, ``ModelCheckpoint``, ``CSVLogger``,
``LambdaCallback``, ``TerminateOnNaN``, ``ProgbarLogger``."""

from __future__ import annotations

import csv
import math
import os
import warnings

import numpy as np

from runtime.keras.missing import missing as _missing


class Callback:
    def __init__(self):
        self.model = None
        self.params: dict = {}

    def set_model(self, model) -> None:
        self.model = model

    def set_params(self, params: dict) -> None:
        self.params = params

    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_train_batch_begin(self, batch, logs=None): pass
    def on_train_batch_end(self, batch, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass


class CallbackList:
    """Calls each hook on every callback in order. A hook is looked up once per list, and only
    the callbacks that define it are called (``fit`` calls the batch hooks on every batch)."""

    def __init__(self, callbacks, model, params: dict):
        self.callbacks = list(callbacks or [])
        for callback in self.callbacks:
            callback.set_model(model)
            callback.set_params(params)

    def __getattr__(self, hook: str):
        if not hook.startswith("on_") or not hasattr(Callback, hook):
            raise AttributeError(hook)
        base = getattr(Callback, hook)
        defined = [getattr(callback, hook) for callback in self.callbacks
                   if hook in vars(callback) or getattr(type(callback), hook, base) is not base]

        # Keras passes a dict even when there are no logs (a LambdaCallback's
        # ``lambda batch, logs: ...`` relies on it): by keyword to the batch hooks, by position
        # to the others (whose parameter may then have any name).
        if "batch" in hook:
            def call(index, logs=None):
                for method in defined:
                    method(index, logs=logs if logs is not None else {})
        elif "epoch" in hook:
            def call(index, logs=None):
                for method in defined:
                    method(index, logs if logs is not None else {})
        else:
            def call(logs=None):
                for method in defined:
                    method(logs if logs is not None else {})
        self.__dict__[hook] = call  # later lookups find it without __getattr__
        return call


class History(Callback):
    """``history``: metric name -> list of per-epoch values; ``epoch``: the epochs run."""

    def __init__(self):
        super().__init__()
        self.history: dict[str, list] = {}
        self.epoch: list[int] = []

    def on_train_begin(self, logs=None):
        self.epoch = []

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self.history.setdefault(key, []).append(value)
        if self.model is not None:
            self.model.history = self


class ProgbarLogger(Callback):
    """Keras' progress bar as a callback. ``fit``, ``evaluate`` and ``predict`` draw it
    themselves at their ``verbose`` level (``runtime.keras.progress``), which is what Keras
    does with a ``ProgbarLogger`` given to them (it takes its verbosity from the loop, and
    replaces the default one), so passing one changes nothing here and is allowed."""


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None,
                 on_train_end=None, on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        hooks = dict(on_epoch_begin=on_epoch_begin, on_epoch_end=on_epoch_end,
                     on_train_begin=on_train_begin, on_train_end=on_train_end,
                     on_train_batch_begin=on_train_batch_begin,
                     on_train_batch_end=on_train_batch_end, **kwargs)
        for name, fn in hooks.items():
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    def on_train_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and not math.isfinite(loss):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


def _mode_is_max(mode: str, monitor: str) -> bool:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max', got {mode!r}.")
    if mode == "auto":
        return "acc" in monitor or monitor.endswith("auc")
    return mode == "max"


class EarlyStopping(Callback):
    """Stops ``fit`` once ``monitor`` has not improved by more than ``min_delta`` for
    ``patience`` epochs. ``restore_best_weights=True`` puts back the weights of the best
    epoch when training ends (the weights after that epoch)."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto",
                 baseline=None, restore_best_weights=False, start_from_epoch=0):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, patience, verbose
        self.min_delta = abs(min_delta)
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.start_from_epoch = start_from_epoch
        self._max = _mode_is_max(mode, monitor)
        self._reset()

    def _reset(self):
        self.wait, self.stopped_epoch, self.best_epoch = 0, 0, 0
        self.best = -np.inf if self._max else np.inf
        self.best_weights = None

    def _improves(self, value, reference) -> bool:
        if reference is None:
            return True
        return value - self.min_delta > reference if self._max else \
            value + self.min_delta < reference

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(f"EarlyStopping: the monitored value {self.monitor!r} is not among "
                          f"the logs ({', '.join(logs or {})}).", UserWarning, stacklevel=2)
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
        if epoch < self.start_from_epoch:
            return
        self.wait += 1
        if self._improves(current, self.best):
            self.best, self.best_epoch = current, epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._improves(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                print(f"Restoring model weights from the end of the best epoch: "
                      f"{self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to ``schedule(epoch, lr)`` (or ``schedule(epoch)``)
    at the start of each epoch, and logs it as ``learning_rate``."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        optimizer = self.model.optimizer
        current = float(np.asarray(optimizer.learning_rate.numpy()))
        try:
            value = self.schedule(epoch, current)
        except TypeError:
            value = self.schedule(epoch)
        value = float(np.asarray(value.numpy() if hasattr(value, "numpy") else value))
        optimizer.learning_rate = value
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: LearningRateScheduler setting learning rate to {value}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["learning_rate"] = float(np.asarray(self.model.optimizer.learning_rate.numpy()))


class ModelCheckpoint(Callback):
    """Saves the model after each epoch, or only when ``monitor`` improves with
    ``save_best_only=True``: the whole model (``model.save``, which ``load_model`` reads) to a
    ``.keras`` path unless ``save_weights_only=True``, else the weights (``save_weights``'s
    format). ``filepath`` may hold ``{epoch}`` and log names, e.g.
    ``"ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5"``."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        if save_freq != "epoch":
            raise NotImplementedError("ModelCheckpoint saves per epoch only (save_freq='epoch').")
        self.filepath, self.monitor, self.verbose = os.fspath(filepath), monitor, verbose
        self.save_best_only, self.save_weights_only = save_best_only, save_weights_only
        self._max = _mode_is_max(mode, monitor)
        # None until the first value seen (Keras 3 says "improved from None" then).
        self.best = initial_value_threshold

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                warnings.warn(f"ModelCheckpoint: {self.monitor!r} is not among the logs; "
                              f"nothing saved.", UserWarning, stacklevel=2)
                return
            best = "None" if self.best is None else f"{self.best:.5f}"
            better = self.best is None or (current > self.best if self._max
                                           else current < self.best)
            if not better:
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to "
                      f"{current:.5f}, saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: saving model to {path}")
        self._save(path)
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1}: finished saving model to {path}")

    def _save(self, path: str) -> None:
        if self.save_weights_only or not path.endswith(".keras"):
            self.model.save_weights(path)
        elif self.model._saving_kind() is None:
            warnings.warn(f"ModelCheckpoint: {self.model.name} is a subclassed model, which "
                          f"model.save cannot store (it is Python code); {path} holds its "
                          f"weights only. Give save_weights_only=True and a .weights.h5 path, "
                          f"and rebuild the model in code before load_weights.", UserWarning,
                          stacklevel=2)
            self.model.save_weights(path)
        else:
            self.model.save(path)


class TensorBoard(Callback):
    """Accepted so that programs run, but it records nothing: TensorBoard's event files need
    TensorFlow's summary writer, which the runtime does not have. It says so once, when
    training starts; CSVLogger writes the same per-epoch logs to a file."""

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        self.log_dir = os.fspath(log_dir)

    def on_train_begin(self, logs=None):
        warnings.warn(f"TensorBoard writes no logs under rt.keras (TensorBoard's event files "
                      f"need TensorFlow's summary writer); nothing goes to {self.log_dir!r}. "
                      f"Use keras.callbacks.CSVLogger for a file of each epoch's logs.",
                      UserWarning, stacklevel=2)


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` once ``monitor`` has not improved by more
    than ``min_delta`` for ``patience`` epochs (not below ``min_lr``), then waits ``cooldown``
    epochs before counting again; logs the learning rate as ``learning_rate``."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto",
                 min_delta=1e-4, cooldown=0, min_lr=0.0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be below 1 (it multiplies the "
                             f"learning rate), got {factor}.")
        self.monitor, self.factor, self.patience = monitor, float(factor), patience
        self.verbose, self.min_delta, self.cooldown = verbose, min_delta, cooldown
        self.min_lr = float(min_lr)
        self._max = _mode_is_max(mode, monitor)
        self._reset()

    def _reset(self):
        self.best = -np.inf if self._max else np.inf
        self.wait, self.cooldown_counter = 0, 0

    def _improves(self, current) -> bool:
        return current > self.best + self.min_delta if self._max else \
            current < self.best - self.min_delta

    def on_train_begin(self, logs=None):
        self._reset()

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        optimizer = self.model.optimizer
        logs["learning_rate"] = float(np.asarray(optimizer.learning_rate.numpy()))
        current = logs.get(self.monitor)
        if current is None:
            warnings.warn(f"ReduceLROnPlateau: the monitored value {self.monitor!r} is not "
                          f"among the logs ({', '.join(logs)}).", UserWarning, stacklevel=2)
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improves(current):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(np.float32(logs["learning_rate"]))  # Keras holds it in float32
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    optimizer.learning_rate = new
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing learning rate "
                              f"to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class CSVLogger(Callback):
    """Writes one line per epoch to ``filename``: the epoch, then each logged value, in
    columns ``epoch`` and the log names sorted (plus ``val_`` columns, written ``NA``, when
    the first epoch logged no validation values, as Keras does). ``append=True`` adds to an
    existing file (its header kept)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.separator, self.append = os.fspath(filename), separator, append
        self._file, self._columns = None, None

    def on_train_begin(self, logs=None):
        has_header = self.append and os.path.exists(self.filename) and \
            os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._columns = None
        self._write_header = not has_header

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._columns is None:
            self._columns = sorted(logs)
            if self._columns and not any(key.startswith("val_") for key in self._columns):
                self._columns += [f"val_{key}" for key in self._columns]
            self._writer = csv.writer(self._file, delimiter=self.separator)
            if self._write_header:
                self._writer.writerow(["epoch"] + self._columns)
        self._writer.writerow([epoch] + [logs.get(key, "NA") for key in self._columns])
        self._file.flush()

    def on_train_end(self, logs=None):
        if self._file is not None and not self._file.closed:
            self._file.close()


__getattr__ = _missing("keras.callbacks")
