"""Keras' ``CategoryEncoding``: integer category ids as dense vectors of ``num_tokens``
entries, one per id (``one_hot``), or one per sample marking (``multi_hot``) or counting
(``count``, optionally weighted) the ids it holds."""

from __future__ import annotations

from runtime import dtypes
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor, expand_dims, squeeze
from runtime.ops.io_ops import assert_
from runtime.ops.layout_ops import one_hot
from runtime.ops.math_ops import greater, greater_equal, multiply
from runtime.ops.reduce_ops import reduce_all, reduce_sum

_MODES = ("one_hot", "multi_hot", "count")


class CategoryEncoding(Layer):
    """``one_hot``: each id becomes a row of ``num_tokens`` (a last dimension of 1 is
    replaced). ``multi_hot``/``count``: the ids along the last axis of each sample (a 1-D
    input is one sample) become one row marking or counting them; ids of ``num_tokens`` or
    more are dropped and negative ids are an ``InvalidArgumentError``, as in Keras."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if num_tokens is None or int(num_tokens) < 1:
            raise ValueError(f"CategoryEncoding: num_tokens must be a positive int, got "
                             f"{num_tokens!r}.")
        if output_mode not in _MODES:
            raise ValueError(f"CategoryEncoding: output_mode must be one of {_MODES}, got "
                             f"{output_mode!r}.")
        if sparse:
            raise NotImplementedError("CategoryEncoding: sparse=True is not supported by "
                                      "rt.keras (there are no sparse tensors); leave it False.")
        self.num_tokens, self.output_mode, self.sparse = int(num_tokens), output_mode, sparse

    def call(self, inputs, count_weights=None):
        ids = cast(convert_to_tensor(inputs), dtypes.int64)
        if ids.shape is None:
            raise ValueError(f"{self.name}: the rank of the input must be known.")
        if len(ids.shape) == 0:
            ids = expand_dims(ids, 0)
        if self.output_mode == "one_hot":
            if len(ids.shape) > 1 and ids.shape[-1] == 1:
                ids = squeeze(ids, [-1])
            return one_hot(ids, self.num_tokens, dtype=self.dtype)
        if len(ids.shape) > 2:
            raise NotImplementedError(f"{self.name}: {self.output_mode} encodes inputs of rank "
                                      f"1 or 2 (samples of ids), got shape {ids.shape}.")
        assert_(reduce_all(greater_equal(ids, 0)), f"{self.name}: CategoryEncoding takes ids "
                f"in [0, num_tokens), and an input has a negative one; the ids are", (ids,))
        marks = one_hot(ids, self.num_tokens, dtype=self.dtype)
        if count_weights is not None:
            marks = multiply(marks, expand_dims(cast(convert_to_tensor(count_weights),
                                                     self.dtype), -1))
        counts = reduce_sum(marks, axis=-2)
        if self.output_mode == "count":
            return counts
        return cast(greater(counts, 0), self.dtype)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens,
                "output_mode": self.output_mode, "sparse": self.sparse}
