"""Small layers of one formula each: ``Identity``, ``Rescaling`` (``x * scale + offset``),
``ActivityRegularization`` (adds an L1/L2 penalty of its input to the loss), ``PReLU``
(a learned slope below zero), ``UnitNormalization`` (rows of unit L2 norm), and the noise
layers ``GaussianNoise``, ``GaussianDropout``, ``SpatialDropout1D``/``2D``, which change their
input only in training."""

from __future__ import annotations

import math

from runtime.keras import initializers, regularizers
from runtime.keras.layers.base import Layer
from runtime.ops import nn
from runtime.ops.array_ops import cast, convert_to_tensor, shape as shape_of, stack
from runtime.ops.math_ops import minimum, sqrt, square
from runtime.ops.random_ops import normal
from runtime.ops.reduce_ops import reduce_sum


class Identity(Layer):
    supports_masking = True

    def call(self, inputs):
        return inputs


class Rescaling(Layer):
    supports_masking = True

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype != self.dtype:
            inputs = cast(inputs, self.dtype)
        return inputs * cast(convert_to_tensor(self.scale), self.dtype) + \
            cast(convert_to_tensor(self.offset), self.dtype)

    def get_config(self):
        return {**super().get_config(), "scale": self.scale, "offset": self.offset}


class ActivityRegularization(Layer):
    supports_masking = True

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs):
        return inputs

    def get_config(self):
        config = super().get_config()
        config.pop("activity_regularizer", None)
        return {**config, "l1": self.l1, "l2": self.l2}


class PReLU(Layer):
    """``x`` above zero, ``alpha * x`` below, ``alpha`` learned per feature (``shared_axes``
    share it along those axes)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None,
                 shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        if alpha_constraint is not None:
            raise NotImplementedError("PReLU: alpha_constraint is not supported yet by rt.keras "
                                      "(it would be ignored).")
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.shared_axes = [] if shared_axes is None else \
            [shared_axes] if isinstance(shared_axes, int) else list(shared_axes)

    def build(self, input_shape):
        shape = [1 if axis + 1 in self.shared_axes else size
                 for axis, size in enumerate(input_shape[1:])]
        self.alpha = self.add_weight("alpha", tuple(shape), initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer)
        self.built = True

    def call(self, inputs):
        return nn.relu(inputs) - self.alpha * nn.relu(-inputs)


class UnitNormalization(Layer):
    """Each row divided by its L2 norm over ``axis`` (the inverse norm capped at ``1e12``,
    as Keras' ``normalize`` does)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        squared = reduce_sum(square(inputs), axis=self.axis, keepdims=True)
        return inputs * minimum(1.0 / sqrt(squared), 1e12)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class GaussianNoise(Layer):
    """Adds normal noise of ``stddev`` in training."""
    supports_masking = True

    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.seed = float(stddev), seed

    def call(self, inputs, training=None):
        if not training or self.stddev == 0:
            return inputs
        return inputs + normal(shape_of(inputs), 0.0, self.stddev, dtype=inputs.dtype,
                               seed=self.seed)


class GaussianDropout(Layer):
    """Multiplies by normal noise of mean 1 and variance ``rate / (1 - rate)`` in training."""
    supports_masking = True

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.seed = float(rate), seed

    def call(self, inputs, training=None):
        if not training or not 0 < self.rate < 1:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return inputs * normal(shape_of(inputs), 1.0, stddev, dtype=inputs.dtype,
                               seed=self.seed)


class _SpatialDropout(Layer):
    """Dropout of whole feature maps: one draw per sample and channel."""

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.seed = float(rate), seed

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        dims = shape_of(inputs)
        ones = [dims[0]] + [1] * (inputs.ndim - 2) + [dims[-1]]
        return nn.dropout(inputs, self.rate, noise_shape=stack(ones), seed=self.seed)


class SpatialDropout1D(_SpatialDropout):
    pass


class SpatialDropout2D(_SpatialDropout):
    pass


__all__ = ["ActivityRegularization", "GaussianDropout", "GaussianNoise", "Identity", "PReLU",
           "Rescaling", "SpatialDropout1D", "SpatialDropout2D", "UnitNormalization"]
