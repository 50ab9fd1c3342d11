"""``GRU``, Keras' formulas and gate order (update z, reset r, candidate):

    x_z, x_r, x_h = split(x_t @ kernel + input_bias)
    reset_after=True (the default; bias of shape (2, 3 * units): input, recurrent):
        i_z, i_r, i_h = split(h @ recurrent_kernel + recurrent_bias)
        z, r = recurrent_activation(x_z + i_z), recurrent_activation(x_r + i_r)
        candidate = activation(x_h + r * i_h)
    reset_after=False (bias of shape (3 * units,)):
        z, r from h @ recurrent_kernel[:, :2 units]
        candidate = activation(x_h + (r * h) @ recurrent_kernel[:, 2 units:])
    h = z * h + (1 - z) * candidate
"""

from __future__ import annotations

from runtime.keras.layers.recurrent import Recurrent
from runtime.ops.layout_ops import split
from runtime.ops.linalg_ops import matmul


class GRU(Recurrent):
    """Gated recurrent unit over (batch, steps, features) sequences."""

    gates = 3

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, reset_after=True, implementation=2, **kwargs):
        super().__init__(units, activation=activation,
                         recurrent_activation=recurrent_activation, use_bias=use_bias, **kwargs)
        self.reset_after = reset_after

    def bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def project(self, inputs):
        projected = super().project(inputs)
        if self.bias is None:
            return projected
        return projected + (self.bias[0] if self.reset_after else self.bias)

    def step(self, projected, states):
        (h,) = states
        units = self.units
        x_z, x_r, x_h = split(projected, 3, axis=-1)
        if self.reset_after:
            inner = matmul(h, self.recurrent_kernel)
            if self.bias is not None:
                inner = inner + self.bias[1]
            i_z, i_r, i_h = split(inner, 3, axis=-1)
        else:
            i_z, i_r = split(matmul(h, self.recurrent_kernel[:, :2 * units]), 2, axis=-1)
        z = self.recurrent_activation(x_z + i_z)
        r = self.recurrent_activation(x_r + i_r)
        if self.reset_after:
            candidate = self.activation(x_h + r * i_h)
        else:
            candidate = self.activation(x_h + matmul(r * h, self.recurrent_kernel[:, 2 * units:]))
        return (z * h + (1.0 - z) * candidate,)

    def get_config(self):
        return {**super().get_config(), "reset_after": self.reset_after}
