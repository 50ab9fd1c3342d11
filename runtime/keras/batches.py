"""How ``fit``, ``evaluate`` and ``predict`` cut their data into batches: arrays (or nests of
them) sliced in order or shuffled, or a dataset's own batches; ``class_weight`` turned into
sample weights; and, with ``steps_per_epoch``, one iterator carried from epoch to epoch, as
Keras does (an epoch resumes where the last one stopped)."""

from __future__ import annotations

import warnings

import numpy as np

from runtime import nest
from runtime.ops.array_ops import convert_to_tensor
from runtime.tensor import EagerTensor, Tensor


class Data:
    """Arrays (or nested lists/dicts of them) cut into batches of ``(x, y, sample_weight,
    count)``, or an iterable dataset of ``(x, y)`` or ``(x, y, sample_weight)`` batches."""

    def __init__(self, x, y, batch_size, sample_weight=None):
        self.batch_size = batch_size
        self.dataset = None
        if is_dataset(x):
            if y is not None or sample_weight is not None:
                raise ValueError("y and sample_weight must not be given when x is a dataset of "
                                 "(x, y) or (x, y, sample_weight) batches.")
            self.dataset = x
            return
        if x is None:
            raise ValueError("no input data given (x is None).")
        for name, value in (("x", x), ("y", y), ("sample_weight", sample_weight)):
            _refuse_lists_of_numbers(name, value)
        self.batch_size = batch_size or 32
        self.x = nest.map_structure(_as_array, x)
        self.y = None if y is None else nest.map_structure(_as_array, y)
        self.w = None if sample_weight is None else _as_array(sample_weight)
        sizes = {len(a) for a in nest.flatten((self.x, self.y, self.w)) if a is not None}
        if len(sizes) != 1:
            raise ValueError(f"x, y and sample_weight must have the same number of samples, got "
                             f"sizes {sorted(sizes)}.")
        self.n = sizes.pop()

    def split(self, fraction):
        if not 0 < fraction < 1:
            raise ValueError(f"validation_split must be in (0, 1), got {fraction}.")
        at = int(np.floor(self.n * (1.0 - fraction)))
        parts = []
        for sl in (slice(0, at), slice(at, self.n)):
            part = Data.__new__(Data)
            part.dataset, part.batch_size, part.n = None, self.batch_size, sl.stop - sl.start
            part.x, part.y, part.w = nest.map_structure(
                lambda a: None if a is None else a[sl], (self.x, self.y, self.w))
            parts.append(part)
        return tuple(parts)

    def steps(self):
        if self.dataset is not None:
            try:
                return len(self.dataset)
            except TypeError:
                return None
        return -(-self.n // self.batch_size)

    def batches(self, shuffle, rng):
        if self.dataset is not None:
            for batch in self.dataset:
                if isinstance(batch, (list, tuple)) and len(batch) in (2, 3):
                    xb, yb = batch[0], batch[1]
                    wb = batch[2] if len(batch) == 3 else None
                else:
                    xb, yb, wb = batch, None, None
                yield (as_tensors(xb), None if yb is None else as_tensors(yb),
                       None if wb is None else as_tensors(wb), _batch_count(xb))
            return
        order = rng.permutation(self.n) if shuffle and shuffle != "batch" else None
        plain = all(a is None or isinstance(a, np.ndarray) for a in (self.x, self.y, self.w))
        for start in range(0, self.n, self.batch_size):
            index = slice(start, start + self.batch_size) if order is None else \
                order[start:start + self.batch_size]
            if plain:  # one array each (the usual case): no walk through nested structures
                xb, yb, wb = (None if a is None else EagerTensor(a[index])
                              for a in (self.x, self.y, self.w))
            else:
                xb, yb, wb = nest.map_structure(
                    lambda a: None if a is None else convert_to_tensor(a[index]),
                    (self.x, self.y, self.w))
            yield xb, yb, wb, len(range(self.n)[index]) if order is None else len(index)


def class_weights_of(y, class_weight: dict):
    """The sample weights ``class_weight`` gives a batch of labels, as Keras computes them:
    the class of a sample is its integer label, or the index of the largest value of a one-hot
    (or probability) row; classes missing from ``class_weight`` weigh 1."""
    if not isinstance(class_weight, dict):
        raise TypeError(f"class_weight must be a dict {{class index: weight}}, got "
                        f"{type(class_weight).__name__}.")
    if y is None or len(nest.flatten(y)) != 1:
        raise ValueError("class_weight needs one array of labels y (a model with one output).")
    labels = np.asarray(nest.flatten(y)[0])
    if labels.ndim > 1:
        labels = np.argmax(labels, axis=-1) if labels.shape[-1] > 1 else labels[..., 0]
    labels = np.round(labels).astype(np.int64).reshape(len(labels), -1)[:, 0]
    weights = np.array([float(class_weight.get(int(label), 1.0)) for label in labels],
                       np.float32)
    return convert_to_tensor(weights)


def is_dataset(x) -> bool:
    return x is not None and not isinstance(x, (np.ndarray, Tensor, list, tuple, dict)) \
        and hasattr(x, "__iter__")


def _refuse_lists_of_numbers(name: str, value) -> None:
    # Keras 3 refuses them too: a list stands for one array per input or output of the model.
    if isinstance(value, (list, tuple)) and any(
            isinstance(leaf, (int, float, complex, np.generic)) for leaf in nest.flatten(value)):
        raise ValueError(f"{name} is a Python list (or tuple) of numbers; Keras takes NumPy "
                         f"arrays, tensors or datasets, a list holding one array per input or "
                         f"output of the model. Convert it with np.array({name}).")


def _as_array(value) -> np.ndarray:
    if isinstance(value, Tensor):
        return np.asarray(value.numpy())
    array = np.asarray(value)
    if array.dtype == np.float64:
        array = array.astype(np.float32)  # as Keras converts float64 data to floatx
    return array


def as_tensors(value):
    return nest.map_structure(lambda v: v if isinstance(v, Tensor) else
                              convert_to_tensor(_as_array(v)), value)


def _batch_count(x) -> int:
    leaf = nest.flatten(x)[0]
    return int(leaf.shape[0])


def unpack_validation(validation_data, batch_size):
    if is_dataset(validation_data):
        return validation_data, None, batch_size
    if isinstance(validation_data, (list, tuple)) and len(validation_data) in (2, 3):
        weights = validation_data[2] if len(validation_data) == 3 else None
        return validation_data[0], validation_data[1], batch_size, weights
    raise ValueError("validation_data must be (x_val, y_val), (x_val, y_val, sample_weight) "
                     "or a dataset.")


class Epochs:
    """The batches of each epoch of ``fit``. Without ``steps_per_epoch``, every epoch is one
    pass over the data. With it, one iterator runs on from epoch to epoch, each epoch taking
    ``steps_per_epoch`` batches (a repeated dataset goes on where it stopped); when the data
    has a known number of batches and they are used up, the epoch ends early with Keras'
    warning, and the next epoch starts a new pass."""

    def __init__(self, data: Data, shuffle, rng, steps_per_epoch=None):
        self.data, self.shuffle, self.rng = data, shuffle, rng
        self.steps_per_epoch = steps_per_epoch
        self._iterator, self._seen = None, 0

    def steps(self):
        return self.steps_per_epoch or self.data.steps()

    def epoch(self):
        if not self.steps_per_epoch:
            yield from self.data.batches(self.shuffle, self.rng)
            return
        known = self.data.steps()
        if self._iterator is None:
            self._iterator, self._seen = iter(self.data.batches(self.shuffle, self.rng)), 0
        for _ in range(self.steps_per_epoch):
            batch = next(self._iterator, None) if not known or self._seen < known else None
            if batch is None:
                warnings.warn("Your input ran out of data; interrupting training. Make sure that "
                              "your dataset or generator can generate at least steps_per_epoch "
                              "* epochs batches (use .repeat() on a dataset).", UserWarning,
                              stacklevel=4)
                self._iterator = None
                return
            self._seen += 1
            yield batch
        if known and self._seen >= known:
            self._iterator = None
