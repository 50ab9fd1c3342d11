"""Layers that move values around: ``RepeatVector`` (batch, n) -> (batch, times, n) and
``Permute`` (reorders the axes after the batch; ``dims`` counts from 1)."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import expand_dims, transpose
from runtime.ops.layout_ops import tile


class RepeatVector(Layer):
    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs):
        return tile(expand_dims(inputs, 1), [1, self.n, 1])

    def get_config(self):
        return {**super().get_config(), "n": self.n}


class Permute(Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Permute: dims must be a permutation of 1..{len(self.dims)} (the "
                             f"axes after the batch), got {self.dims}.")

    def call(self, inputs):
        return transpose(inputs, [0] + list(self.dims))

    def get_config(self):
        return {**super().get_config(), "dims": self.dims}
