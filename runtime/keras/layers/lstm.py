"""``LSTM``, Keras' formulas and gate order (input, forget, cell, output):

    z = x_t @ kernel + h @ recurrent_kernel + bias          (4 blocks of units columns)
    i, f, o = recurrent_activation(z_i), recurrent_activation(z_f), recurrent_activation(z_o)
    c = f * c + i * activation(z_c)
    h = o * activation(c)

States: ``[h, c]`` (``return_state=True`` returns ``[output, h, c]``). With
``unit_forget_bias=True`` (the default) the forget block of the bias starts at one.
"""

from __future__ import annotations

import numpy as np

from runtime.keras.layers.recurrent import Recurrent
from runtime.ops.layout_ops import split
from runtime.ops.linalg_ops import matmul


class LSTM(Recurrent):
    """Long short-term memory over (batch, steps, features) sequences."""

    gates = 4
    state_count = 2

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid",
                 use_bias=True, unit_forget_bias=True, implementation=2, **kwargs):
        super().__init__(units, activation=activation,
                         recurrent_activation=recurrent_activation, use_bias=use_bias, **kwargs)
        self.unit_forget_bias = unit_forget_bias

    def bias_values(self, shape, dtype=None):
        values = np.array(self.bias_initializer(shape, dtype=dtype))
        if self.unit_forget_bias:
            values[self.units:2 * self.units] = 1
        return values

    def step(self, projected, states):
        h, c = states
        z = projected + matmul(h, self.recurrent_kernel)  # Keras adds in this order
        if self.bias is not None:
            z = z + self.bias
        z_i, z_f, z_c, z_o = split(z, 4, axis=-1)
        i = self.recurrent_activation(z_i)
        f = self.recurrent_activation(z_f)
        c = f * c + i * self.activation(z_c)
        h = self.recurrent_activation(z_o) * self.activation(c)
        return h, c

    def get_config(self):
        return {**super().get_config(), "unit_forget_bias": self.unit_forget_bias}
