"""Image layers on channels-last batches (batch, height, width, channels): ``Conv2D``,
``MaxPooling2D``, ``AveragePooling2D``, ``GlobalAveragePooling2D``/``GlobalMaxPooling2D`` and
their 1-D global counterparts. The pooling layers also take ``data_format="channels_first"``
(batch, channels, height, width): they move the channels last, pool, and move them back."""

from __future__ import annotations

from runtime.keras import activations
from runtime.keras.layers.base import Layer
from runtime.ops import nn
from runtime.ops.array_ops import cast, expand_dims, transpose
from runtime.ops.reduce_ops import reduce_max, reduce_mean, reduce_sum


def _pair(name: str, value) -> tuple[int, int]:
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)
    if len(value) != 2 or not all(isinstance(v, int) for v in value):
        raise ValueError(f"{name} must be an int or a pair of ints, got {value!r}.")
    return value


def _padding(layer: str, padding: str) -> str:
    if not isinstance(padding, str) or padding.lower() not in ("valid", "same"):
        raise ValueError(f"{layer}: padding must be 'valid' or 'same', got {padding!r}.")
    return padding.upper()


def channels_first(layer: str, data_format) -> bool:
    """Whether ``data_format`` puts the channels first (None is Keras' default, last)."""
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"{layer}: data_format must be 'channels_last' or 'channels_first', "
                         f"got {data_format!r}.")
    return data_format == "channels_first"


def pooled_channels_first(pool, inputs):
    """``pool`` (which takes channels last) applied to channels-first ``inputs``."""
    rank = len(inputs.shape)
    to_last = [0] + list(range(2, rank)) + [1]
    to_first = [0, rank - 1] + list(range(1, rank - 1))
    return transpose(pool(transpose(inputs, to_last)), to_first)


def _channels_last(layer: str, data_format) -> None:
    if data_format not in (None, "channels_last"):
        raise NotImplementedError(f"{layer}: data_format={data_format!r} is not supported yet by "
                                  f"rt.keras (only channels_last, Keras' default).")


class Conv2D(Layer):
    """``activation(conv2d(inputs, kernel) + bias)``; ``kernel`` has shape (kernel height,
    kernel width, input channels, ``filters``)."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), groups=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        layer = type(self).__name__
        _channels_last(layer, data_format)
        if groups != 1:
            raise NotImplementedError(f"{layer}: groups={groups!r} is not supported yet by "
                                      f"rt.keras (only 1, Keras' default).")
        self._kernel_and_bias_options(kernel_initializer, bias_initializer, kernel_regularizer,
                                      bias_regularizer, kernel_constraint, bias_constraint)
        self.filters = int(filters)
        self.kernel_size = self._size(f"{layer} kernel_size", kernel_size)
        self.strides = self._size(f"{layer} strides", strides)
        self.dilation_rate = self._size(f"{layer} dilation_rate", dilation_rate)
        self.padding = _padding(layer, padding)
        self.activation = activations.get(activation)
        self.use_bias = use_bias

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = self.add_weight("kernel", self.kernel_size + (channels, self.filters),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._bias(self.filters)
        self.built = True

    def _channels(self, input_shape) -> int:
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f"{self.name}: the channels (last) dimension of the input must be "
                             f"known to build a {type(self).__name__} layer, got shape "
                             f"{input_shape}.")
        return channels

    def _bias(self, size: int):
        """The bias of ``size`` output channels (None without ``use_bias``)."""
        return self.add_weight("bias", (size,), initializer=self.bias_initializer,
                               regularizer=self.bias_regularizer,
                               constraint=self.bias_constraint) if self.use_bias else None

    _size = staticmethod(_pair)

    def _convolve(self, inputs):
        return nn.conv2d(inputs, self.kernel, self.strides, self.padding,
                         dilations=self.dilation_rate)

    def call(self, inputs):
        if inputs.dtype != self.dtype:
            inputs = cast(inputs, self.dtype)
        x = self._convolve(inputs)
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding.lower(),
                "dilation_rate": self.dilation_rate,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias}


class _Pooling2D(Layer):
    _pool = None

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        name = type(self).__name__
        self.channels_first = channels_first(name, data_format)
        self.pool_size = _pair(f"{name} pool_size", pool_size)
        self.strides = self.pool_size if strides is None else _pair(f"{name} strides", strides)
        self.padding = _padding(name, padding)

    def call(self, inputs):
        if self.channels_first:
            return pooled_channels_first(self._pooled, inputs)
        return self._pooled(inputs)

    def _pooled(self, inputs):
        return type(self)._pool(inputs, self.pool_size, self.strides, self.padding)

    def get_config(self):
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding.lower(),
                "data_format": "channels_first" if self.channels_first else "channels_last"}


class MaxPooling2D(_Pooling2D):
    """The largest value of each ``pool_size`` window (windows ``strides`` apart)."""
    _pool = staticmethod(nn.max_pool2d)


class AveragePooling2D(_Pooling2D):
    """The mean of each ``pool_size`` window (windows ``strides`` apart)."""
    _pool = staticmethod(nn.avg_pool2d)


class _GlobalPooling(Layer):
    _axes: tuple = ()
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.channels_first = channels_first(type(self).__name__, data_format)
        self.keepdims = keepdims

    @property
    def _spatial_axes(self) -> list[int]:
        """The axes pooled over: after the channels when they come first."""
        return [axis + 1 for axis in self._axes] if self.channels_first else list(self._axes)

    def call(self, inputs):
        return type(self)._reduce(inputs, self._spatial_axes, keepdims=self.keepdims)

    def get_config(self):
        return {**super().get_config(), "keepdims": self.keepdims,
                "data_format": "channels_first" if self.channels_first else "channels_last"}


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over height and width: (batch, h, w, c) -> (batch, c)."""
    _axes, _reduce = (1, 2), staticmethod(reduce_mean)


class GlobalMaxPooling2D(_GlobalPooling):
    """The largest value over height and width: (batch, h, w, c) -> (batch, c)."""
    _axes, _reduce = (1, 2), staticmethod(reduce_max)


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over steps: (batch, steps, features) -> (batch, features); with a mask, over
    the real steps only."""
    _axes, _reduce = (1,), staticmethod(reduce_mean)

    def call(self, inputs, mask=None):
        if mask is None:
            return super().call(inputs)
        axis = self._spatial_axes[0]
        weights = expand_dims(cast(mask, inputs.dtype), 1 if self.channels_first else 2)
        return reduce_sum(inputs * weights, axis=axis, keepdims=self.keepdims) / \
            reduce_sum(weights, axis=axis, keepdims=self.keepdims)


class GlobalMaxPooling1D(_GlobalPooling):
    """The largest value over steps: (batch, steps, features) -> (batch, features)."""
    _axes, _reduce = (1,), staticmethod(reduce_max)
