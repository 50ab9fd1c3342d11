"""Activations as layers: ``ReLU``, ``LeakyReLU``, ``ELU``, ``Softmax`` (Keras' defaults)."""

from __future__ import annotations

import numpy as np

from runtime.keras import activations
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor


class ReLU(Layer):
    supports_masking = True

    """``max(x, 0)``, capped at ``max_value``, with ``negative_slope * (x - threshold)``
    below ``threshold``."""

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        return {**super().get_config(), "max_value": self.max_value,
                "negative_slope": self.negative_slope, "threshold": self.threshold}


class LeakyReLU(Layer):
    supports_masking = True

    """``x`` above 0, ``negative_slope * x`` below (Keras 3's default slope: 0.3)."""

    def __init__(self, negative_slope=0.3, **kwargs):
        super().__init__(**kwargs)
        self.negative_slope = negative_slope

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(Layer):
    supports_masking = True

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self):
        return {**super().get_config(), "alpha": self.alpha}


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs, mask=None):
        """With a ``mask``, masked positions get a large negative score before the softmax,
        so they take no share, and an output of 0 after it (a row masked entirely is all
        zeros), as in Keras."""
        if mask is None:
            return activations.softmax(inputs, axis=self.axis)
        inputs = convert_to_tensor(inputs)
        keep = cast(convert_to_tensor(mask), inputs.dtype)
        scores = inputs + (1.0 - keep) * _large_negative(inputs.dtype)
        return activations.softmax(scores, axis=self.axis) * keep

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


def _large_negative(dtype) -> float:
    """A score that ``exp`` takes to 0 but that does not overflow ``dtype`` (Keras' values)."""
    return -3e4 if np.dtype(dtype) == np.float16 else -1e9
