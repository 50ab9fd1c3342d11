"""``SimpleRNN``: ``h_t = activation(x_t @ kernel + bias + h_{t-1} @ recurrent_kernel)``."""

from __future__ import annotations

from runtime.keras.layers.recurrent import Recurrent
from runtime.ops.linalg_ops import matmul


class SimpleRNN(Recurrent):
    """A fully connected recurrent layer whose output is its state."""

    def __init__(self, units, activation="tanh", use_bias=True, **kwargs):
        super().__init__(units, activation=activation, use_bias=use_bias, **kwargs)

    def project(self, inputs):
        projected = super().project(inputs)
        return projected + self.bias if self.bias is not None else projected  # Keras' order

    def step(self, projected, states):
        (h,) = states
        return (self.activation(projected + matmul(h, self.recurrent_kernel)),)

    def get_config(self):
        config = super().get_config()
        del config["recurrent_activation"]
        return config
