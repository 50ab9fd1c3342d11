"""``Attention`` (Luong: dot-product scores) and ``AdditiveAttention`` (Bahdanau: scores
``sum(scale * tanh(query + key))``), Keras' single-head attention layers, called on
``[query, value]`` or ``[query, value, key]``:

    scores = score(query, key)                 (batch, Tq, Tv); padded values at -1e9
    output = softmax(scores) @ value           (batch, Tq, dim); padded queries give zeros
"""

from __future__ import annotations

import numpy as np

from runtime.keras.layers.base import Layer
from runtime.ops import nn
from runtime.ops.array_ops import cast, convert_to_tensor, expand_dims, transpose, where
from runtime.ops.linalg_ops import matmul
from runtime.ops.math_ops import logical_and, logical_not, tanh
from runtime.ops.reduce_ops import reduce_sum

LARGE = 1.0e9  # Keras subtracts it from the scores of padded values


class _BaseAttention(Layer):
    def __init__(self, use_scale=False, dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if dropout:
            raise NotImplementedError(f"{type(self).__name__}: dropout is not supported yet by "
                                      f"rt.keras (it would be ignored).")
        self.use_scale, self.dropout, self.seed = use_scale, dropout, seed
        self.scale = None

    def _scores(self, query, key):
        raise NotImplementedError

    def call(self, inputs, mask=None, training=None, return_attention_scores=False,
             use_causal_mask=False):
        if not isinstance(inputs, (list, tuple)) or len(inputs) not in (2, 3):
            raise ValueError(f"{self.name}: call it on [query, value] or [query, value, key], "
                             f"got {type(inputs).__name__}.")
        query, value = convert_to_tensor(inputs[0]), convert_to_tensor(inputs[1])
        key = convert_to_tensor(inputs[2]) if len(inputs) == 3 else value
        query_mask, value_mask = (mask[0], mask[1]) if mask else (None, None)
        scores = self._scores(query, key)
        allowed = None if value_mask is None else expand_dims(convert_to_tensor(value_mask), -2)
        if use_causal_mask:
            steps, keys = scores.shape[-2], scores.shape[-1]
            causal = convert_to_tensor(np.tril(np.ones((1, steps, keys), bool)))
            allowed = causal if allowed is None else logical_and(allowed, causal)
        if allowed is not None:
            scores = where(logical_not(allowed), scores - LARGE, scores)
        weights = nn.softmax(scores, axis=-1)
        output = matmul(weights, value)
        if query_mask is not None:
            output = output * cast(expand_dims(convert_to_tensor(query_mask), -1), output.dtype)
        return (output, weights) if return_attention_scores else output

    def compute_mask(self, inputs, mask=None):
        return None if not mask or mask[0] is None else mask[0]

    def get_config(self):
        return {**super().get_config(), "use_scale": self.use_scale, "dropout": self.dropout}


class Attention(_BaseAttention):
    """Scores ``query @ key^T`` (times a learned ``scale`` with ``use_scale=True``); with
    ``score_mode="concat"``, ``concat_score_weight * sum(tanh(scale * (query + key)))``."""

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, seed=seed, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(f"Attention: score_mode must be 'dot' or 'concat', got "
                             f"{score_mode!r}.")
        self.score_mode = score_mode
        self.concat_score_weight = None

    def build(self, input_shape):
        if self.use_scale:
            self.scale = self.add_weight("scale", (), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight("concat_score_weight", (),
                                                       initializer="ones")
        self.built = True

    def _scores(self, query, key):
        if self.score_mode == "dot":
            scores = matmul(query, transpose(key, [0, 2, 1]))
            return scores * self.scale if self.scale is not None else scores
        summed = expand_dims(query, -2) + expand_dims(key, -3)
        if self.scale is not None:
            summed = self.scale * summed
        return self.concat_score_weight * reduce_sum(tanh(summed), axis=-1)

    def get_config(self):
        return {**super().get_config(), "score_mode": self.score_mode}


class AdditiveAttention(_BaseAttention):
    """Scores ``sum(scale * tanh(query + key))`` over the features, ``scale`` a learned
    vector (``use_scale=True``, the default)."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        if self.use_scale:
            self.scale = self.add_weight("scale", (input_shape[0][-1],),
                                         initializer="glorot_uniform")
        self.built = True

    def _scores(self, query, key):
        summed = tanh(expand_dims(query, -2) + expand_dims(key, -3))
        return reduce_sum((self.scale if self.scale is not None else 1.0) * summed, axis=-1)
