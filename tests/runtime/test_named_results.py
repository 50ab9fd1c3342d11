"""What TensorFlow returns as named tuples is a named tuple here too, eagerly and in graphs."""

import numpy as np

import runtime as rt


def test_top_k_values_and_indices():
    result = rt.math.top_k(rt.constant([1.0, 5.0, 3.0]), k=2)
    np.testing.assert_array_equal(result.values.numpy(), [5.0, 3.0])
    np.testing.assert_array_equal(result.indices.numpy(), [1, 2])
    values, indices = result  # still unpacks
    assert type(result).__name__ == "TopKV2" and values is result[0]


def test_unique_y_and_idx():
    result = rt.unique(rt.constant([4, 1, 4, 2]))
    np.testing.assert_array_equal(result.y.numpy(), [4, 1, 2])
    np.testing.assert_array_equal(result.idx.numpy(), [0, 1, 0, 2])


def test_slogdet_and_qr_fields():
    a = rt.constant([[2.0, 0.0], [0.0, -3.0]])
    sign, log_abs = rt.linalg.slogdet(a)
    assert rt.linalg.slogdet(a).sign.numpy() == sign.numpy() == -1.0
    np.testing.assert_allclose(rt.linalg.slogdet(a).log_abs_determinant.numpy(), np.log(6.0))
    q, r = rt.linalg.qr(a)
    np.testing.assert_allclose((rt.linalg.qr(a).q @ rt.linalg.qr(a).r).numpy(), a.numpy(),
                               atol=1e-6)


def test_named_results_in_a_graph():
    @rt.function
    def f(x):
        top = rt.math.top_k(x, k=1)
        return top.values, rt.unique(x).idx

    values, idx = f(rt.constant([1.0, 3.0, 1.0]))
    np.testing.assert_array_equal(values.numpy(), [3.0])
    np.testing.assert_array_equal(idx.numpy(), [0, 1, 0])


def test_a_function_can_return_the_named_tuple():
    f = rt.function(lambda x: rt.math.top_k(x, k=2))
    result = f(rt.constant([1.0, 3.0, 2.0]))
    assert type(result).__name__ == "TopKV2"
    np.testing.assert_array_equal(result.indices.numpy(), [1, 2])
