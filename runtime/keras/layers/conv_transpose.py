"""``Conv2DTranspose`` and ``Conv1DTranspose``: the convolutions whose forward pass is a
``Conv2D``'s (``Conv1D``'s) gradient with respect to its input (a "deconvolution"), which
upsamples by ``strides``: (batch, h, w, c) -> (batch, (h - 1) * stride + kernel, ...) with
``padding="valid"``, (batch, h * stride, ...) with ``"same"``. ``kernel`` has shape (kernel
height, kernel width, ``filters``, input channels), as in Keras; ``Conv1DTranspose``'s
(kernel size, ``filters``, input channels) runs as the 2-D one over a height of one."""

from __future__ import annotations

from runtime.keras.layers.convolutional import Conv2D
from runtime.keras.layers.convolutional_1d import _single
from runtime.ops.array_ops import expand_dims, squeeze, zeros, zeros_like
from runtime.ops.conv_ops import CONV2D_BACKPROP_INPUT
from runtime.ops.dispatch import apply_op


class Conv2DTranspose(Conv2D):
    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid",
                 output_padding=None, data_format=None, dilation_rate=(1, 1), **kwargs):
        if output_padding is not None:
            raise NotImplementedError(f"{type(self).__name__}: output_padding is not supported "
                                      f"yet by rt.keras.")
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate, **kwargs)
        if any(rate != 1 for rate in self.dilation_rate):
            raise NotImplementedError(f"{type(self).__name__}: dilation_rate is not supported "
                                      f"yet by rt.keras.")

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
        return self._transposed(inputs, self.kernel, self.strides,
                                (self._output_size(height, 0), self._output_size(width, 1)))

    def _transposed(self, inputs, kernel, strides, sizes):
        """The 2-D transposed convolution to an output of height and width ``sizes``."""
        # A tensor of the output's shape (only its shape is read), batch taken from the input.
        shaped = zeros_like(inputs[:, :1, :1, :1]) + zeros(sizes + (self.filters,), inputs.dtype)
        return apply_op(CONV2D_BACKPROP_INPUT, (shaped, kernel, inputs),
                        {"strides": strides, "dilations": (1, 1), "padding": self.padding})


class Conv1DTranspose(Conv2DTranspose):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None,
                 data_format=None, dilation_rate=1, **kwargs):
        super().__init__(filters, kernel_size, strides=strides, padding=padding,
                         output_padding=output_padding, data_format=data_format,
                         dilation_rate=dilation_rate, **kwargs)

    _size = staticmethod(_single)

    def _convolve(self, inputs):
        steps = inputs.shape[1]
        if steps is None:
            raise ValueError(f"{self.name}: Conv1DTranspose needs the input's number of steps "
                             f"known, got shape {inputs.shape}.")
        wide = self._transposed(expand_dims(inputs, 1), expand_dims(self.kernel, 0),
                                (1,) + self.strides, (1, self._output_size(steps, 0)))
        return squeeze(wide, [1])
