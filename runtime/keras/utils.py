"""``keras.utils``: ``set_random_seed``, ``to_categorical``, ``normalize``, ``pad_sequences``,
``timeseries_dataset_from_array``, ``PyDataset``, ``pack_x_y_sample_weight`` and
``unpack_x_y_sample_weight``, ``register_keras_serializable`` and ``get_custom_objects``."""

from __future__ import annotations

import random

import numpy as np

from runtime.keras.custom_step import (pack_x_y_sample_weight,  # noqa: F401  (Keras' names)
                                       unpack_x_y_sample_weight)
from runtime.keras.layers import base as _base
from runtime.keras.missing import missing as _missing
from runtime.keras.registration import (get_custom_objects,  # noqa: F401  (Keras' names)
                                        register_keras_serializable)
from runtime.data import Dataset
from runtime.ops import random_ops
from runtime.ops.normalization_ops import l2_normalize
from runtime.tensor import Tensor


def set_random_seed(seed: int) -> None:
    """Seeds Python's ``random``, NumPy's global generator and the runtime's (``rt.random``,
    which unseeded initializers and ``Dropout`` draw from), as Keras seeds its backends."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"set_random_seed: seed must be an integer, got {seed!r}.")
    random.seed(int(seed))
    np.random.seed(int(seed))
    random_ops.set_seed(int(seed))


def to_categorical(x, num_classes: int | None = None) -> np.ndarray:
    """One-hot rows for the integer labels ``x``: shape ``x.shape + (num_classes,)`` (a
    trailing axis of size 1 is replaced, as in Keras); ``num_classes`` defaults to
    ``max(x) + 1``. Float64 for lists and arrays, float32 for a tensor, as Keras 3 gives."""
    dtype = np.float32 if isinstance(x, Tensor) else np.float64
    labels = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    if labels.dtype.kind not in "iub":
        if not np.all(np.equal(np.mod(labels, 1), 0)):
            raise ValueError("to_categorical takes integer class labels.")
        labels = labels.astype(np.int64)
    if labels.ndim > 1 and labels.shape[-1] == 1:
        labels = labels.reshape(labels.shape[:-1])
    if num_classes is None:
        num_classes = int(labels.max()) + 1 if labels.size else 0
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise ValueError(f"to_categorical: labels must be in [0, {num_classes}), got values from "
                         f"{labels.min()} to {labels.max()}.")
    return np.eye(num_classes, dtype=dtype)[labels]


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0) -> np.ndarray:
    """Sequences of different lengths as one array of shape (count, ``maxlen``): shorter ones
    padded with ``value`` and longer ones cut, at the start (``"pre"``, Keras' default) or
    the end (``"post"``); ``maxlen`` defaults to the longest sequence."""
    if padding not in ("pre", "post") or truncating not in ("pre", "post"):
        raise ValueError(f"pad_sequences: padding and truncating must be 'pre' or 'post', got "
                         f"{padding!r} and {truncating!r}.")
    rows = [np.asarray(row) for row in sequences]
    if maxlen is None:
        maxlen = max((len(row) for row in rows), default=0)
    inner = next((row.shape[1:] for row in rows if len(row)), ())
    result = np.full((len(rows), maxlen) + inner, value, dtype=dtype)
    for index, row in enumerate(rows):
        if not len(row) or not maxlen:
            continue
        kept = row[-maxlen:] if truncating == "pre" else row[:maxlen]
        if padding == "post":
            result[index, :len(kept)] = kept
        else:
            result[index, -len(kept):] = kept
    return result


class PyDataset:
    """The base class of batch sources written in Python: a subclass gives ``__len__`` (the
    number of batches) and ``__getitem__(index)`` (batch ``index``: ``x``, ``(x, y)`` or
    ``(x, y, sample_weight)``), and may override ``on_epoch_end``. ``fit``, ``evaluate`` and
    ``predict`` take it like a dataset, its batches in order; ``workers`` and
    ``use_multiprocessing`` are accepted and change nothing (the batches are made in this
    thread)."""

    def __init__(self, workers=1, use_multiprocessing=False, max_queue_size=10):
        self.workers, self.use_multiprocessing = workers, use_multiprocessing
        self.max_queue_size = max_queue_size

    def __len__(self) -> int:
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (its number of "
                                  f"batches).")

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(index), "
                                  f"returning batch number index.")

    @property
    def num_batches(self) -> int:
        return len(self)

    def on_epoch_end(self) -> None:
        """Called after each pass over all the batches (reshuffle the samples here)."""

    def __iter__(self):
        for index in range(len(self)):
            yield self[index]
        self.on_epoch_end()


Sequence = PyDataset  # its Keras 2 name


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (a norm of 0 divides by 1). NumPy
    arrays give a NumPy array, tensors a tensor (norms floored at a small epsilon)."""
    if isinstance(x, Tensor):
        return _normalized_tensor(x, axis, order)
    x = np.asarray(x)
    norms = np.atleast_1d(np.linalg.norm(x, order, axis))
    norms[norms == 0] = 1
    return x / np.expand_dims(norms, axis)


def _normalized_tensor(x, axis, order):
    if order != 2:
        raise NotImplementedError(f"keras.utils.normalize of a tensor supports order=2 only "
                                  f"here, got order={order!r}; pass a NumPy array for other "
                                  f"orders.")
    return l2_normalize(x, axis=axis)


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """A ``tf.data`` dataset of windows of ``data`` (each ``sequence_length`` steps,
    ``sampling_rate`` apart; windows starting ``sequence_stride`` apart, within
    ``data[start_index:end_index]``), batched, with ``targets[start]`` for the window
    starting at ``start`` when targets are given (the pairs ``(window, target)``)."""
    data = np.asarray(data)
    start_index = 0 if start_index is None else start_index
    end_index = len(data) if end_index is None else end_index
    starts = _window_starts(end_index - start_index, targets, sequence_length, sequence_stride,
                            sampling_rate)
    if shuffle:
        np.random.RandomState(seed).shuffle(starts)
    steps = np.arange(sequence_length) * sampling_rate
    windows = data[start_index:end_index][starts[:, None] + steps]
    elements = windows if targets is None else \
        (windows, np.asarray(targets)[start_index:end_index][starts])
    dataset = Dataset.from_tensor_slices(elements)
    return dataset if batch_size is None else dataset.batch(batch_size)


def _window_starts(length, targets, sequence_length, sequence_stride, sampling_rate):
    windows = length - (sequence_length - 1) * sampling_rate
    if targets is not None:
        windows = min(windows, len(targets))
    if windows <= 0:
        raise ValueError(f"timeseries_dataset_from_array: the data between start_index and "
                         f"end_index ({length} steps) is too short for one window of "
                         f"{sequence_length} steps {sampling_rate} apart.")
    return np.arange(0, windows, sequence_stride)


def clear_session() -> None:
    """``keras.backend.clear_session``: layer names start again from ``dense``."""
    with _base._name_lock:
        _base._name_counts.clear()


__getattr__ = _missing("keras.utils")
