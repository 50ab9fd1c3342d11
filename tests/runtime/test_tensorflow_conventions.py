"""Small conventions where TensorFlow's answer is the one users expect (each checked against
TensorFlow 2.21): dtypes inferred from values, results over no elements, axes given as 0-d
tensors, batch shapes."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
import transpiler.tf as tf


def test_one_hot_takes_the_dtype_of_on_and_off_values():
    assert tf.one_hot([1], 3, on_value=5, off_value=-1).dtype == tf.int32
    assert tf.one_hot([1], 3, on_value=5, off_value=-1).numpy().tolist() == [[-1, 5, -1]]
    assert tf.one_hot([1], 3, on_value=5.0).dtype == tf.float32
    assert tf.one_hot([1], 3).dtype == tf.float32
    assert tf.one_hot([1], 3, on_value=5, dtype=tf.float64).dtype == tf.float64


def test_variables_are_tensors_to_is_tensor():
    assert tf.is_tensor(tf.Variable(1.0)) and tf.is_tensor(tf.constant(1.0))
    assert not tf.is_tensor(np.ones(2)) and not tf.is_tensor(1.0)


def test_linspace_gives_a_python_bound_the_tensor_bounds_dtype():
    result = tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3)
    assert result.dtype == tf.float64 and result.numpy().tolist() == [0.0, 0.5, 1.0]
    assert tf.linspace(0.0, tf.constant(2.0, tf.float64), 3).dtype == tf.float64


def test_eye_repeats_along_a_batch_shape():
    result = tf.eye(2, 3, batch_shape=[2, 1], dtype=tf.int32)
    assert result.shape == (2, 1, 2, 3) and result.dtype == tf.int32
    np.testing.assert_array_equal(result.numpy()[1, 0], np.eye(2, 3))


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_max_and_min_over_no_elements_are_the_dtypes_extremes(traced):
    def extremes(floats, ints, flags):
        return (rt.reduce_max(floats), rt.reduce_min(floats, axis=0), rt.reduce_max(ints, axis=1),
                rt.reduce_min(ints), rt.reduce_max(flags), rt.reduce_min(flags))
    run = rt.function(extremes) if traced else extremes
    results = run(np.zeros((0, 3), np.float32), np.zeros((2, 0), np.int64),
                  np.zeros(0, np.bool_))
    assert [r.numpy().tolist() for r in results] == [
        -np.inf, [np.inf] * 3, [np.iinfo(np.int64).min] * 2, np.iinfo(np.int64).max, False, True]
    assert rt.reduce_max(np.array([1.0, np.nan, 0.0])).numpy() != 0  # NaN still propagates


def test_python_ints_beyond_int32_make_int64_constants():
    assert tf.constant(2 ** 40).dtype == tf.int64
    assert tf.constant([1, 2 ** 31]).numpy().tolist() == [1, 2 ** 31]
    assert tf.constant(-2 ** 31).dtype == tf.int32


def test_to_categorical_gives_float64_for_arrays_and_float32_for_tensors():
    assert tf.keras.utils.to_categorical(np.array([0, 2])).dtype == np.float64
    assert tf.keras.utils.to_categorical(tf.constant([0, 2]), 3).dtype == np.float32


def test_an_axis_may_be_a_0_d_tensor():
    x = tf.reshape(tf.range(6, dtype=tf.float64), (2, 3))
    assert tf.reduce_mean(x, axis=tf.constant(1)).numpy().tolist() == [1.0, 4.0]
    assert tf.reduce_sum(x, axis=tf.rank(x) - 1).numpy().tolist() == [3.0, 12.0]
    assert tf.reduce_max(x, axis=tf.constant(0)).numpy().tolist() == [3.0, 4.0, 5.0]


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_unsorted_segment_sum_drops_rows_with_negative_ids(traced):
    def sums(data, ids):
        return rt.math.unsorted_segment_sum(data, ids, 3)
    run = rt.function(sums) if traced else sums
    data = rt.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    result = run(data, rt.constant([2, -1, 0, -3]))
    assert result.numpy().tolist() == [[5.0, 6.0], [0.0, 0.0], [1.0, 2.0]]
    with rt.GradientTape() as tape:
        tape.watch(data)
        total = rt.reduce_sum(sums(data, rt.constant([2, -1, 0, -3])))
    assert tape.gradient(total, data).numpy().tolist() == [[1, 1], [0, 0], [1, 1], [0, 0]]
