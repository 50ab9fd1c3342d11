"""rt.data in graph loops: ``rt.data.dataset_loop`` (and ``staged``, ``reduce``) inside
``rt.function`` against the same pipelines iterated in Python.

Each pipeline's elements are collected by the loop body into one flat vector per component
(plus a count), in a graph and eagerly; the two must agree exactly, including the order of a
shuffle (both draw from the same seed pair).
"""

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import runtime as rt
from runtime.data import structure

D = rt.data.Dataset


def _collector(spec):
    leaves = structure.flatten(spec)
    state = (rt.constant(0, rt.int64),) + tuple(rt.zeros([0], s.dtype) for s in leaves)
    invariants = [None] + [(None,)] * len(leaves)

    def body(element, count, *accumulated):
        parts = structure.flatten(element)
        return (count + 1,) + tuple(rt.concat([a, rt.reshape(p, [-1])], 0)
                                    for a, p in zip(accumulated, parts))

    return body, state, invariants


def _outcome(fn, *args):
    try:
        return [t.numpy().tolist() for t in fn(*args)]
    except rt.errors.InvalidArgumentError as error:  # e.g. a batch of unequal shapes
        return type(error)


def assert_same(make, *args, extra_test=None):
    """The count and the flattened components of every element, the same in a graph loop
    and eagerly (or the same InvalidArgumentError in both)."""

    def run(*args):
        ds = make(*args)
        body, state, invariants = _collector(ds.element_spec)
        return rt.data.dataset_loop(ds, body, state, extra_test, shape_invariants=invariants)

    graph = _outcome(rt.function(run), *args)
    assert graph == _outcome(run, *args)
    return graph


I64 = lambda v: rt.constant(v, rt.int64)  # noqa: E731

PIPELINES = {
    "range": (lambda: D.range(7), [7, [0, 1, 2, 3, 4, 5, 6]]),
    "range_step": (lambda: D.range(2, 20, 5), [4, [2, 7, 12, 17]]),
    "range_down": (lambda: D.range(10, 0, -3), [4, [10, 7, 4, 1]]),
    "range_int32": (lambda: D.range(3, output_type=rt.int32), [3, [0, 1, 2]]),
    "slices_float32": (lambda: D.from_tensor_slices([1.5, 2.5]), [2, [1.5, 2.5]]),
    "slices_float64_rows": (lambda: D.from_tensor_slices(np.arange(6.0).reshape(3, 2)),
                            [3, [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]),
    "from_tensors": (lambda: D.from_tensors(([1, 2], 3.0)), [1, [1, 2], [3.0]]),
    "map": (lambda: D.range(4).map(lambda x: x * x), [4, [0, 1, 4, 9]]),
    "map_tuple": (lambda: D.from_tensor_slices(([1, 2], [3.0, 4.0])).map(
        lambda a, b: rt.cast(a, rt.float32) * b), [2, [3.0, 8.0]]),
    "filter": (lambda: D.range(10).filter(lambda x: x % 3 == 0), [4, [0, 3, 6, 9]]),
    "filter_map_take": (lambda: D.range(20).map(lambda x: x * 2).filter(
        lambda x: x % 3 != 0).take(4), [4, [2, 4, 8, 10]]),
    "filter_skip_enumerate": (lambda: D.range(10).filter(lambda x: x % 2 == 0).skip(2)
                              .enumerate(1), [3, [1, 2, 3], [4, 6, 8]]),
    "take_skip": (lambda: D.range(10).skip(3).take(4), [4, [3, 4, 5, 6]]),
    "skip_all": (lambda: D.range(5).skip(-1), [0, []]),
    "take_more_than_there_is": (lambda: D.range(3).take(10), [3, [0, 1, 2]]),
    "enumerate": (lambda: D.from_tensor_slices([5.0, 6.0]).enumerate(3), [2, [3, 4], [5.0, 6.0]]),
    "repeat": (lambda: D.range(3).repeat(2), [6, [0, 1, 2, 0, 1, 2]]),
    "repeat_forever_take": (lambda: D.range(2).repeat().take(5), [5, [0, 1, 0, 1, 0]]),
    "repeat_filtered": (lambda: D.range(5).filter(lambda x: x > 2).repeat(2), [4, [3, 4, 3, 4]]),
    "batch": (lambda: D.range(7).batch(3), [3, [0, 1, 2, 3, 4, 5, 6]]),
    "batch_drop": (lambda: D.range(7).batch(3, drop_remainder=True), [2, [0, 1, 2, 3, 4, 5]]),
    "batch_of_map": (lambda: D.range(5).map(lambda x: (x, rt.cast(x, rt.float64) / 2)).batch(2),
                     [3, [0, 1, 2, 3, 4], [0.0, 0.5, 1.0, 1.5, 2.0]]),
    "batch_unbatch": (lambda: D.range(6).batch(2, drop_remainder=True).unbatch(),
                      [6, [0, 1, 2, 3, 4, 5]]),
    "zip": (lambda: D.zip(D.range(3), D.from_tensor_slices([1.0, 2.0])), [2, [0, 1], [1.0, 2.0]]),
    "zip_dict_batch": (lambda: D.zip({"a": D.range(5), "b": D.range(10, 15)}).batch(2),
                       [3, [0, 1, 2, 3, 4], [10, 11, 12, 13, 14]]),
    "concatenate": (lambda: D.range(2).concatenate(D.range(7, 9)), [4, [0, 1, 7, 8]]),
    "nested": (lambda: D.from_tensor_slices(({"x": [[1, 2], [3, 4]]}, [True, False])).map(
        lambda d, flag: (d["x"] * 2, flag)), [2, [2, 4, 6, 8], [True, False]]),
    "shuffle_fixed": (lambda: D.range(12).shuffle(4, seed=3, reshuffle_each_iteration=False), None),
    "prefetch_cache": (lambda: D.range(3).prefetch(rt.data.AUTOTUNE).cache(), [3, [0, 1, 2]]),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_graph_loop_gives_the_eager_elements(name):
    make, expected = PIPELINES[name]
    got = assert_same(make)
    if expected is not None:
        assert got == expected


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float32, np.float64])
def test_graph_loop_over_symbolic_sources(dtype):
    x = rt.constant(np.arange(12, dtype=dtype).reshape(6, 2))
    got = assert_same(lambda x: D.from_tensor_slices(x).map(lambda r: r * 2).batch(4), x)
    assert got == [2, (np.arange(12) * 2).tolist()]
    got = assert_same(lambda n: D.range(1, n, 2).enumerate(), I64(8))
    assert got == [4, [0, 1, 2, 3], [1, 3, 5, 7]]


def test_shuffle_in_a_graph_draws_the_eager_order_for_the_same_seed():
    def make():
        return D.range(15).shuffle(6, seed=4)

    ds = make()

    @rt.function
    def order():
        body, state, invariants = _collector(ds.element_spec)
        return rt.data.dataset_loop(ds, body, state, shape_invariants=invariants)[1]

    rt.random.set_seed(9)
    eager = [[v.item() for v in ds.as_numpy_iterator()] for _ in range(2)]
    rt.random.set_seed(9)
    graph = [order().numpy().tolist() for _ in range(2)]
    assert graph == eager and eager[0] != eager[1]
    assert all(value < k + 6 for k, value in enumerate(graph[0]))


def test_extra_test_stops_the_loop_like_a_break():
    def keep_going(count, *accumulated):
        return rt.reduce_sum(accumulated[0]) < 10

    got = assert_same(lambda: D.range(100), extra_test=keep_going)
    assert got == [5, [0, 1, 2, 3, 4]]  # the test runs before each element
    got = assert_same(lambda: D.range(3).repeat(), extra_test=keep_going)
    assert got == [11, [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1]]


def test_reduce_in_a_traced_function_is_one_graph_loop():
    @rt.function
    def total(x):
        return D.from_tensor_slices(x).filter(lambda v: v > 0).reduce(
            (0.0, np.int64(0)), lambda s, v: (s[0] + v, s[1] + 1))

    s, n = total(rt.constant([1.0, -2.0, 3.0, 4.0]))
    assert s.numpy() == 8.0 and n.numpy() == 3
    graph = total.get_concrete_function(rt.TensorSpec((None,), rt.float32)).graph
    assert sum(node.op.name == "while_loop" for node in graph.nodes) == 1


def test_staged_pieces_run_a_hand_written_while_loop():
    """The contract the transpiler's for loop uses: counters first, then its own state."""

    @rt.function
    def f(x):
        loop = rt.data.staged(D.from_tensor_slices(x).filter(lambda v: v % 2 == 1).take(2))
        n = len(loop.counters)

        def body(*values):
            return loop.step(values[:n], values[n:], lambda e, s: (s[0] + e,))

        def test(*values):
            return loop.more(values[:n])

        def step(*values):
            counters, state = body(*values)
            return counters + state

        return rt.while_loop(test, step, loop.counters + (rt.constant(0),))[n:]

    (total,) = f(rt.constant([2, 3, 4, 5, 7, 9]))
    assert total.numpy() == 8


def test_only_kept_elements_reach_the_functions_after_a_filter(capfd):
    @rt.function
    def f():
        ds = D.range(6).filter(lambda x: x % 2 == 0).map(lambda x: rt.print("saw", x) or x + 100)
        return rt.data.dataset_loop(ds, lambda e, s: s + e, (I64(0),))

    assert f()[0].numpy() == 306
    assert capfd.readouterr().out.split() == ["saw", "0", "saw", "2", "saw", "4"]


def test_a_batch_of_unequal_shapes_fails_in_both_as_tensorflow_does():
    assert assert_same(lambda: D.range(3).batch(2).batch(2)) is rt.errors.InvalidArgumentError


@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")  # a trace per example
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 9), st.lists(st.sampled_from(
    ["map", "filter", "take", "skip", "enumerate", "repeat", "batch", "shuffle", "zip"]),
    max_size=4))
def test_random_pipelines_agree(n, steps):
    def make():
        ds = D.range(n)
        for step in steps:
            ds = _apply(ds, step)
        return ds

    try:
        rt.data.staged(make())
    except rt.data.StagingError:
        return  # shapes the plan refuses are covered by the error tests
    rt.random.set_seed(1)
    ds = make()
    rt.random.set_seed(1)
    assert_same(lambda: ds)


def _last_component_sum(*element):
    return rt.reduce_sum(rt.cast(structure.flatten(element)[-1], rt.int64))


def _apply(ds, step):
    if step == "map":
        return ds.map(lambda *e: e if len(e) > 1 else e[0] * 3 + 1)
    if step == "filter":
        return ds.filter(lambda *e: _last_component_sum(*e) % 2 == 0)
    if step == "take":
        return ds.take(3)
    if step == "skip":
        return ds.skip(1)
    if step == "enumerate":
        return ds.enumerate(2)
    if step == "repeat":
        return ds.repeat(2)
    if step == "batch":  # equal shapes: a graph's skip does not compute what it skips
        return ds.batch(2, drop_remainder=True)
    if step == "shuffle":
        return ds.shuffle(3, seed=5, reshuffle_each_iteration=False)
    return D.zip(ds, D.range(100, 104))


# -- what cannot be staged says what to do ---------------------------------------------------


@pytest.mark.parametrize("make, message", [
    (lambda: D.range(3).flat_map(lambda x: D.range(x)), "flat_map has no graph form yet"),
    (lambda: D.range(3).filter(lambda x: x > 0).batch(2), "Batch before filtering"),
    (lambda: D.range(3).filter(lambda x: x > 0).shuffle(2), "Shuffle before filter"),
    (lambda: D.range(3).repeat().shuffle(2), "Shuffle before filter and repeat()"),
    (lambda: D.range(3).shuffle(3).repeat(2), "reshuffle_each_iteration=False"),
    (lambda: D.range(5).filter(lambda x: x > 0).take(2).repeat(2), "Move repeat before"),
    (lambda: D.range(4).batch(3).unbatch(), "drop_remainder=True"),
    (lambda: D.range(4).map(lambda x: rt.fill([x], x)).padded_batch(2), "padded_batch"),
    (lambda: D.zip(D.range(3).filter(lambda x: x > 0), D.range(3)), "Zip first"),
])
def test_unstageable_pipelines_raise_a_clear_error(make, message):
    ds = make()

    @rt.function
    def f():
        return rt.data.dataset_loop(ds, lambda e, s: s + 1, (rt.constant(0),))

    with pytest.raises(rt.data.StagingError,
                       match=re.escape("A graph loop cannot iterate over this dataset: ")):
        f()
    with pytest.raises(rt.data.StagingError, match=re.escape(message)):
        rt.data.staged(ds)


def test_a_symbolic_count_is_refused_with_a_fix():
    @rt.function
    def f(n):
        return D.range(10).take(n).reduce(I64(0), lambda s, x: s + x)

    with pytest.raises(TypeError, match="counts must be known when it is made"):
        f(rt.constant(3))
