"""``TimeDistributed``: one layer applied to every step of a sequence, with the same weights.
The steps are folded into the batch, (batch, steps, ...) -> (batch * steps, ...), the layer
called once on that, and the result unfolded again."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import concat, convert_to_tensor, reshape, shape as shape_of


class TimeDistributed(Layer):
    supports_masking = True

    def __init__(self, layer, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Layer):
            raise TypeError(f"TimeDistributed wraps a layer, got {type(layer).__name__}.")
        self.layer = layer

    def call(self, inputs, training=None):
        inputs = convert_to_tensor(inputs)
        if inputs.shape is None or len(inputs.shape) < 3:
            raise ValueError(f"{self.name}: TimeDistributed needs inputs of shape (batch, steps, "
                             f"...), got {inputs.shape}.")
        inner = tuple(inputs.shape[2:])
        if None in inner:
            raise ValueError(f"{self.name}: the dimensions after the steps must be known, got "
                             f"{inputs.shape}.")
        folded = reshape(inputs, (-1,) + inner)
        outputs = self.layer(folded, training=training) if self.layer._call_takes_training \
            else self.layer(folded)
        steps = inputs.shape[1]
        tail = outputs.shape[1:] if outputs.shape is not None else None
        if steps is not None and tail is not None and None not in tail:  # a static shape
            return reshape(outputs, (-1, steps) + tuple(tail))
        return reshape(outputs, concat([shape_of(inputs)[:2], shape_of(outputs)[1:]], axis=0))

    def get_config(self):
        raise NotImplementedError(f"{self.name}: model.save does not store TimeDistributed "
                                  f"layers yet; save the weights with save_weights.")
