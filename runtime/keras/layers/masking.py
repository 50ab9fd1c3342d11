"""``Masking``: marks the steps of a sequence whose features all equal ``mask_value`` as
padding (for the layers after it, see ``runtime.keras.masks``) and zeroes them."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor
from runtime.ops.math_ops import not_equal
from runtime.ops.reduce_ops import reduce_any


class Masking(Layer):
    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs, mask=None):
        return reduce_any(not_equal(convert_to_tensor(inputs), self.mask_value), axis=-1)

    def call(self, inputs):
        keep = reduce_any(not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        return inputs * cast(keep, inputs.dtype)

    def get_config(self):
        return {**super().get_config(), "mask_value": self.mask_value}
