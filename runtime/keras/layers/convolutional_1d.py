"""Layers on sequences, channels last (batch, steps, channels): ``Conv1D``, ``MaxPooling1D``
and ``AveragePooling1D``. Each runs as its 2-D counterpart over a height of one."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.keras.layers.convolutional import Conv2D, _channels_last, _padding
from runtime.ops import nn
from runtime.ops.array_ops import expand_dims, squeeze


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
        if isinstance(padding, str) and padding.lower() == "causal":
            raise NotImplementedError("Conv1D: padding='causal' is not supported yet by rt.keras "
                                      "(pad the sequence on the left with ZeroPadding1D-like "
                                      "rt.pad and use 'valid').")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, groups=groups,
                         activation=activation, use_bias=use_bias, **kwargs)

    _size = staticmethod(_single)

    def _convolve(self, inputs):
        return nn.conv1d(inputs, self.kernel, self.strides[0], self.padding,
                         dilations=self.dilation_rate[0])


class _Pooling1D(Layer):
    _pool = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        _channels_last(name, data_format)
        self.pool_size = _single(f"{name} pool_size", pool_size)
        self.strides = self.pool_size if strides is None else _single(f"{name} strides", strides)
        self.padding = _padding(name, padding)

    def call(self, inputs):
        pooled = type(self)._pool(expand_dims(inputs, 1), (1,) + self.pool_size,
                                  (1,) + self.strides, self.padding)
        return squeeze(pooled, 1)

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding.lower()}


class MaxPooling1D(_Pooling1D):
    """The largest value of each window of ``pool_size`` steps (windows ``strides`` apart)."""
    _pool = staticmethod(nn.max_pool2d)


class AveragePooling1D(_Pooling1D):
    """The mean of each window of ``pool_size`` steps (padding not counted)."""
    _pool = staticmethod(nn.avg_pool2d)
