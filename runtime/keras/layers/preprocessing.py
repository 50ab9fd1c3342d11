"""Preprocessing layers for numbers: ``Discretization`` (the bin of each value) and
``Normalization``: ``(x - mean) / sqrt(variance)`` per feature, with the mean and variance
given or learned from data by ``adapt`` (Keras' preprocessing layer for tabular inputs).
``adapt`` of an iterable of batches computes the statistics of all batches together.

``axis`` names the axes that keep their own statistics (the last one by default; ``None``: one
mean and variance for everything). Adapted statistics are non-trainable weights ``mean``,
``variance`` and ``count``, so ``get_weights`` and saving carry them."""

from __future__ import annotations

import numpy as np

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor, reshape, shape as shape_of
from runtime.ops.math_ops import maximum, sqrt
from runtime.ops.sort_ops import searchsorted
from runtime.tensor import Tensor

EPSILON = 1e-7


class Normalization(Layer):
    supports_masking = True

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if (mean is None) != (variance is None):
            raise ValueError("Normalization: give both mean and variance, or neither (and call "
                             "adapt).")
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean, self.input_variance, self.invert = mean, variance, invert
        self._broadcast_shape = None

    def build(self, input_shape):
        rank = len(input_shape)
        keep = sorted(a % rank for a in self.axis)
        if any(input_shape[a] is None for a in keep):
            raise ValueError(f"{self.name}: the axes {self.axis} keep their own statistics, so "
                             f"their sizes must be known; got shape {input_shape}.")
        self._reduce_axes = tuple(a for a in range(rank) if a not in keep)
        self._broadcast_shape = [input_shape[a] if a in keep else 1 for a in range(rank)]
        shape = tuple(input_shape[a] for a in keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight("mean", shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight("variance", shape, initializer="ones",
                                                  trainable=False)
            self.count = self.add_weight("count", (), dtype="int64", initializer="zeros",
                                         trainable=False)
        self.built = True

    def adapt(self, data) -> None:
        """Sets the mean and variance from ``data``: an array, a tensor, or an iterable of
        batches (a dataset; of ``(x, y)`` pairs, only ``x`` is used)."""
        if isinstance(data, (np.ndarray, Tensor)) or np.isscalar(data):
            batches = [np.asarray(data.numpy() if isinstance(data, Tensor) else data)]
        else:
            batches = [np.asarray(b[0] if isinstance(b, (tuple, list)) else b) for b in data]
            if not batches:
                raise ValueError(f"{self.name}.adapt received no batches.")
        values = np.concatenate(batches, axis=0).astype(self.dtype, copy=False)
        if not self.built:
            self.build((None,) + values.shape[1:] if values.ndim else ())
        if self.input_mean is not None:
            raise ValueError(f"{self.name} was given its mean and variance; adapt would replace "
                             f"them. Make the layer without mean= and variance= to adapt it.")
        self.adapt_mean.assign(np.mean(values, axis=self._reduce_axes).astype(self.dtype))
        self.adapt_variance.assign(np.var(values, axis=self._reduce_axes).astype(self.dtype))
        # ``count`` stays as it is: Keras 3 keeps the weight but does not update it.

    def _statistics(self):
        if self.input_mean is not None:
            mean = np.broadcast_to(np.asarray(self.input_mean, self.dtype),
                                   self._broadcast_shape) if np.ndim(self.input_mean) == 0 \
                else np.reshape(np.asarray(self.input_mean, self.dtype), self._broadcast_shape)
            variance = np.broadcast_to(np.asarray(self.input_variance, self.dtype),
                                       self._broadcast_shape) \
                if np.ndim(self.input_variance) == 0 else \
                np.reshape(np.asarray(self.input_variance, self.dtype), self._broadcast_shape)
            return convert_to_tensor(np.array(mean)), convert_to_tensor(np.array(variance))
        return (reshape(self.adapt_mean, self._broadcast_shape),
                reshape(self.adapt_variance, self._broadcast_shape))

    @property
    def mean(self) -> Tensor:
        """The mean it subtracts, shaped to broadcast against inputs (Keras 3's attribute)."""
        return self._built_statistics("mean")[0]

    @property
    def variance(self) -> Tensor:
        return self._built_statistics("variance")[1]

    def _built_statistics(self, what: str):
        if self._broadcast_shape is None:
            raise AttributeError(f"{self.name} has no {what} yet: adapt it to data, or build it "
                                 f"(call it on a batch), first.")
        return self._statistics()

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype != self.dtype:
            inputs = cast(inputs, self.dtype)
        mean, variance = self._statistics()
        scale = maximum(sqrt(variance), EPSILON)
        return mean + inputs * scale if self.invert else (inputs - mean) / scale

    def get_config(self):
        return {**super().get_config(), "axis": self.axis[0] if len(self.axis) == 1 else
                (list(self.axis) or None), "invert": self.invert,
                "mean": None if self.input_mean is None else np.asarray(self.input_mean).tolist(),
                "variance": None if self.input_variance is None else
                np.asarray(self.input_variance).tolist()}


class Discretization(Layer):
    """Each value replaced by the index of its bin (int32, as Keras 3 gives): bin ``i`` holds
    the values from ``bin_boundaries[i - 1]`` (included) up to ``bin_boundaries[i]``, as
    ``numpy.digitize`` counts them. Only given boundaries and ``output_mode="int"`` are
    supported yet."""

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, **kwargs):
        super().__init__(**kwargs)
        if bin_boundaries is None:
            raise NotImplementedError("Discretization: learning the bins with adapt (num_bins=) "
                                      "is not supported yet; give bin_boundaries.")
        if output_mode != "int" or sparse:
            raise NotImplementedError(f"Discretization: output_mode={output_mode!r} (sparse="
                                      f"{sparse}) is not supported yet; only 'int' is.")
        self.bin_boundaries = [float(b) for b in bin_boundaries]
        if sorted(self.bin_boundaries) != self.bin_boundaries:
            raise ValueError(f"Discretization: bin_boundaries must be sorted, got "
                             f"{self.bin_boundaries}.")

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        flat = reshape(cast(inputs, "float64"), [-1])
        bins = searchsorted(np.asarray(self.bin_boundaries, np.float64), flat, side="right",
                            out_type="int32")
        return reshape(bins, shape_of(inputs))

    def get_config(self):
        return {**super().get_config(), "bin_boundaries": self.bin_boundaries,
                "output_mode": "int"}
