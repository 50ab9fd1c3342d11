"""Keras' ``EinsumDense``: a dense layer whose product is an einsum equation
(``"abc,cd->abd"``), so a kernel can map several input axes to several output axes; the
kernel's shape follows from the equation, the input's shape and ``output_shape``, and
``bias_axes`` names the output axes that get a bias (Keras 3's rules)."""

from __future__ import annotations

import re

from runtime.keras import activations
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor
from runtime.ops.einsum_ops import einsum

_EQUATION = re.compile(r"(\.\.\.)?([a-zA-Z]+),([a-zA-Z]+)->(\.\.\.)?([a-zA-Z]+)\Z")


def _shapes(layer: str, equation: str, input_shape: tuple, output_shape: tuple,
            bias_axes: str | None) -> tuple[tuple, tuple | None]:
    """The kernel's and the bias's shapes. The output's axes are the batch's, then (after
    a leading ``...``) the input's elided ones, then ``output_shape``'s."""
    match = _EQUATION.match(equation.replace(" ", ""))
    if not match or bool(match.group(1)) != bool(match.group(4)):
        raise ValueError(f"{layer}: equation must be 'ab,bc->ac' or '...b,bc->...c' (letters, "
                         f"'...' leading both the input and the output or neither), got "
                         f"{equation!r}.")
    _, input_spec, weight_spec, elided_output, output_spec = match.groups()
    elided = len(input_shape) - len(input_spec) if elided_output else 0
    full_output = list(input_shape[:max(elided, 1)]) + list(output_shape)
    if len(full_output) != elided + len(output_spec):
        raise ValueError(f"{layer}: output_shape {tuple(output_shape)} must give the output's "
                         f"axes after the batch{' and the elided axes' if elided else ''} "
                         f"({output_spec!r}).")
    input_axis = {letter: elided + i for i, letter in enumerate(input_spec)}
    output_axis = {letter: elided + i for i, letter in enumerate(output_spec)}
    kernel = []
    for letter in weight_spec:
        if letter in input_axis:
            kernel.append(input_shape[input_axis[letter]])
        elif letter in output_axis:
            kernel.append(full_output[output_axis[letter]])
        else:
            raise ValueError(f"{layer}: the kernel's axis {letter!r} is in neither the input "
                             f"{input_spec!r} nor the output {output_spec!r} of {equation!r}.")
    if None in kernel:
        raise ValueError(f"{layer}: the input's axes the kernel spans must be known, got input "
                         f"shape {tuple(input_shape)}.")
    if not bias_axes:
        return tuple(kernel), None
    if set(bias_axes) - set(output_spec):
        raise ValueError(f"{layer}: bias_axes {bias_axes!r} must be output axes of {equation!r}.")
    first = min(output_spec.index(letter) for letter in bias_axes)
    bias = tuple(full_output[output_axis[letter]] if letter in bias_axes else 1
                 for letter in output_spec[first:])
    return tuple(kernel), bias


class EinsumDense(Layer):
    """``activation(einsum(equation, inputs, kernel) + bias)``; ``output_shape`` is the
    output's shape without the batch (and without the axes a leading ``...`` keeps)."""

    def __init__(self, equation, output_shape, activation=None, bias_axes=None,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, lora_rank=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if lora_rank:
            raise NotImplementedError("EinsumDense: lora_rank is not supported yet by rt.keras; "
                                      "leave it None.")
        self.equation, self.bias_axes = equation, bias_axes
        self.partial_output_shape = (output_shape,) if isinstance(output_shape, int) \
            else tuple(output_shape)
        self.activation = activations.get(activation)
        self._kernel_and_bias_options(kernel_initializer, bias_initializer, kernel_regularizer,
                                      bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape):
        kernel_shape, bias_shape = _shapes(self.name, self.equation, tuple(input_shape),
                                           self.partial_output_shape, self.bias_axes)
        self.kernel = self.add_weight("kernel", kernel_shape, initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = None if bias_shape is None else self.add_weight(
            "bias", bias_shape, initializer=self.bias_initializer,
            regularizer=self.bias_regularizer, constraint=self.bias_constraint)
        self.built = True

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype != self.kernel.dtype:
            inputs = cast(inputs, self.kernel.dtype)
        x = einsum(self.equation, inputs, self.kernel)
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def get_config(self):
        return {**super().get_config(), "equation": self.equation,
                "output_shape": self.partial_output_shape, "bias_axes": self.bias_axes,
                "activation": activations.serialize(self.activation)}
