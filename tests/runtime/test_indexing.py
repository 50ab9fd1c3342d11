"""``tensor[key]``: ints, slices, ``...``, ``None`` and tensor indices, eager and traced."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError, ShapeError

X = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

STATIC_KEYS = [
    0, -1, 1, slice(1, None), slice(None, None, -1), (Ellipsis, 1), (None, 0),
    (0, None, slice(None, None, -1)), (Ellipsis, None), (1, Ellipsis, 2), (slice(0, 1), Ellipsis,
                                                                          None, slice(1, 3)),
    (slice(None), 2, slice(1, None, 2)), (-1, -1, -1), Ellipsis, (slice(5, 9),), (0, [2, 0]),
    (slice(None), [0, 2]),
    # NumPy moves the index dimensions first when ints and a tensor index are not adjacent.
    (0, slice(None), [1, 2]), ([1, 0], slice(None), 0), (None, 0, slice(None), [1, 2]),
    (0, Ellipsis, [1, 2]), (0, None, [[1], [2]]), ([[1]], slice(None), 1),
]


@pytest.mark.parametrize("key", STATIC_KEYS, ids=repr)
def test_static_keys_match_numpy_eager_and_traced(key):
    expected = X[key]
    eager = rt.constant(X)[key]
    assert eager.dtype == expected.dtype
    np.testing.assert_array_equal(eager.numpy(), expected)

    traced = rt.function(lambda x: x[key])
    concrete = traced.get_concrete_function(rt.TensorSpec(X.shape))
    assert concrete.graph.outputs[0].shape == expected.shape  # fully static shapes are exact
    np.testing.assert_array_equal(traced(rt.constant(X)).numpy(), expected)


def test_tensor_indices_inside_a_graph():
    @rt.function
    def f(x, i, n):
        return x[i], x[1:n], x[x > 10], x[:, i], x[rt.constant([1, 0])], x[..., n], x[i, n, ::2]

    i, n = rt.constant(1), rt.constant(2)
    results = f(rt.constant(X), i, n)
    expected = (X[1], X[1:2], X[X > 10], X[:, 1], X[[1, 0]], X[..., 2], X[1, 2, ::2])
    for result, reference in zip(results, expected):
        np.testing.assert_array_equal(result.numpy(), reference)


def test_partial_shapes_of_tensor_indices():
    @rt.function
    def f(x, i, n):
        return x[i], x[1:n], x[x > 10], x[:, i]
    graph = f.get_concrete_function(rt.TensorSpec(X.shape), rt.TensorSpec([], rt.int32),
                                    rt.TensorSpec([], rt.int32)).graph
    assert [v.shape for v in graph.outputs] == [(3, 4), (None, 3, 4), (None,), (2, 4)]


def test_variable_as_index():
    index = rt.Variable(2)
    np.testing.assert_array_equal(rt.constant(X)[0, index].numpy(), X[0, 2])

    @rt.function
    def f(x):
        return x[0, index]
    np.testing.assert_array_equal(f(rt.constant(X)).numpy(), X[0, 2])
    index.assign(1)
    np.testing.assert_array_equal(f(rt.constant(X)).numpy(), X[0, 1])


def test_getitem_spec_is_printed_readably():
    @rt.function
    def f(x, n):
        return x[1:n, None, ..., ::2]
    text = str(f.get_concrete_function(rt.TensorSpec(X.shape), rt.TensorSpec([], rt.int32)).graph)
    assert "getitem(%x, %n, spec=[1:$0, None, ..., ::2])" in text


def test_too_many_indices_is_a_trace_time_error():
    with pytest.raises(ShapeError, match=re.escape("getitem: too many indices (4) for a tensor of "
                                                   "shape (2, 3, 4).")):
        rt.function(lambda x: x[0, 0, 0, 0]).get_concrete_function(rt.TensorSpec(X.shape))


def test_out_of_range_index_fails_when_run():
    with pytest.raises(InvalidArgumentError, match=re.escape("index 5 is out of bounds for axis 0")):
        rt.constant(X)[5]
    traced = rt.function(lambda x: x[5])
    traced.get_concrete_function(rt.TensorSpec(X.shape))  # tracing is fine: NumPy decides at run time
    with pytest.raises(InvalidArgumentError, match=re.escape("getitem (node %")):
        traced(rt.constant(X))


@pytest.mark.parametrize("key, error, fragment", [
    (rt.constant(1.0), TypeError, "tensor indices must be integers or bools, got float32."),
    (True, TypeError, "indexing with a Python bool is not supported"),
    ((Ellipsis, 0, Ellipsis), IndexError, "an index can only have a single ellipsis"),
    ("a", TypeError, "unsupported index 'a'"),
    (slice(0, 1.5), TypeError, "slice bounds must be ints, None or integer tensors"),
])
def test_invalid_keys(key, error, fragment):
    with pytest.raises(error, match=re.escape(fragment)):
        rt.constant(X)[key]
