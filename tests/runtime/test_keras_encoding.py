"""The errors of CategoryEncoding and IntegerLookup, eagerly and in traced functions (their
values are compared with Keras in tests/keras_programs/layers.py)."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError
from runtime.keras import layers


@pytest.mark.parametrize("decorate", [lambda f: f, rt.function], ids=["eager", "graph"])
def test_a_negative_id_is_an_error(decorate):
    encode = layers.CategoryEncoding(4, output_mode="count")
    with pytest.raises(InvalidArgumentError, match="negative"):
        decorate(lambda ids: encode(ids))(rt.constant([[0, -1]]))


@pytest.mark.parametrize("decorate", [lambda f: f, rt.function], ids=["eager", "graph"])
def test_a_token_outside_a_vocabulary_without_oov_indices_is_an_error(decorate):
    lookup = layers.IntegerLookup(vocabulary=[12, 36], num_oov_indices=0)
    np.testing.assert_array_equal(lookup(np.array([36, 12])), [1, 0])
    with pytest.raises(InvalidArgumentError, match="num_oov_indices=0"):
        decorate(lambda tokens: lookup(tokens))(rt.constant([12, 5], rt.int64))


def test_an_index_outside_an_inverted_vocabulary_is_an_error():
    inverse = layers.IntegerLookup(vocabulary=[12, 36], invert=True)
    np.testing.assert_array_equal(inverse(np.array([2, 0])), [36, -1])
    with pytest.raises(InvalidArgumentError, match="outside the vocabulary"):
        inverse(np.array([3]))


def test_unsupported_options_are_refused_not_ignored():
    with pytest.raises(NotImplementedError, match="tf_idf"):
        layers.IntegerLookup(vocabulary=[1], output_mode="tf_idf", idf_weights=[1.0])
    with pytest.raises(NotImplementedError, match="sparse"):
        layers.CategoryEncoding(3, sparse=True)
    with pytest.raises(ValueError, match="no vocabulary yet"):
        layers.IntegerLookup()(np.array([1]))
