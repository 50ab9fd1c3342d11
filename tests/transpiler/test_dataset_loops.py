"""``for element in dataset`` in converted code: one graph loop while tracing (with ``break``,
``continue`` and ``return``), the same values as the loop run eagerly in Python; dataset
functions with Python control flow on tensors are converted, as TensorFlow converts them."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from transpiler import function

D = rt.data.Dataset


def total_with_break_and_continue(ds, limit):
    total = rt.constant(0, rt.int64)
    for x in ds:
        if x > limit:
            break
        if x % 3 == 0:
            continue
        total += x
    return total


def first_above(ds, limit):
    for x in ds:
        if x > limit:
            return x
    return rt.constant(-1, rt.int64)


def last_seen(ds):
    count = 0
    for x in ds:
        last = x          # first assigned in the loop
        count += 1
    return last, count


def pairs(ds):
    total = rt.constant(0.0)
    for features, label in ds:
        total += rt.reduce_sum(features) * rt.cast(label, rt.float32)
    return total


def batches(ds):
    rows = rt.constant(0)
    sums = rt.constant(0.0, rt.float64)
    for batch in ds:
        rows += rt.shape(batch)[0]
        sums += rt.reduce_sum(batch)
    return rows, sums


def staged_loops(fn, *args):
    return [n for n in fn.get_concrete_function(*args).graph.nodes if n.op.name == "while_loop"]


LIMITS = [-1, 0, 4, 7, 100]


@pytest.mark.parametrize("make", [
    lambda: D.range(12),
    lambda: D.range(3, 30, 4),
    lambda: D.range(20).filter(lambda x: x % 2 == 1).take(6),
    lambda: D.range(8).repeat(2).skip(3),
    lambda: D.range(10).shuffle(4, seed=7, reshuffle_each_iteration=False),
], ids=["range", "range-step", "filter-take", "repeat-skip", "shuffle"])
def test_break_continue_and_return_match_python(make):
    converted_total = function(total_with_break_and_continue)
    converted_first = function(first_above)
    ds = make()
    for limit in LIMITS:
        bound = rt.constant(limit, rt.int64)
        assert int(converted_total(ds, bound)) == int(total_with_break_and_continue(ds, bound))
        assert int(converted_first(ds, bound)) == int(first_above(ds, bound))
    assert converted_total.tracing_count == 1
    assert staged_loops(converted_total, ds, rt.constant(0, rt.int64))  # not unrolled


def test_a_dataset_of_the_traced_arguments_is_one_loop_for_every_length():
    @function
    def summed(values, scale):
        total = rt.constant(0.0, rt.float64)
        for x in D.from_tensor_slices(values).map(lambda v: v * scale):
            total += x
        return total

    spec = [rt.TensorSpec([None], rt.float64), rt.TensorSpec([], rt.float64)]
    summed_for_any_length = function(summed.python_function, input_signature=spec)
    for n in (0, 1, 5, 17):
        values = np.linspace(-1.0, 2.0, n)
        assert float(summed_for_any_length(values, 1.5)) == pytest.approx(float(np.sum(values * 1.5)))
    assert summed_for_any_length.tracing_count == 1


def test_a_variable_first_assigned_in_the_loop_and_a_python_counter():
    converted = function(last_seen)
    last, count = converted(D.range(5, 9))
    assert int(last) == 8 and int(count) == 4
    with pytest.raises(Exception, match="last"):
        converted(D.range(0))  # the loop never ran: `last` has no value, as in Python


def test_tuples_and_batches_of_several_dtypes():
    features = np.arange(12, dtype=np.float32).reshape(6, 2)
    labels = np.array([1, 0, 2, 1, 0, 3], np.int64)
    ds = D.from_tensor_slices((features, labels))
    assert float(function(pairs)(ds)) == float(pairs(ds))
    for drop in (False, True):
        batched = D.from_tensor_slices(np.arange(10, dtype=np.float64)).batch(4, drop_remainder=drop)
        rows, sums = function(batches)(batched)
        eager_rows, eager_sums = batches(batched)
        assert int(rows) == int(eager_rows) and float(sums) == float(eager_sums)


def test_a_map_function_with_python_control_flow_on_tensors_is_converted():
    def clipped(x):
        if x > 5:
            return x * 0
        return x

    ds = D.range(10).map(clipped)
    assert [int(v) for v in ds] == [0, 1, 2, 3, 4, 5, 0, 0, 0, 0]
    assert int(function(total_with_break_and_continue)(ds, rt.constant(100, rt.int64))) == 12


def test_a_dataset_without_a_graph_form_says_what_to_do():
    ds = D.range(4).flat_map(lambda x: D.range(x))
    with pytest.raises(rt.data.StagingError, match="flat_map"):
        function(total_with_break_and_continue)(ds, rt.constant(9, rt.int64))


def test_iterating_a_dataset_eagerly_is_still_python():
    assert int(total_with_break_and_continue(D.range(12), rt.constant(7, rt.int64))) == 19


def next_in_a_loop_then_a_for_loop(ds, n):
    itr = iter(ds)
    s = rt.constant(0, rt.int64)
    for _ in rt.range(n):
        s += next(itr)
    for e in itr:
        s = s * 10 + e
    return s


def test_a_for_loop_over_an_iterator_advanced_in_a_graph_loop_goes_on_from_there():
    """The iterator was made inside the function and next() advanced it in a graph loop: its
    position is graph state, and the for loop is a graph loop from that position."""
    data = rt.data.Dataset.range(5)
    assert int(next_in_a_loop_then_a_for_loop(data, rt.constant(2))) == 1234  # eagerly
    traced = function(next_in_a_loop_then_a_for_loop)
    assert int(traced(data, rt.constant(2))) == 1234
    assert int(traced(data, rt.constant(3))) == 334  # 0 + 1 + 2, then 3 and 4


def sum_until(itr, limit):
    s = rt.constant(0, rt.int64)
    for x in itr:
        if x > limit:
            break
        s += x
    return s


def test_a_for_loop_over_an_iterator_passed_in_leaves_it_where_the_loop_stopped():
    """As TensorFlow: the loop goes on from the iterator's position; after a break the next
    element is the one after the element that broke out; a Python for loop refuses with a
    way out."""
    itr = iter(D.range(10))
    traced = function(sum_until)
    assert int(next(itr)) == 0
    assert int(traced(itr, rt.constant(3, rt.int64))) == 1 + 2 + 3
    assert int(next(itr)) == 5  # 4 broke out of the loop
    assert int(traced(itr, rt.constant(100, rt.int64))) == 6 + 7 + 8 + 9
    with pytest.raises(StopIteration):
        next(itr)
    with pytest.raises(NotImplementedError, match="convert the function"):
        rt.function(sum_until)(iter(D.range(3)), rt.constant(1, rt.int64))


def test_a_for_loop_over_an_iterator_of_a_filtered_dataset_says_what_to_do():
    itr = iter(D.range(10).filter(lambda x: x % 2 == 0).take(3))
    with pytest.raises(NotImplementedError, match="a for loop inside a traced function on an "
                                                  "iterator .* Loop over the dataset"):
        function(sum_until)(itr, rt.constant(100, rt.int64))
