"""``MultiHeadAttention``, Keras' formulas: ``num_heads`` heads, each projecting the query,
key and value (``x @ kernel + bias`` with kernels of shape (features, heads, size)), then

    scores = softmax(query . key / sqrt(key_dim), over the keys), masked positions at -1e9
    output = (scores . value) @ output_kernel + output_bias   (summed over heads)

``layer(query, value, key=None, attention_mask=None, return_attention_scores=False,
use_causal_mask=False)``; ``key`` defaults to ``value``. Like Keras, the scale is applied to
the query before the product when the scores are returned (or with dropout), and to the
product otherwise; the two differ only in float rounding.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.keras import initializers, masks, regularizers
from runtime.keras.layers.base import Layer
from runtime.ops import nn
from runtime.ops.array_ops import cast, convert_to_tensor, expand_dims, where
from runtime.ops.einsum_ops import einsum
from runtime.ops.math_ops import greater, logical_and

LARGE_NEGATIVE = -1e9  # Keras' masked score (float32)


class MultiHeadAttention(Layer):
    """Scaled dot-product attention with ``num_heads`` heads (see the module docstring)."""

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 seed=None, flash_attention=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        unsupported = [option for option, value in (
            ("attention_axes", attention_axes), ("kernel_constraint", kernel_constraint),
            ("bias_constraint", bias_constraint), ("flash_attention", flash_attention or None))
            if value is not None]
        if unsupported:
            raise NotImplementedError(f"MultiHeadAttention: {', '.join(unsupported)} is not "
                                      f"supported yet by rt.keras (it would be ignored).")
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim is not None else self.key_dim
        self.dropout, self.use_bias, self.seed = float(dropout), use_bias, seed
        if isinstance(output_shape, (tuple, list)):
            if len(output_shape) != 1:
                raise NotImplementedError("MultiHeadAttention: an output_shape of more than one "
                                          "dimension is not supported yet by rt.keras.")
            output_shape = output_shape[0]
        self.output_size = None if output_shape is None else int(output_shape)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self._projections = None

    def _make_weights(self, query_shape, value_shape, key_shape) -> None:
        heads = self.num_heads
        sizes = (("query", query_shape[-1], self.key_dim), ("key", key_shape[-1], self.key_dim),
                 ("value", value_shape[-1], self.value_dim))
        projections = {}
        for name, features, size in sizes + (("output", None, None),):
            if name == "output":
                out = self.output_size or query_shape[-1]
                shape, bias_shape = (heads, self.value_dim, out), (out,)
            else:
                shape, bias_shape = (features, heads, size), (heads, size)
            kernel = self.add_weight(f"{name}/kernel", shape, initializer=self.kernel_initializer,
                                     regularizer=self.kernel_regularizer)
            bias = self.add_weight(f"{name}/bias", bias_shape, initializer=self.bias_initializer,
                                   regularizer=self.bias_regularizer) if self.use_bias else None
            projections[name] = (kernel, bias)
        self._projections = projections

    def _project(self, name, x, equation):
        kernel, bias = self._projections[name]
        y = einsum(equation, x, kernel)
        return y + bias if bias is not None else y

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None,
             attention_mask=None, return_attention_scores=False, training=None,
             use_causal_mask=False):
        # Keras masks of the inputs (padded steps): a padded query attends to nothing in
        # particular, a padded key or value is not attended to.
        query_mask = masks.mask_of(query) if query_mask is None else query_mask
        value_mask = masks.mask_of(value) if value_mask is None else value_mask
        key_mask = (value_mask if key is None else masks.mask_of(key)) if key_mask is None \
            else key_mask
        query, value = convert_to_tensor(query), convert_to_tensor(value)
        key = value if key is None else convert_to_tensor(key)
        if self._projections is None:
            self._make_weights(query.shape, value.shape, key.shape)
        dtype = self._projections["query"][0].dtype
        query, value, key = (t if t.dtype == dtype else cast(t, dtype)
                             for t in (query, value, key))
        q = self._project("query", query, "abc,cde->abde")   # (batch, T, heads, key_dim)
        k = self._project("key", key, "abc,cde->abde")       # (batch, S, heads, key_dim)
        v = self._project("value", value, "abc,cde->abde")   # (batch, S, heads, value_dim)
        scale = 1.0 / math.sqrt(float(self.key_dim))
        if return_attention_scores or self.dropout > 0:
            logits = einsum("aecd,abcd->acbe", k, q * scale)
        else:
            logits = einsum("abcd,aecd->acbe", q, k) * scale
        mask = self._mask(self._input_masks(query_mask, value_mask, key_mask, attention_mask),
                          use_causal_mask, logits)
        if mask is not None:
            logits = where(mask, logits, LARGE_NEGATIVE)
        scores = nn.softmax(logits, axis=-1)                   # (batch, heads, T, S)
        attended = scores
        if training and self.dropout > 0:
            attended = nn.dropout(scores, self.dropout, seed=self.seed)
        heads = einsum("acbe,aecd->abcd", attended, v)
        output = self._project("output", heads, "abcd,cde->abe")
        return (output, scores) if return_attention_scores else output

    @staticmethod
    def _input_masks(query_mask, value_mask, key_mask, attention_mask):
        """``attention_mask`` (batch, T, S) combined with the inputs' masks, as Keras does."""
        combined = None
        if query_mask is not None:
            combined = expand_dims(cast(convert_to_tensor(query_mask), "bool"), -1)
        for other in (value_mask, key_mask):
            if other is not None:
                other = expand_dims(cast(convert_to_tensor(other), "bool"), -2)
                combined = other if combined is None else logical_and(combined, other)
        if attention_mask is None:
            return combined
        given = convert_to_tensor(attention_mask)
        if given.dtype != np.bool_:
            given = greater(cast(given, "float32"), 0.5)
        return given if combined is None else logical_and(given, combined)

    def compute_mask(self, inputs, mask=None):
        return mask  # the query's: padded steps stay padded

    @staticmethod
    def _mask(attention_mask, use_causal_mask, logits):
        mask = None
        if attention_mask is not None:
            mask = convert_to_tensor(attention_mask)
            if mask.dtype != np.bool_:
                mask = greater(cast(mask, "float32"), 0.5)
            mask = expand_dims(mask, -3)  # the heads' axis
        if use_causal_mask:
            steps, keys = logits.shape[-2], logits.shape[-1]
            if steps is None or keys is None:
                raise NotImplementedError("MultiHeadAttention: use_causal_mask needs sequence "
                                          "lengths known when the layer is traced.")
            causal = convert_to_tensor(np.tril(np.ones((steps, keys), bool)))
            mask = causal if mask is None else logical_and(mask, causal)
        return mask

    def get_config(self):
        return {**super().get_config(), "num_heads": self.num_heads, "key_dim": self.key_dim,
                "value_dim": self.value_dim, "dropout": self.dropout, "use_bias": self.use_bias,
                "output_shape": self.output_size, "seed": self.seed}
