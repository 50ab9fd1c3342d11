"""The tf.data methods added after the first set: ``from_generator``, ``window``,
``interleave``, ``take_while``, ``shard``, ``scan``, ``unique``, ``counter``,
``get_single_element``, ``choose_from_datasets`` and ``with_options``.

Expected values were taken from TensorFlow 2.21 (the same pipelines run with ``import
tensorflow as tf``); the tests carry them. Staged forms are checked against the same pipeline
iterated in Python (``assert_same`` of ``test_data_graph``).
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import runtime as rt
from tests.runtime.test_data import values
from tests.runtime.test_data_graph import assert_same

D = rt.data.Dataset
batched = lambda w: w.batch(100)  # noqa: E731 - a window as one tensor


# -- from_generator ----------------------------------------------------------------------------


def _pairs():
    for i in range(3):
        yield i, [1.0 * i] * i


PAIRS = [(0, []), (1, [1.0]), (2, [2.0, 2.0])]


def test_from_generator_with_output_signature():
    ds = D.from_generator(_pairs, output_signature=(rt.TensorSpec((), rt.int32),
                                                    rt.TensorSpec((None,), rt.float32)))
    assert values(ds) == PAIRS
    assert ds.element_spec == (rt.TensorSpec((), rt.int32), rt.TensorSpec((None,), rt.float32))
    assert ds.cardinality().numpy() == rt.data.UNKNOWN_CARDINALITY
    assert values(ds) == PAIRS  # each iteration calls the generator anew


def test_from_generator_with_output_types_and_shapes():
    ds = D.from_generator(_pairs, output_types=(rt.int64, rt.float32))
    assert values(ds) == PAIRS
    assert ds.element_spec == (rt.TensorSpec(None, rt.int64), rt.TensorSpec(None, rt.float32))
    ds = D.from_generator(_pairs, (rt.int64, rt.float32), ((), (None,)))
    assert ds.element_spec == (rt.TensorSpec((), rt.int64), rt.TensorSpec((None,), rt.float32))
    assert values(ds.map(lambda i, x: i * 2).batch(2)) == [[0, 2], [4]]


@pytest.mark.parametrize("yielded, dtype, expected", [
    (1, rt.float32, 1.0), (1.5, rt.int32, 1), (np.float64(1.5), rt.float32, 1.5),
    (True, rt.int32, 1), (np.array([1], np.int32), rt.int64, [1]),
    ([0.5, 0.25], rt.float32, [0.5, 0.25]), (2 ** 40, rt.int32, 0),
])
def test_from_generator_converts_as_tensorflow(yielded, dtype, expected):
    """np.asarray(value).astype(dtype), as TensorFlow converts (even when it truncates)."""
    shape = np.shape(yielded)
    ds = D.from_generator(lambda: iter([yielded]), output_signature=rt.TensorSpec(shape, dtype))
    (element,) = list(ds)
    assert element.dtype == dtype and element.numpy().tolist() == expected


def test_from_generator_dicts_and_args():
    ds = D.from_generator(lambda: iter([{"a": 1, "b": [2.0]}]), output_signature={
        "a": rt.TensorSpec((), rt.int32), "b": rt.TensorSpec((1,), rt.float32)})
    assert values(ds) == [{"a": 1, "b": [2.0]}]
    seen = []

    def gen(n, scale):
        seen.append((type(n), type(scale)))
        yield from (i * scale for i in range(n))

    ds = D.from_generator(gen, args=(3, 2.0), output_signature=rt.TensorSpec((), rt.float32))
    assert values(ds) == [0.0, 2.0, 4.0]
    assert seen == [(np.int32, np.float32)]  # NumPy values, as TensorFlow passes them


@pytest.mark.parametrize("yielded, spec, message", [
    ([[1, 2]], (rt.TensorSpec((), rt.int32),) * 2, "Yield a tuple (not a list)"),
    ([(1, 2, 3)], (rt.TensorSpec((), rt.int32),) * 2, "does not have the signature's structure"),
    ([{"a": 1}], {"a": rt.TensorSpec((), rt.int32), "b": rt.TensorSpec((), rt.int32)},
     "a dict with the same keys"),
    ([[]], rt.TensorSpec((2,), rt.float32), "an element of shape (0,) where the signature "
                                             "expects shape (2,)"),
    ([1], rt.TensorSpec((1,), rt.int32), "shape () where the signature expects shape (1,)"),
    ([None], rt.TensorSpec((), rt.int32), "yielded None, which cannot be converted to int32"),
])
def test_from_generator_refuses_what_tensorflow_refuses(yielded, spec, message):
    ds = D.from_generator(lambda: iter(yielded), output_signature=spec)
    with pytest.raises(rt.errors.InvalidArgumentError, match=re.escape(message)):
        list(ds)


@pytest.mark.parametrize("kwargs, message", [
    ({}, "needs the elements' types: give output_signature"),
    ({"output_types": rt.int32, "output_signature": rt.TensorSpec((), rt.int32)},
     "give output_signature alone"),
    ({"output_signature": rt.int32}, "must be a structure of tf.TensorSpec"),
    ({"output_types": (rt.int32, rt.int32), "output_shapes": ((),)},
     "give one shape per type"),
])
def test_from_generator_argument_errors(kwargs, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        D.from_generator(lambda: iter([1]), **kwargs)
    with pytest.raises(TypeError, match=re.escape("Pass the function itself")):
        D.from_generator(iter([1]), output_signature=rt.TensorSpec((), rt.int32))


def test_from_generator_in_a_traced_function_says_it_cannot_be_staged():
    ds = D.from_generator(lambda: iter([1, 2, 3]), output_signature=rt.TensorSpec((), rt.int32))

    @rt.function
    def total():
        return rt.data.dataset_loop(ds, lambda e, s: s + e, (rt.constant(0),))

    with pytest.raises(rt.data.StagingError, match=re.escape(
            "from_generator runs Python code for each element")):
        total()
    assert ds.reduce(0, lambda s, e: s + e).numpy() == 6  # eagerly it runs


# -- window ------------------------------------------------------------------------------------


@pytest.mark.parametrize("n, args, expected, card", [
    (7, (3,), [[0, 1, 2], [3, 4, 5], [6]], 3),
    (7, (3, None, 1, True), [[0, 1, 2], [3, 4, 5]], 2),
    (7, (3, 2), [[0, 1, 2], [2, 3, 4], [4, 5, 6], [6]], 4),
    (7, (3, 2, 1, True), [[0, 1, 2], [2, 3, 4], [4, 5, 6]], 3),
    (7, (2, 3, 2), [[0, 2], [3, 5], [6]], 3),
    (7, (2, 1, 3, True), [[0, 3], [1, 4], [2, 5], [3, 6]], 4),
    (7, (3, 5), [[0, 1, 2], [5, 6]], 2),
    (5, (2, 3, 2), [[0, 2], [3]], 2),
    (1, (3, None, 1, True), [], 0),
    (0, (3,), [], 0),
])
def test_window_as_tensorflow(n, args, expected, card):
    ds = D.range(n).window(*args)
    assert ds.cardinality().numpy() == card
    assert values(ds.flat_map(batched)) == expected


def test_window_of_tuples_gives_a_dataset_per_component():
    ds = D.from_tensor_slices(([1, 2, 3], [1.0, 2.0, 3.0])).window(2)
    spec = ds.element_spec
    assert spec == (rt.data.DatasetSpec(rt.TensorSpec((), rt.int32), None),
                    rt.data.DatasetSpec(rt.TensorSpec((), rt.float32), None))
    a, b = next(iter(ds))
    assert values(a) == [1, 2] and values(b) == [1.0, 2.0] and a.cardinality().numpy() == 2
    zipped = ds.flat_map(lambda a, b: D.zip((a.batch(2), b.batch(2))))
    assert values(zipped) == [([1, 2], [1.0, 2.0]), ([3], [3.0])]
    assert zipped.element_spec == (rt.TensorSpec((None,), rt.int32),
                                   rt.TensorSpec((None,), rt.float32))


def test_window_of_an_infinite_dataset_reads_only_what_it_needs():
    ds = D.range(3).repeat().window(2)
    assert ds.cardinality().numpy() == rt.data.INFINITE_CARDINALITY
    assert values(ds.take(2).flat_map(batched)) == [[0, 1], [2, 0]]


@pytest.mark.parametrize("args, name", [((0,), "size"), ((2, 0), "shift"), ((2, 1, 0), "stride")])
def test_window_refuses_non_positive_parameters(args, name):
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=re.escape(f"Dataset.window: {name} must be positive, got 0.")):
        D.range(5).window(*args)


def _windows_model(n, size, shift, stride, drop):
    """Window k: indices k*shift + j*stride < n for j < size; all-full if drop."""
    out = []
    for start in range(0, n, shift):
        window = [i for i in range(start, start + size * stride, stride) if i < n]
        if not drop or len(window) == size:
            out.append(window)
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 12), st.integers(1, 4), st.one_of(st.none(), st.integers(1, 5)),
       st.integers(1, 3), st.booleans())
def test_window_against_a_model(n, size, shift, stride, drop):
    ds = D.range(n).window(size, shift, stride, drop)
    expected = _windows_model(n, size, size if shift is None else shift, stride, drop)
    assert values(ds.flat_map(batched)) == expected
    assert ds.cardinality().numpy() == len(expected)


# -- interleave --------------------------------------------------------------------------------


def _repeated(x):
    return D.from_tensors(x).repeat(x)


@pytest.mark.parametrize("cycle, block, expected", [
    (2, 1, [1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 5, 5]),
    (3, 2, [1, 2, 2, 3, 3, 4, 4, 3, 4, 4, 5, 5, 5, 5, 5]),
    (1, 1, [1, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5]),
    (10, 1, [1, 2, 3, 4, 5, 2, 3, 4, 5, 3, 4, 5, 4, 5, 5]),
])
def test_interleave_order_as_tensorflow(cycle, block, expected):
    ds = D.range(1, 6).interleave(_repeated, cycle_length=cycle, block_length=block)
    assert values(ds) == expected
    assert ds.cardinality().numpy() == rt.data.UNKNOWN_CARDINALITY
    assert ds.element_spec == rt.TensorSpec((), rt.int64)


def test_interleave_with_empty_datasets_and_tuples():
    assert values(D.range(4).interleave(lambda x: D.range(x), cycle_length=2)) == [
        0, 0, 1, 0, 1, 2]
    ds = D.from_tensor_slices(([1, 2], [3, 4]))
    assert values(ds.interleave(lambda a, b: D.from_tensor_slices([a, b]), cycle_length=2)) == [
        1, 2, 3, 4]


def test_interleave_defaults_to_the_cpu_count_as_tensorflow(monkeypatch):
    from runtime.data import combining
    monkeypatch.setattr(combining, "default_cycle_length", lambda: 2)
    ds = D.range(1, 6).interleave(lambda x: D.from_tensors(x).repeat(3), block_length=2)
    assert values(ds) == [1, 1, 2, 2, 1, 2, 3, 3, 4, 4, 3, 4, 5, 5, 5]
    ds = D.range(1, 6).interleave(_repeated, num_parallel_calls=rt.data.AUTOTUNE)
    assert values(ds) == [1, 2, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 5, 5]


def test_interleave_errors():
    with pytest.raises(rt.errors.InvalidArgumentError, match="cycle_length must be positive"):
        D.range(3).interleave(lambda x: D.range(x), cycle_length=0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="block_length must be positive"):
        D.range(3).interleave(lambda x: D.range(x), cycle_length=1, block_length=0)
    with pytest.raises(TypeError, match=re.escape(
            "Dataset.interleave: map_func must return a dataset, got EagerTensor.")):
        list(D.range(3).interleave(lambda x: x, cycle_length=2))


# -- take_while, shard, scan, unique, counter ----------------------------------------------------


def test_take_while():
    assert values(D.range(10).take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert values(D.range(10).repeat().take_while(lambda x: x < 4)) == [0, 1, 2, 3]
    assert D.range(0).take_while(lambda x: x < 4).cardinality().numpy() == -2
    with pytest.raises(ValueError, match=re.escape(
            "Dataset.take_while: the predicate must return a scalar bool tensor, got a int64")):
        list(D.range(3).take_while(lambda x: x))


@pytest.mark.parametrize("n, shards, index, expected", [
    (7, 3, 0, [0, 3, 6]), (7, 3, 2, [2, 5]), (7, 2, 1, [1, 3, 5]), (7, 1, 0, list(range(7))),
    (7, 5, 4, [4]), (0, 3, 0, []),
])
def test_shard(n, shards, index, expected):
    ds = D.range(n).shard(shards, index)
    assert values(ds) == expected and ds.cardinality().numpy() == len(expected)


def test_shard_cardinality_and_errors():
    assert D.range(5).repeat().shard(2, 1).cardinality().numpy() == -1
    assert D.range(5).filter(lambda x: x > 1).shard(2, 1).cardinality().numpy() == -2
    with pytest.raises(rt.errors.InvalidArgumentError, match="num_shards must be positive"):
        D.range(5).shard(0, 0)
    for index in (2, -1):
        with pytest.raises(rt.errors.InvalidArgumentError,
                           match=re.escape("index must be between 0 and num_shards - 1 = 1")):
            D.range(5).shard(2, index)


def test_scan():
    ds = D.range(5).scan(np.int64(0), lambda s, x: (s + x, s * 2))
    assert values(ds) == [0, 0, 2, 6, 12] and ds.cardinality().numpy() == 5
    ds = D.from_tensor_slices(([1, 2, 3], [1.0, 2.0, 3.0])).scan(0, lambda s, e: (s + e[0], e[1]))
    assert values(ds) == [1.0, 2.0, 3.0] and ds.element_spec == rt.TensorSpec((), rt.float32)
    assert values(D.range(5).scan(0.0, lambda s, x: (s + 1, s))) == [0.0, 1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize("initial, fn, message", [
    ((0, 0), lambda s, x: (s[0], s), "returned a state of structure *, but the initial state "
                                     "is (*, *)"),
    (0, lambda s, x: (rt.cast(s, rt.int64) + x, s), "changed a state component from int32 to "
                                                    "int64"),
    (0, lambda s, x: s, "must return a pair (new_state, output_element)"),
])
def test_scan_errors(initial, fn, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        list(D.range(3).scan(initial, fn))


def test_unique():
    assert values(D.from_tensor_slices([1, 3, 1, 2, 3, 5]).unique()) == [1, 3, 2, 5]
    assert values(D.from_tensor_slices([[1, 2], [1, 2], [2, 1]]).unique()) == [[1, 2], [2, 1]]
    assert D.from_tensor_slices([1, 1]).unique().cardinality().numpy() == -2
    with pytest.raises(TypeError, match="supports int32 and int64 elements, got float32"):
        D.from_tensor_slices([1.0]).unique()
    with pytest.raises(TypeError, match="must be single tensors"):
        D.from_tensor_slices(([1], [2])).unique()


def test_counter():
    assert values(D.counter().take(3)) == [0, 1, 2]
    assert values(D.counter(5, -2).take(3)) == [5, 3, 1]
    ds = D.counter(5, 2, dtype=rt.int32)
    assert ds.element_spec == rt.TensorSpec((), rt.int32) and values(ds.take(3)) == [5, 7, 9]
    assert D.counter().cardinality().numpy() == rt.data.INFINITE_CARDINALITY


def test_get_single_element():
    assert D.range(1).get_single_element().numpy() == 0
    a, b = rt.data.experimental.get_single_element(D.from_tensors((1, 2.0)))
    assert a.dtype == rt.int32 and b.numpy() == 2.0
    for n, what in ((0, "is empty"), (2, "has more than one element")):
        with pytest.raises(rt.errors.InvalidArgumentError, match=re.escape(
                f"the dataset {what}; it must have exactly one element")):
            D.range(n).get_single_element()


def test_choose_from_datasets():
    pick = lambda *c: D.from_tensor_slices(np.array(c, np.int64))  # noqa: E731
    two = [D.range(1), D.range(10, 13)]
    assert values(D.choose_from_datasets([D.range(3), D.range(10, 13)], pick(0, 1, 1, 0))) == [
        0, 10, 11, 1]
    assert values(D.choose_from_datasets(two, pick(0, 0, 1, 1))) == [0]
    assert values(D.choose_from_datasets(two, pick(0, 0, 1, 1), False)) == [0, 10, 11]
    with pytest.raises(rt.errors.InvalidArgumentError, match="choice_dataset gave 5"):
        list(D.choose_from_datasets(two, pick(0, 5)))
    with pytest.raises(TypeError, match="must be scalar int64 tensors"):
        D.choose_from_datasets(two, D.from_tensor_slices([0, 1]))


def test_with_options_records_options_and_changes_nothing():
    options = rt.data.Options()
    options.experimental_deterministic = False
    options.experimental_distribute.auto_shard_policy = rt.data.experimental.AutoShardPolicy.DATA
    options.threading.private_threadpool_size = 4
    ds = D.range(3).with_options(options).map(lambda x: x + 1)
    assert values(ds) == [1, 2, 3]
    assert ds.options().deterministic is False
    assert ds.options().threading.private_threadpool_size == 4
    later = rt.data.Options()
    later.threading.private_threadpool_size = 8
    assert ds.with_options(later).options().threading.private_threadpool_size == 8
    assert ds.with_options(later).options().deterministic is False
    with pytest.raises(AttributeError, match="Cannot set the property foo on Options"):
        options.foo = 1


# -- in graph loops ------------------------------------------------------------------------------

STAGED = {
    "take_while": (lambda: D.range(10).take_while(lambda x: x < 4), [4, [0, 1, 2, 3]]),
    "take_while_forever": (lambda: D.range(3).repeat().map(lambda x: x * 2).take_while(
        lambda x: x < 4), [2, [0, 2]]),
    "take_while_after_filter": (lambda: D.range(10).filter(lambda x: x % 2 == 1).take_while(
        lambda x: x < 6), [3, [1, 3, 5]]),
    "shard": (lambda: D.range(7).shard(3, 1), [2, [1, 4]]),
    "shard_batch": (lambda: D.range(10).shard(2, 0).batch(2), [3, [0, 2, 4, 6, 8]]),
    "shard_after_filter": (lambda: D.range(12).filter(lambda x: x % 3 != 0).shard(2, 1),
                           [4, [2, 5, 8, 11]]),
    "scan": (lambda: D.range(5).scan(np.int64(0), lambda s, x: (s + x, s * 2)),
             [5, [0, 0, 2, 6, 12]]),
    "scan_tuple_state": (lambda: D.from_tensor_slices([1.0, 2.0, 3.0]).scan(
        (0.0, np.int64(0)), lambda s, x: ((s[0] + x, s[1] + 1), s[0] / rt.cast(s[1] + 1,
                                                                               rt.float32))),
        [3, [0.0, 0.5, 1.0]]),
    "counter": (lambda: D.counter(3, 2).take(4), [4, [3, 5, 7, 9]]),
    "with_options": (lambda: D.range(3).with_options(rt.data.Options()), [3, [0, 1, 2]]),
}


@pytest.mark.parametrize("name", sorted(STAGED))
def test_staged_forms_give_the_eager_elements(name):
    make, expected = STAGED[name]
    assert assert_same(make) == expected


@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")  # a trace per example
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10), st.integers(1, 4), st.data(), st.booleans())
def test_staged_shard_against_a_model(n, shards, data, filtered):
    index = data.draw(st.integers(0, shards - 1))

    def make():
        ds = D.range(n)
        return (ds.filter(lambda x: x % 2 == 0) if filtered else ds).shard(shards, index)

    kept = [x for x in range(n) if not filtered or x % 2 == 0][index::shards]
    assert assert_same(make) == [len(kept), kept]


def test_get_single_element_in_a_traced_function():
    @rt.function(input_signature=[rt.TensorSpec((None,), rt.int32)])
    def first(x):  # the length is a tensor: checked when the graph runs
        return D.from_tensor_slices(x).map(lambda v: v * 2).get_single_element()

    assert first(rt.constant([21])).numpy() == 42
    with pytest.raises(rt.errors.InvalidArgumentError, match="does not have one element"):
        first(rt.constant([1, 2]))

    @rt.function
    def empty():
        return D.range(0).get_single_element()

    with pytest.raises(rt.errors.InvalidArgumentError, match="the dataset is empty"):
        empty()


@pytest.mark.parametrize("make, message", [
    (lambda: D.range(5).window(2).flat_map(batched), "flat_map has no graph form yet"),
    (lambda: D.range(5).window(2), "window makes elements that are datasets"),
    (lambda: D.range(3).interleave(lambda x: D.range(x), cycle_length=2),
     "interleave has no graph form yet"),
    (lambda: D.from_tensor_slices([1, 1]).unique(), "unique remembers every element"),
    (lambda: D.choose_from_datasets([D.range(2)], D.range(2)), "choose_from_datasets has no"),
    (lambda: D.range(3).scan(np.int64(0), lambda s, x: (s + x, x)).repeat(2),
     "Move repeat before"),
])
def test_unstaged_forms_say_why_and_what_to_do(make, message):
    with pytest.raises(rt.data.StagingError, match=re.escape(message)):
        rt.data.staged(make())


def test_group_by_window_takes_one_window_size_and_is_not_staged():
    numbers = rt.data.Dataset.range(6)
    for sizes in ({}, {"window_size": 2, "window_size_func": lambda key: 2}):
        with pytest.raises(ValueError, match="exactly one of window_size and window_size_func"):
            numbers.group_by_window(lambda x: x % 2, lambda key, w: w.batch(2), **sizes)
    with pytest.raises(rt.errors.InvalidArgumentError, match="scalar integer tensor"):
        list(numbers.group_by_window(lambda x: x * 1.5, lambda key, w: w, window_size=2))
    grouped = numbers.group_by_window(lambda x: x % 2, lambda key, w: w.batch(2), window_size=2)

    @rt.function
    def total():
        return rt.data.dataset_loop(grouped, lambda e, s: s + rt.reduce_sum(e),
                                    (rt.constant(np.int64(0)),))
    with pytest.raises(rt.data.StagingError, match="group_by_window gives windows that are "
                                                   "datasets"):
        total()
    with pytest.raises(ValueError, match="one entry per bucket"):
        numbers.bucket_by_sequence_length(lambda x: 1, [2, 4], [1, 2])


# -- assert_cardinality ------------------------------------------------------------------------


def test_assert_cardinality_gives_the_count_and_checks_it_while_iterating():
    checked = D.range(6).filter(lambda x: x % 2 == 0).apply(
        rt.data.experimental.assert_cardinality(3))
    assert int(checked.cardinality()) == 3 and values(checked) == [0, 2, 4]
    for claimed, found in ((2, "at least 3"), (4, "only 3")):
        wrong = D.from_tensor_slices(np.array([1.5, 2.5, 3.5])).apply(
            rt.data.experimental.assert_cardinality(claimed))
        with pytest.raises(rt.errors.FailedPreconditionError, match=f"holds {found} elements"):
            values(wrong)
    endless = D.range(2).apply(
        rt.data.experimental.assert_cardinality(rt.data.INFINITE_CARDINALITY))
    assert int(endless.cardinality()) == rt.data.INFINITE_CARDINALITY
    with pytest.raises(rt.errors.FailedPreconditionError, match="holds only 2 elements"):
        values(endless)


def test_assert_cardinality_in_a_graph_loop():
    assert_same(lambda: D.range(4, output_type=rt.int32).apply(
        rt.data.experimental.assert_cardinality(4)))
    unknown = D.range(4).filter(lambda x: x > 0).apply(
        rt.data.experimental.assert_cardinality(3))
    with pytest.raises(rt.data.StagingError, match="whose length is unknown"):
        rt.data.staged(unknown)
    with pytest.raises(rt.errors.FailedPreconditionError, match="holds only 4 elements"):
        rt.data.staged(D.range(4).apply(rt.data.experimental.assert_cardinality(5)))


# -- save and load -----------------------------------------------------------------------------


def test_save_and_load_keep_structure_dtypes_and_values(tmp_path):
    ds = D.range(4).map(lambda x: {"x": rt.cast(x, rt.float64) * 1.5,
                                   "pair": (rt.cast(x, rt.int32), rt.fill([2], x))})
    ds.save(str(tmp_path / "plain"))
    loaded = D.load(str(tmp_path / "plain"), element_spec=ds.element_spec)
    assert loaded.element_spec == ds.element_spec and int(loaded.cardinality()) == 4
    assert values(loaded) == values(ds)
    assert [e["pair"][1].dtype for e in loaded.as_numpy_iterator()] == [np.int64] * 4
    assert_same(lambda: D.load(str(tmp_path / "plain")))


def test_save_and_load_elements_of_varying_shapes(tmp_path):
    batches = D.from_tensor_slices((np.arange(10.0).reshape(5, 2), np.arange(5))).batch(2)
    batches.save(str(tmp_path / "batches"), compression="GZIP")
    loaded = D.load(str(tmp_path / "batches"))
    assert [spec.shape for spec in loaded.element_spec] == [(None, 2), (None,)]
    assert [(x.tolist(), y.tolist()) for x, y in loaded.as_numpy_iterator()] == \
        [(x.tolist(), y.tolist()) for x, y in batches.as_numpy_iterator()]
    assert_same(lambda: D.load(str(tmp_path / "batches")))
    sequences = D.range(1, 4).map(lambda n: rt.range(n))
    sequences.save(str(tmp_path / "sequences"))
    assert [v.tolist() for v in D.load(str(tmp_path / "sequences")).as_numpy_iterator()] == \
        [[0], [0, 1], [0, 1, 2]]
    D.range(3).filter(lambda x: x > 5).save(str(tmp_path / "empty"))
    assert values(D.load(str(tmp_path / "empty"))) == []


def test_save_and_load_refuse_what_they_cannot_do(tmp_path):
    with pytest.raises(ValueError, match="infinite"):
        D.range(2).repeat().save(str(tmp_path / "endless"))
    with pytest.raises(TypeError, match="dataset of datasets"):
        D.range(4).window(2).save(str(tmp_path / "windows"))
    with pytest.raises(FileNotFoundError, match="holds no dataset.json"):
        D.load(str(tmp_path))
    D.range(3).save(str(tmp_path / "ints"))
    with pytest.raises(ValueError, match="does not describe the saved elements"):
        D.load(str(tmp_path / "ints"), element_spec=rt.TensorSpec([], rt.float32))


@pytest.mark.parametrize("damage", ["spec", "dtype", "arrays", "mismatch"])
def test_load_refuses_damaged_directories_clearly(tmp_path, damage):
    import json
    D.range(3).save(str(tmp_path))
    spec_file, arrays_file = tmp_path / "dataset.json", tmp_path / "elements.npz"
    saved = json.loads(spec_file.read_text())
    if damage == "spec":
        spec_file.write_text('{"format": "eager2graph-dataset-1", "spec": 7}')
    elif damage == "dtype":  # an object dtype would need unpickling
        saved["spec"]["dtype"] = "O"
        spec_file.write_text(json.dumps(saved))
    elif damage == "arrays":
        arrays_file.write_bytes(arrays_file.read_bytes()[:40])
    else:
        saved["spec"]["dtype"] = "float32"
        spec_file.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match="damaged|not one a dataset saves"):
        D.load(str(tmp_path))


def test_the_experimental_names_of_save_and_load(tmp_path):
    rt.data.experimental.save(D.range(3, output_type=rt.int32), str(tmp_path / "old"))
    assert values(rt.data.experimental.load(str(tmp_path / "old"))) == [0, 1, 2]
