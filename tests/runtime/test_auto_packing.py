"""Lists that hold tensors are packed into one tensor where an op takes a tensor, as in
TensorFlow (``rt.concat([v, [i]], 0)``, ``rt.reduce_sum([x, 2 * x])``), eagerly and in graphs."""

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.float64])
def test_a_list_with_a_symbolic_scalar_is_packed_for_concat(dtype):
    f = rt.function(lambda v, i: rt.concat([v, [i]], 0))
    got = f(rt.constant([0, 0], dtype), rt.constant(3, dtype))
    assert got.dtype == dtype and got.numpy().tolist() == [0, 0, 3]


def test_python_numbers_next_to_tensors_in_a_packed_list_are_weak():
    f = rt.function(lambda x: rt.reduce_sum([x, 2 * x, 1]))
    got = f(rt.constant(3, rt.int64))
    assert got.dtype == rt.int64 and int(got) == 10
    assert rt.reduce_sum([rt.constant(1.5), 2]).dtype == rt.float32


def test_nested_lists_pack_into_matrices_eagerly_and_in_graphs():
    make = lambda x: rt.convert_to_tensor([[x, 1.0], [2.0, x]])  # noqa: E731
    expected = np.array([[3.0, 1.0], [2.0, 3.0]], np.float32)
    np.testing.assert_array_equal(make(rt.constant(3.0)).numpy(), expected)
    np.testing.assert_array_equal(rt.function(make)(rt.constant(3.0)).numpy(), expected)


def test_lists_of_tensors_of_different_dtypes_are_a_clear_error():
    with pytest.raises(TypeError, match="stack"):
        rt.function(lambda x, y: rt.reduce_sum([x, y]))(rt.constant(1), rt.constant(1.5))
