"""Layers on sequences, channels last (batch, steps, channels): ``Conv1D``, ``MaxPooling1D``
and ``AveragePooling1D``. Each runs as its 2-D counterpart over a height of one."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.keras.layers.convolutional import (Conv2D, channels_first, pooled_channels_first,
                                                _padding)
from runtime.ops import nn
from runtime.ops.array_ops import expand_dims, squeeze
from runtime.ops.pad_ops import pad


def _single(name: str, value) -> tuple[int]:
    values = (value,) if isinstance(value, int) else tuple(value)
    if len(values) != 1 or not isinstance(values[0], int):
        raise ValueError(f"{name} must be an int or a tuple of one int, got {value!r}.")
    return values


class Conv1D(Conv2D):
    """``activation(conv1d(inputs, kernel) + bias)``; ``kernel`` has shape (kernel size,
    input channels, ``filters``)."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None,
                 dilation_rate=1, groups=1, activation=None, use_bias=True, **kwargs):
        # 'causal': step t sees steps up to t only, by zeros before the first step as many
        # as the dilated kernel reaches back, then a 'valid' convolution.
        self.causal = isinstance(padding, str) and padding.lower() == "causal"
        super().__init__(filters, kernel_size, strides=strides,
                         padding="valid" if self.causal else padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias, **kwargs)

    _size = staticmethod(_single)

    def _convolve(self, inputs):
        if self.causal:
            reach = self.dilation_rate[0] * (self.kernel_size[0] - 1)
            inputs = pad(inputs, [[0, 0], [reach, 0], [0, 0]])
        return nn.conv1d(inputs, self.kernel, self.strides[0], self.padding,
                         dilations=self.dilation_rate[0])

    def get_config(self):
        config = super().get_config()
        return {**config, "padding": "causal"} if self.causal else config


class _Pooling1D(Layer):
    _pool = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        self.channels_first = channels_first(name, data_format)
        self.pool_size = _single(f"{name} pool_size", pool_size)
        self.strides = self.pool_size if strides is None else _single(f"{name} strides", strides)
        self.padding = _padding(name, padding)

    def call(self, inputs):
        if self.channels_first:
            return pooled_channels_first(self._pooled, inputs)
        return self._pooled(inputs)

    def _pooled(self, inputs):
        pooled = type(self)._pool(expand_dims(inputs, 1), (1,) + self.pool_size,
                                  (1,) + self.strides, self.padding)
        return squeeze(pooled, 1)

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding.lower(),
                "data_format": "channels_first" if self.channels_first else "channels_last"}


class MaxPooling1D(_Pooling1D):
    """The largest value of each window of ``pool_size`` steps (windows ``strides`` apart)."""
    _pool = staticmethod(nn.max_pool2d)


class AveragePooling1D(_Pooling1D):
    """The mean of each window of ``pool_size`` steps (padding not counted)."""
    _pool = staticmethod(nn.avg_pool2d)
