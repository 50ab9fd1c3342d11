"""A ``for`` over a Python range whose ``break`` (or ``return``) a tensor decides: once the
first tensor test is made, the rest of the range is one graph loop, not a conditional per
iteration nested in the one before; Python's answers, dtypes and loop variable are kept."""

import numpy as np
import pytest

import runtime as rt
import transpiler


def decay(x, rate):
    for _ in range(100):
        x = x - rate * x * x
        if abs(x) < 1e-3:
            break
    return x


def first_index_above(values, threshold):
    found = -1
    for i in range(8):
        if values[i] > threshold:
            found = i
            break
    return found, i


def weighted_until(x, limit):
    total = x * 0
    for i in range(1, 50):
        total = total + x * i
        if total > limit:
            return total, i
    return total, 0


def scaled_by_list(x, scales):
    for i in range(len(scales)):
        x = x * scales[i]  # a Python list indexed by the counter: unrolled, as before
        if x < 1.0:
            break
    return x


def ops_of(graph_function, *args) -> list[str]:
    graph = graph_function.get_concrete_function(*args).graph
    return [node.op.name for node in graph.walk()]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_decay_loop_is_one_while_loop_with_pythons_answers(dtype):
    graph = transpiler.function(decay)
    for x in (0.9, 0.01, 0.0005, 2.0, 0.3):
        got = graph(rt.constant(x, dtype), rt.constant(0.5, dtype))
        assert got.dtype == dtype
        assert float(got) == float(decay(dtype(x), dtype(0.5)))
    names = ops_of(graph, rt.constant(0.9, dtype), rt.constant(0.5, dtype))
    assert names.count("while_loop") == 1 and names.count("cond") < 6


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64])
def test_the_loop_variable_and_returns_after_a_tensor_break(dtype):
    values = np.array([1, 5, 2, 9, 3, 7, 4, 8], dtype)
    search = transpiler.function(first_index_above)
    for threshold in (0, 4, 8, 100):
        found, last = search(rt.constant(values), rt.constant(threshold, dtype))
        assert (int(found), int(last)) == first_index_above(values, dtype(threshold))
    weighted = transpiler.function(weighted_until)
    for limit in (10, 500, 10**6):
        total, at = weighted(rt.constant(3, dtype), rt.constant(limit, dtype))
        expected_total, expected_at = weighted_until(dtype(3), dtype(limit))
        assert total.dtype == dtype and float(total) == float(expected_total)
        assert int(at) == expected_at


def test_a_body_that_indexes_a_list_by_the_counter_stays_unrolled():
    scales = [0.9, 0.5, 0.25, 0.1]
    graph = transpiler.function(lambda x: scaled_by_list(x, scales))
    for x in (3.0, 0.95, 100.0):
        assert float(graph(rt.constant(x))) == pytest.approx(
            scaled_by_list(np.float32(x), scales), rel=1e-6)
