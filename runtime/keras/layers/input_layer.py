"""``rt.keras.layers.InputLayer``: the layer a functional model lists for each ``Input``
(Keras 3's ``model.layers`` starts with them). It has no weights and passes its input on."""

from __future__ import annotations

from runtime.keras.layers.base import Layer, unique_name


class InputLayer(Layer):
    def __init__(self, shape=None, batch_size=None, dtype=None, batch_shape=None, name=None,
                 **kwargs):
        super().__init__(name=name or unique_name("input_layer"), dtype=dtype, **kwargs)
        if batch_shape is None and shape is not None:
            batch_shape = (batch_size,) + tuple(shape)
        self.batch_shape = None if batch_shape is None else tuple(batch_shape)
        self.built = True

    def call(self, inputs):
        return inputs

    def get_config(self) -> dict:
        return {**super().get_config(), "batch_shape": self.batch_shape}
