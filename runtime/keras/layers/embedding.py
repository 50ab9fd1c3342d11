"""``Embedding``: integer ids to rows of a trainable table."""

from __future__ import annotations

from runtime.keras import constraints, initializers, regularizers
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor, gather
from runtime.ops.math_ops import not_equal


class Embedding(Layer):
    """Row ``i`` of ``embeddings`` (shape (``input_dim``, ``output_dim``)) for each id ``i``:
    (batch, ...) ids -> (batch, ..., ``output_dim``). Ids that are not integers are cast to
    int32, as in Keras."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 input_length=None, lora_rank=None, **kwargs):
        super().__init__(**kwargs)
        if lora_rank is not None:
            raise NotImplementedError("Embedding: lora_rank is not supported yet by rt.keras (it "
                                      "would be ignored).")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.mask_zero = bool(mask_zero)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)

    def build(self, input_shape=None):
        self.embeddings = self.add_weight("embeddings", (self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint)
        self.built = True

    def call(self, inputs):
        if inputs.dtype.kind not in "iu":
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs)

    def compute_mask(self, inputs, mask=None):
        """With ``mask_zero=True``, the id 0 is padding: masked."""
        return not_equal(convert_to_tensor(inputs), 0) if self.mask_zero else None

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = {**super().get_config(), "input_dim": self.input_dim,
                  "output_dim": self.output_dim, "mask_zero": self.mask_zero}
        if self.embeddings_regularizer is not None:
            config["embeddings_regularizer"] = regularizers.serialize(self.embeddings_regularizer)
        return config
