"""Keras' ``IntegerLookup``: integer tokens mapped to indices in a vocabulary (given, or
learned by ``adapt``), or back with ``invert=True``, optionally encoded as ``one_hot``,
``multi_hot`` or ``count`` vectors (``CategoryEncoding``).

The indices are Keras 3's: the mask token's (0, when there is one), then ``num_oov_indices``
out-of-vocabulary indices (a token not in the vocabulary gets ``token mod num_oov_indices``
among them), then the vocabulary in its order. ``adapt`` orders the tokens by count, ties by
descending token, as Keras does."""

from __future__ import annotations

from collections import Counter

import numpy as np

from runtime import dtypes
from runtime.keras.layers.base import Layer
from runtime.keras.layers.category_encoding import CategoryEncoding
from runtime.ops.array_ops import cast, convert_to_tensor, reshape, shape as shape_of, where
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, greater_equal, less, logical_and, minimum, mod
from runtime.ops.reduce_ops import reduce_all
from runtime.ops.scatter_ops import gather
from runtime.ops.sort_ops import searchsorted
from runtime.tensor import Tensor

_MODES = ("int", "one_hot", "multi_hot", "count")


class IntegerLookup(Layer):
    """See the module docstring. Unsupported yet (an error, not ignored): ``output_mode=
    "tf_idf"``, ``sparse=True``, ``pad_to_max_tokens=True``, ``oov_method`` other than
    ``"floormod"``."""

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False,
                 oov_method="floormod", salt=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        unsupported = [what for what, used in (
            ("output_mode='tf_idf'", output_mode == "tf_idf"),
            ("idf_weights", idf_weights is not None),
            ("sparse=True", sparse), ("pad_to_max_tokens=True", pad_to_max_tokens),
            (f"oov_method={oov_method!r}", oov_method != "floormod")) if used]
        if unsupported:
            raise NotImplementedError(f"IntegerLookup: {', '.join(unsupported)} is not supported "
                                      f"yet by rt.keras.")
        if output_mode not in _MODES:
            raise ValueError(f"IntegerLookup: output_mode must be one of {_MODES}, got "
                             f"{output_mode!r}.")
        if invert and output_mode != "int":
            raise ValueError("IntegerLookup: invert=True maps indices back to tokens and needs "
                             "output_mode='int'.")
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token, self.invert = mask_token, int(oov_token), invert
        self.output_mode, self.vocabulary_dtype = output_mode, np.dtype(vocabulary_dtype)
        self._vocabulary = None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary)

    def set_vocabulary(self, vocabulary) -> None:
        """The tokens, in index order (without the mask and OOV tokens)."""
        tokens = np.asarray(vocabulary, self.vocabulary_dtype).reshape(-1)
        if len(np.unique(tokens)) != len(tokens):
            raise ValueError(f"{self.name}: the vocabulary has repeated tokens: {tokens.tolist()}.")
        self._vocabulary = tokens

    def adapt(self, data, batch_size=None, steps=None) -> None:
        """Learns the vocabulary: the tokens of ``data`` (an array, a tensor or an iterable of
        batches) by descending count (ties: descending token), at most ``max_tokens`` with
        the mask and OOV indices."""
        batches = [data] if isinstance(data, (np.ndarray, Tensor, list)) else data
        counts = Counter()
        for batch in batches:
            values = np.asarray(batch.numpy() if hasattr(batch, "numpy") else batch).reshape(-1)
            counts.update(int(v) for v in values if self.mask_token is None
                          or v != self.mask_token)
        ranked = sorted(counts, key=lambda token: (-counts[token], -token))
        if self.max_tokens is not None:
            ranked = ranked[:max(self.max_tokens - self._reserved(), 0)]
        self.set_vocabulary(ranked)

    def _reserved(self) -> int:
        return self.num_oov_indices + (self.mask_token is not None)

    def get_vocabulary(self) -> list:
        """The token of each index: the mask token, the OOV token per OOV index, then the
        vocabulary."""
        special = ([self.mask_token] if self.mask_token is not None else []) \
            + [self.oov_token] * self.num_oov_indices
        return special + list(self._tokens())

    def vocabulary_size(self) -> int:
        return len(self.get_vocabulary())

    def _tokens(self) -> np.ndarray:
        if self._vocabulary is None:
            raise ValueError(f"{self.name}: IntegerLookup has no vocabulary yet: give "
                             f"vocabulary= or call adapt first.")
        return self._vocabulary

    def call(self, inputs):
        values = cast(convert_to_tensor(inputs), dtypes.int64)
        if self.invert:
            return self._tokens_of(values)
        indices = self._indices_of(values)
        if self.output_mode == "int":
            return indices
        encode = CategoryEncoding(self.vocabulary_size(), self.output_mode, dtype="int64")
        return encode(indices)

    def _indices_of(self, values: Tensor) -> Tensor:
        tokens = self._tokens().astype(np.int64)
        if len(tokens):
            order = np.argsort(tokens, kind="stable")
            ordered = tokens[order]
            flat = reshape(values, [1, -1])  # searched as one row of the sorted tokens
            position = reshape(searchsorted(ordered[None], flat, out_type=dtypes.int64),
                               shape_of(values))
            position = minimum(position, len(tokens) - 1)
            found = equal(gather(ordered, position), values)
            indices = gather(order.astype(np.int64) + self._reserved(), position)
        else:
            found, indices = less(values, values), values  # an empty vocabulary holds nothing
        if self.num_oov_indices:
            oov = mod(values, self.num_oov_indices) + int(self.mask_token is not None)
        else:
            assert_(reduce_all(found), f"{self.name}: with num_oov_indices=0 every token must be "
                    f"in the vocabulary; the tokens are", (values,))
            oov = values
        indices = where(found, indices, oov)
        if self.mask_token is not None:
            indices = where(equal(values, int(self.mask_token)), 0, indices)
        return indices

    def _tokens_of(self, indices: Tensor) -> Tensor:
        table = np.asarray(self.get_vocabulary(), np.int64)
        assert_(reduce_all(logical_and(greater_equal(indices, 0), less(indices, len(table)))),
                f"{self.name}: an index is outside the vocabulary [0, {len(table)}); they are",
                (indices,))
        return gather(table, indices)

    def get_config(self):
        return {**super().get_config(), "max_tokens": self.max_tokens,
                "num_oov_indices": self.num_oov_indices, "mask_token": self.mask_token,
                "oov_token": self.oov_token, "invert": self.invert,
                "output_mode": self.output_mode,
                "vocabulary": None if self._vocabulary is None else self._vocabulary.tolist(),
                "vocabulary_dtype": self.vocabulary_dtype.name}
