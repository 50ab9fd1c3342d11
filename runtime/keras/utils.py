"""``keras.utils``: ``set_random_seed``, ``to_categorical``, ``pad_sequences``, ``PyDataset``,
``pack_x_y_sample_weight`` and ``unpack_x_y_sample_weight``."""

from __future__ import annotations

import random

import numpy as np

from runtime.keras.custom_step import (pack_x_y_sample_weight,  # noqa: F401  (Keras' names)
                                       unpack_x_y_sample_weight)
from runtime.keras.layers import base as _base
from runtime.keras.missing import missing as _missing
from runtime.ops import random_ops
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


def clear_session() -> None:
    """``keras.backend.clear_session``: layer names start again from ``dense``."""
    with _base._name_lock:
        _base._name_counts.clear()


__getattr__ = _missing("keras.utils")
