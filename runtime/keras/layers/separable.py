"""``DepthwiseConv2D`` (each input channel convolved with its own ``depth_multiplier``
filters) and ``SeparableConv2D`` (that, then a 1x1 convolution mixing the channels), on
``rt.nn.depthwise_conv2d`` and ``rt.nn.conv2d``; Keras 3's weights, in its order."""

from __future__ import annotations

from runtime.keras import constraints, initializers, regularizers
from runtime.keras.layers.convolutional import Conv2D
from runtime.ops import nn


class DepthwiseConv2D(Conv2D):
    """``activation(depthwise_conv2d(inputs, kernel) + bias)``; ``kernel`` has shape (kernel
    height, kernel width, input channels, ``depth_multiplier``)."""

    def __init__(self, kernel_size, strides=(1, 1), padding="valid", depth_multiplier=1,
                 depthwise_initializer="glorot_uniform", depthwise_regularizer=None,
                 depthwise_constraint=None, **kwargs):
        """``kwargs``: ``Conv2D``'s other arguments (``data_format``, ``dilation_rate``,
        ``activation``, ``use_bias``, the bias' and the activity's settings, ``name``)."""
        super().__init__(depth_multiplier, kernel_size, strides=strides, padding=padding,
                         **_depthwise_kernel(depthwise_initializer, depthwise_regularizer,
                                             depthwise_constraint), **kwargs)
        self.depth_multiplier = int(depth_multiplier)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.kernel = self.add_weight("kernel",
                                      self.kernel_size + (channels, self.depth_multiplier),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self._bias(channels * self.depth_multiplier)
        self.built = True

    def _convolve(self, inputs):
        return nn.depthwise_conv2d(inputs, self.kernel, (1,) + self.strides + (1,),
                                   self.padding, dilations=self.dilation_rate)

    def get_config(self):
        config = super().get_config()
        del config["filters"]
        return {**config, "depth_multiplier": self.depth_multiplier}


class SeparableConv2D(Conv2D):
    """``activation(conv2d(depthwise_conv2d(inputs, depthwise_kernel), pointwise_kernel) +
    bias)``: the depthwise step has the strides and dilation, the pointwise one is 1x1."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None,
                 dilation_rate=(1, 1), depth_multiplier=1, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", depthwise_regularizer=None,
                 pointwise_regularizer=None, depthwise_constraint=None, pointwise_constraint=None,
                 **kwargs):
        """``kwargs``: ``Conv2D``'s other arguments (``activation``, ``use_bias``, the bias'
        and the activity's settings, ``name``)."""
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         **_depthwise_kernel(depthwise_initializer, depthwise_regularizer,
                                             depthwise_constraint), **kwargs)
        self.depth_multiplier = int(depth_multiplier)
        self.pointwise_initializer = initializers.get(pointwise_initializer)
        self.pointwise_regularizer = regularizers.get(pointwise_regularizer)
        self.pointwise_constraint = constraints.get(pointwise_constraint)

    def build(self, input_shape):
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", self.kernel_size + (channels, self.depth_multiplier),
            initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel", (1, 1, channels * self.depth_multiplier, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint)
        self.bias = self._bias(self.filters)
        self.built = True

    def _convolve(self, inputs):
        depthwise = nn.depthwise_conv2d(inputs, self.depthwise_kernel,
                                        (1,) + self.strides + (1,), self.padding,
                                        dilations=self.dilation_rate)
        return nn.conv2d(depthwise, self.pointwise_kernel, 1, "VALID")

    def get_config(self):
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier}


def _depthwise_kernel(initializer, regularizer, constraint) -> dict:
    """``Conv2D``'s arguments for its kernel, given as the depthwise kernel's."""
    return {"kernel_initializer": initializer, "kernel_regularizer": regularizer,
            "kernel_constraint": constraint}
