"""rt.data in Python iteration: every Dataset method against the values TensorFlow gives.

The expected values were taken from TensorFlow 2.21 (``tf.data``); the tests carry them, so
TensorFlow is not needed to run them. ``test_against_tensorflow`` at the end reruns a few
pipelines on TensorFlow when it is installed.
"""

import collections
import re

import numpy as np
import pytest

import runtime as rt
from runtime import conversion

D = rt.data.Dataset


def values(ds):
    return [_plain(e) for e in ds.as_numpy_iterator()]


def _plain(element):
    if isinstance(element, dict):
        return {k: _plain(v) for k, v in element.items()}
    if isinstance(element, tuple):
        return tuple(_plain(v) for v in element)
    return element.tolist() if isinstance(element, np.ndarray) else element.item()


# -- sources -------------------------------------------------------------------------------


def test_from_tensor_slices_of_python_lists_has_rt_constant_dtypes():
    assert D.from_tensor_slices([1, 2, 3]).element_spec == rt.TensorSpec((), rt.int32)
    assert D.from_tensor_slices([1.0, 2.0]).element_spec == rt.TensorSpec((), rt.float32)
    assert values(D.from_tensor_slices([1, 2, 3])) == [1, 2, 3]
    assert values(D.from_tensor_slices([[1, 2], [3, 4], [5, 6]])) == [[1, 2], [3, 4], [5, 6]]


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_from_tensor_slices_keeps_numpy_and_tensor_dtypes(dtype):
    array = np.arange(6, dtype=dtype).reshape(3, 2)
    for source in (array, rt.constant(array)):
        ds = D.from_tensor_slices(source)
        assert ds.element_spec == rt.TensorSpec((2,), dtype)
        elements = list(ds)
        assert all(isinstance(e, rt.Tensor) and e.dtype == dtype for e in elements)
        assert [e.numpy().tolist() for e in elements] == array.tolist()


def test_from_tensor_slices_of_tuples_dicts_and_nesting():
    ds = D.from_tensor_slices(({"a": np.arange(6.0).reshape(3, 2), "b": [1, 2, 3]}, [7, 8, 9]))
    assert ds.element_spec == ({"a": rt.TensorSpec((2,), rt.float64),
                                "b": rt.TensorSpec((), rt.int32)}, rt.TensorSpec((), rt.int32))
    assert values(ds)[1] == ({"a": [2.0, 3.0], "b": 2}, 8)
    Point = collections.namedtuple("Point", "x y")
    point = next(iter(D.from_tensor_slices(Point([1, 2], [3.0, 4.0]))))
    assert isinstance(point, Point) and point.y.numpy() == 3.0


def test_from_tensor_slices_refuses_scalars_and_mismatched_sizes():
    with pytest.raises(ValueError, match="rank 1 or more"):
        D.from_tensor_slices(3)
    with pytest.raises(ValueError, match=re.escape("same first dimension, got sizes [2, 3]")):
        D.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_from_tensors_is_one_element():
    assert D.from_tensors(1).element_spec == rt.TensorSpec((), rt.int32)
    assert D.from_tensors(1.5).element_spec == rt.TensorSpec((), rt.float32)
    assert values(D.from_tensors(([1, 2], 3.0))) == [([1, 2], 3.0)]
    assert len(D.from_tensors([1, 2, 3])) == 1


def test_range_signatures_and_dtype():
    assert D.range(5).element_spec == rt.TensorSpec((), rt.int64)
    assert values(D.range(5)) == [0, 1, 2, 3, 4]
    assert values(D.range(2, 10, 3)) == [2, 5, 8]
    assert values(D.range(10, 2, -3)) == [10, 7, 4]
    assert values(D.range(3, 3)) == []
    ds = D.range(5, output_type=rt.int32)
    assert ds.element_spec.dtype == rt.int32 and values(ds) == [0, 1, 2, 3, 4]
    assert D.range(3, dtype=rt.int32).element_spec.dtype == rt.int32
    with pytest.raises(ValueError, match="step must not be 0"):
        D.range(0, 3, 0)


# -- transformations -----------------------------------------------------------------------


def test_map_unpacks_tuples_and_passes_dicts_whole():
    assert values(D.from_tensor_slices(([1, 2], [3, 4])).map(lambda a, b: a + b)) == [4, 6]
    ds = D.from_tensor_slices({"a": [1, 2], "b": [3, 4]}).map(lambda d: d["a"] * d["b"])
    assert values(ds) == [3, 8]


def test_map_results_become_tensors_and_lists_become_tuples():
    ds = D.range(2).map(lambda x: (x, 1.0))
    assert ds.element_spec == (rt.TensorSpec((), rt.int64), rt.TensorSpec((), rt.float32))
    assert values(ds) == [(0, 1.0), (1, 1.0)]
    assert values(D.range(3).map(lambda x: [x, x * 2])) == [(0, 0), (1, 2), (2, 4)]
    doubled = D.from_tensor_slices(np.array([1.0, 2.0])).map(lambda x: x * 2)
    assert doubled.element_spec.dtype == rt.float64 and values(doubled) == [2.0, 4.0]


def test_map_runs_eagerly_per_element_so_python_control_flow_works():
    def clip(x):
        return x if x < 3 else x * 0  # a Python `if` on a tensor: fine eagerly
    assert values(D.range(5).map(clip)) == [0, 1, 2, 0, 0]


def test_filter():
    assert values(D.range(10).filter(lambda x: x % 3 == 0)) == [0, 3, 6, 9]
    assert values(D.from_tensor_slices(([1, 2, 3], [4, 5, 6])).filter(lambda a, b: a + b > 6)) \
        == [(2, 5), (3, 6)]


def test_filter_refuses_a_non_bool_predicate_as_tensorflow_does():
    with pytest.raises(ValueError, match="must return a scalar bool tensor, got a int64 tensor"):
        list(D.range(3).filter(lambda x: x))


def test_take_skip_and_their_negative_counts():
    assert values(D.range(10).filter(lambda x: x % 3 == 0).take(2)) == [0, 3]
    assert values(D.range(10).filter(lambda x: x % 2 == 0).skip(2)) == [4, 6, 8]
    assert values(D.range(5).take(-1)) == [0, 1, 2, 3, 4]
    assert values(D.range(5).skip(-1)) == []
    assert values(D.range(5).take(rt.constant(2))) == [0, 1]


def test_repeat():
    assert values(D.range(3).repeat(2)) == [0, 1, 2, 0, 1, 2]
    assert values(D.range(0).repeat()) == []
    assert values(D.range(2).repeat().take(5)) == [0, 1, 0, 1, 0]
    assert values(D.range(2).repeat(0)) == []


def test_enumerate():
    ds = D.range(3).enumerate(5)
    assert values(ds) == [(5, 0), (6, 1), (7, 2)]
    assert ds.element_spec == (rt.TensorSpec((), rt.int64), rt.TensorSpec((), rt.int64))
    assert values(D.from_tensor_slices([1.0, 2.0]).enumerate()) == [(0, 1.0), (1, 2.0)]


def test_batch():
    assert values(D.from_tensor_slices([[1, 2], [3, 4], [5, 6]]).batch(2)) \
        == [[[1, 2], [3, 4]], [[5, 6]]]
    assert D.range(10).batch(3).element_spec == rt.TensorSpec((None,), rt.int64)
    assert D.range(10).batch(3, drop_remainder=True).element_spec == rt.TensorSpec((3,), rt.int64)
    assert values(D.range(7).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    nested = D.from_tensor_slices({"x": np.arange(4.0), "y": [1, 2, 3, 4]}).batch(3)
    assert values(nested) == [{"x": [0.0, 1.0, 2.0], "y": [1, 2, 3]}, {"x": [3.0], "y": [4]}]
    assert list(nested)[0]["y"].dtype == rt.int32


def test_batch_of_different_shapes_says_to_pad():
    ds = D.range(1, 4).map(lambda x: rt.fill([x], x)).batch(2)
    with pytest.raises(ValueError, match="Use padded_batch"):
        list(ds)


def test_padded_batch():
    ds = D.range(1, 4).map(lambda x: rt.fill([x], x))
    assert values(ds.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3]]]
    assert ds.padded_batch(2).element_spec == rt.TensorSpec((None, None), rt.int64)
    padded = ds.padded_batch(2, padded_shapes=[4], padding_values=rt.constant(-1, rt.int64))
    assert values(padded) == [[[1, -1, -1, -1], [2, 2, -1, -1]], [[3, 3, 3, -1]]]
    with pytest.raises(ValueError, match="larger than its padded size 2"):
        list(ds.padded_batch(3, padded_shapes=[2]))


def test_unbatch():
    assert values(D.range(4).batch(2).unbatch()) == [0, 1, 2, 3]
    ds = D.from_tensor_slices((np.arange(6).reshape(3, 2), np.ones((3, 2), np.float32))).unbatch()
    assert len(values(ds)) == 6 and ds.element_spec[1] == rt.TensorSpec((), rt.float32)


def test_zip_forms():
    assert values(D.zip((D.range(3), D.range(5, 8)))) == [(0, 5), (1, 6), (2, 7)]
    assert values(D.zip({"a": D.range(2), "b": D.range(3)})) == [{"a": 0, "b": 0},
                                                                   {"a": 1, "b": 1}]
    assert values(D.zip(D.range(2), D.range(3))) == [(0, 0), (1, 1)]
    assert values(D.zip(D.range(2), D.range(3)).map(lambda a, b: a * 10 + b)) == [0, 11]


def test_concatenate():
    assert values(D.range(2).concatenate(D.range(5, 7))) == [0, 1, 5, 6]
    with pytest.raises(TypeError, match="differ in dtype: int64 and float32"):
        D.range(3).concatenate(D.from_tensor_slices([1.0]))
    with pytest.raises(TypeError, match="differ in structure"):
        D.range(3).concatenate(D.range(3).map(lambda x: (x, x)))


def test_flat_map():
    assert values(D.range(3).flat_map(lambda x: D.range(x))) == [0, 0, 1]
    assert D.range(3).flat_map(lambda x: D.range(x)).element_spec == rt.TensorSpec((), rt.int64)


def test_prefetch_cache_apply_are_the_same_dataset():
    ds = D.range(3).prefetch(rt.data.AUTOTUNE).cache().apply(lambda d: d.map(lambda x: x + 1))
    assert values(ds) == [1, 2, 3]


# -- shuffle ---------------------------------------------------------------------------------


def test_shuffle_is_a_permutation_that_respects_the_buffer():
    rt.random.set_seed(7)
    order = values(D.range(50).shuffle(5, seed=3))
    assert sorted(order) == list(range(50))
    # With a buffer of 5, the element emitted k-th was among the first k + 5 elements.
    assert all(value < k + 5 for k, value in enumerate(order))
    assert values(D.range(10).shuffle(1, seed=3)) == list(range(10))


def test_shuffle_is_deterministic_given_seeds_and_reshuffles_each_iteration():
    rt.random.set_seed(1)
    ds = D.range(20).shuffle(20, seed=5)
    first, second = values(ds), values(ds)
    assert first != second and sorted(first) == sorted(second) == list(range(20))
    rt.random.set_seed(1)
    again = D.range(20).shuffle(20, seed=5)
    assert values(again) == first and values(again) == second


def test_datasets_shuffled_alike_give_the_same_orders_each_iteration():
    # TensorFlow: each dataset has its own seed generator, so a second dataset made with the
    # same seed repeats the first one's orders (it drew the next ones of a shared stream).
    first, second = D.range(12).shuffle(12, seed=42), D.range(12).shuffle(12, seed=42)
    orders = [values(first), values(second), values(first), values(second)]
    assert orders[0] == orders[1] and orders[2] == orders[3] and orders[0] != orders[2]
    assert values(D.range(12).shuffle(12, seed=42)) == orders[0]


def test_shuffle_without_reshuffling_repeats_its_order():
    ds = D.range(20).shuffle(8, seed=5, reshuffle_each_iteration=False)
    order = values(ds)
    assert values(ds) == order and order != list(range(20))
    assert values(ds.repeat(2)) == order + order


def test_shuffle_with_only_the_global_seed_is_reproducible():
    rt.random.set_seed(11)
    a = values(D.range(30).shuffle(30))
    rt.random.set_seed(11)
    assert values(D.range(30).shuffle(30)) == a


def test_shuffle_repeat_reshuffles_each_epoch():
    rt.random.set_seed(2)
    order = values(D.range(10).shuffle(10, seed=1).repeat(2))
    assert sorted(order[:10]) == sorted(order[10:]) == list(range(10))
    assert order[:10] != order[10:]


# -- consuming -------------------------------------------------------------------------------


def test_reduce():
    assert D.range(5).reduce(np.int64(0), lambda s, x: s + x).numpy() == 10
    state = D.from_tensor_slices([1.0, 2.0, 3.0]).reduce(
        (0.0, {"n": 0}), lambda s, x: (s[0] + x, {"n": s[1]["n"] + 1}))
    assert state[0].numpy() == 6.0 and state[1]["n"].numpy() == 3
    assert state[0].dtype == rt.float32 and state[1]["n"].dtype == rt.int32


def test_reduce_refuses_a_state_that_changes_dtype():
    with pytest.raises(TypeError, match="changed a state component from int32 to int64"):
        D.range(3).reduce(0, lambda s, x: s + x)


def test_iter_next_and_stop_iteration():
    it = iter(D.range(2))
    assert next(it).numpy() == 0 and it.get_next().numpy() == 1
    with pytest.raises(StopIteration):
        next(it)
    x = next(iter(D.from_tensor_slices([1.5])))
    assert isinstance(x, rt.Tensor) and x.dtype == rt.float32 and x.shape == ()


def test_as_numpy_iterator_gives_numpy_scalars_and_arrays():
    first = next(D.from_tensor_slices(([1, 2], [[1.0], [2.0]])).as_numpy_iterator())
    assert isinstance(first[0], np.int32) and isinstance(first[1], np.ndarray)


CARDINALITIES = [  # (dataset, TensorFlow's cardinality)
    (lambda: D.range(10).batch(3), 4),
    (lambda: D.range(10).batch(3, drop_remainder=True), 3),
    (lambda: D.range(0).repeat(), 0),
    (lambda: D.range(3).repeat(), rt.data.INFINITE_CARDINALITY),
    (lambda: D.range(3).repeat(4), 12),
    (lambda: D.range(3).filter(lambda x: x > 0), rt.data.UNKNOWN_CARDINALITY),
    (lambda: D.range(3).filter(lambda x: x > 0).take(2), rt.data.UNKNOWN_CARDINALITY),
    (lambda: D.range(3).repeat().take(5), 5),
    (lambda: D.range(3).repeat().skip(5), rt.data.INFINITE_CARDINALITY),
    (lambda: D.range(10).skip(-1), 0),
    (lambda: D.range(10).skip(3), 7),
    (lambda: D.range(10).take(-1), 10),
    (lambda: D.range(6).batch(2).unbatch(), rt.data.UNKNOWN_CARDINALITY),
    (lambda: D.range(6).batch(4, drop_remainder=True).unbatch(), 4),
    (lambda: D.zip(D.range(3), D.range(3).repeat()), 3),
    (lambda: D.zip(D.range(3), D.range(3).filter(lambda x: x > 0)), rt.data.UNKNOWN_CARDINALITY),
    (lambda: D.range(3).concatenate(D.range(3).repeat()), rt.data.INFINITE_CARDINALITY),
    (lambda: D.range(3).concatenate(D.range(4)), 7),
    (lambda: D.range(3).shuffle(2).map(lambda x: x).enumerate().prefetch(1), 3),
    (lambda: D.range(3).flat_map(lambda x: D.range(x)), rt.data.UNKNOWN_CARDINALITY),
]


@pytest.mark.parametrize("make, expected", CARDINALITIES)
def test_cardinality_follows_tensorflow(make, expected):
    card = make().cardinality()
    assert card.dtype == rt.int64 and card.numpy() == expected
    assert rt.data.experimental.cardinality(make()).numpy() == expected


def test_len_and_its_errors():
    assert len(D.range(10).batch(3)) == 4
    with pytest.raises(TypeError, match=re.escape("The dataset is infinite.")):
        len(D.range(3).repeat())
    with pytest.raises(TypeError, match=re.escape("The dataset length is unknown.")):
        len(D.range(3).filter(lambda x: x > 0))
    assert bool(D.range(0))


def test_constants():
    assert rt.data.AUTOTUNE == rt.data.experimental.AUTOTUNE == -1
    assert rt.data.INFINITE_CARDINALITY == -1 and rt.data.UNKNOWN_CARDINALITY == -2


def test_python_iteration_inside_a_trace_unrolls_with_constants():
    ds = D.range(4).map(lambda x: x * 2)

    @rt.function
    def total():
        s = rt.constant(0, rt.int64)
        for x in ds:
            s = s + x
        return s

    assert total().numpy() == 12


def test_python_iteration_of_a_dataset_of_symbolic_tensors_says_how_to_fix():
    @rt.function
    def f(x):
        return [e for e in D.from_tensor_slices(x)]

    with pytest.raises(TypeError, match="holds symbolic tensors.*transpiler.function"):
        f(rt.constant([1, 2]))


def test_dataset_functions_pass_through_the_registered_converter():
    seen = []

    def converter(fn):
        seen.append(fn)
        return lambda *args: fn(*args) + 1

    previous = conversion._converter
    conversion.set_converter(converter)
    try:
        ds = D.range(3).map(lambda x: x * 10)
    finally:
        conversion.set_converter(previous)
    assert values(ds) == [1, 11, 21] and len(seen) == 1
    assert values(D.range(2).map(lambda x: x)) == [0, 1]


def test_against_tensorflow():
    tf = pytest.importorskip("tensorflow")
    pipelines = [
        lambda d: d.range(10).map(lambda x: x * 2).filter(lambda x: x % 3 != 0).batch(2),
        lambda d: d.zip((d.range(5), d.range(3).repeat())).enumerate(1).skip(1).take(3),
        lambda d: d.from_tensor_slices({"a": [[1, 2], [3, 4]], "b": [0.5, 1.5]}).repeat(2),
        lambda d: d.range(1, 4).map(lambda x: d.range(x).reduce(x * 0, lambda s, y: s + y)),
    ]
    for make in pipelines:
        assert values(make(D)) == [_plain(e) for e in make(tf.data.Dataset).as_numpy_iterator()]
