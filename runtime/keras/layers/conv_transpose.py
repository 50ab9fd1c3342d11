"""``Conv2DTranspose``: the convolution whose forward pass is a ``Conv2D``'s gradient with
respect to its input (a "deconvolution"), which upsamples by ``strides``: (batch, h, w, c) ->
(batch, (h - 1) * stride + kernel, ...) with ``padding="valid"``, (batch, h * stride, ...)
with ``"same"``. ``kernel`` has shape (kernel height, kernel width, ``filters``, input
channels), as in Keras."""

from __future__ import annotations

from runtime.keras.layers.convolutional import Conv2D
from runtime.ops.array_ops import zeros, zeros_like
from runtime.ops.conv_ops import CONV2D_BACKPROP_INPUT
from runtime.ops.dispatch import apply_op


class Conv2DTranspose(Conv2D):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), **kwargs):
        if output_padding is not None:
            raise NotImplementedError("Conv2DTranspose: output_padding is not supported yet by "
                                      "rt.keras.")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)
        if self.dilation_rate != (1, 1):
            raise NotImplementedError("Conv2DTranspose: dilation_rate is not supported yet by "
                                      "rt.keras.")

    def build(self, input_shape):
        channels = input_shape[-1]
        if channels is None:
            raise ValueError(f"{self.name}: the channels (last) dimension of the input must be "
                             f"known to build a Conv2DTranspose layer, got shape "
                             f"{input_shape}.")
        self.kernel = self.add_weight("kernel", self.kernel_size + (self.filters, channels),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", (self.filters,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def _output_size(self, size: int, axis: int) -> int:
        if self.padding == "SAME":
            return size * self.strides[axis]
        return (size - 1) * self.strides[axis] + self.kernel_size[axis]

    def _convolve(self, inputs):
        height, width = inputs.shape[1], inputs.shape[2]
        if height is None or width is None:
            raise ValueError(f"{self.name}: Conv2DTranspose needs the input's height and width "
                             f"known, got shape {inputs.shape}.")
        # A tensor of the output's shape (only its shape is read), batch taken from the input.
        shaped = zeros_like(inputs[:, :1, :1, :1]) + zeros(
            (self._output_size(height, 0), self._output_size(width, 1), self.filters),
            inputs.dtype)
        return apply_op(CONV2D_BACKPROP_INPUT, (shaped, self.kernel, inputs),
                        {"strides": self.strides, "dilations": (1, 1), "padding": self.padding})
