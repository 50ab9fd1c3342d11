"""The fast call path gives the same answers as the general one and never skips a retrace."""

import threading

import numpy as np
import pytest

import runtime as rt


def test_same_signature_reuses_the_graph_and_matches_eager():
    f = rt.function(lambda x, n: x * n + 1)
    x = rt.constant(np.arange(6, dtype=np.float32))
    for _ in range(3):
        np.testing.assert_array_equal(f(x, 3).numpy(), x.numpy() * 3 + 1)
    assert f.tracing_count == 1


@pytest.mark.parametrize("second", [
    np.arange(6, dtype=np.float64),          # dtype differs
    np.arange(7, dtype=np.float32),          # shape differs
    np.arange(6, dtype=np.float32).reshape(2, 3),
])
def test_a_different_tensor_signature_traces_again(second):
    f = rt.function(lambda x: x + 1)
    f(rt.constant(np.arange(6, dtype=np.float32)))
    result = f(rt.constant(second))
    assert f.tracing_count == 2
    assert result.dtype == second.dtype and result.shape == second.shape


@pytest.mark.parametrize("literal", [2.0, True, 3, "3"])
def test_python_literals_of_another_type_or_value_trace_again(literal):
    f = rt.function(lambda x, n: x if isinstance(n, str) else x * n)
    x = rt.constant(np.ones(2, np.float32))
    f(x, 2)
    f(x, literal)
    assert f.tracing_count == 2


def test_numpy_arrays_and_keywords_take_the_same_graph():
    f = rt.function(lambda x, y: x - y)
    a = np.ones(3, np.int32)
    f(rt.constant(a), rt.constant(a))
    np.testing.assert_array_equal(f(a, y=a).numpy(), np.zeros(3, np.int32))
    assert f.tracing_count == 1


def test_a_call_inside_another_trace_joins_that_graph():
    inner = rt.function(lambda x: x * 2)
    x = rt.constant(np.ones(2, np.float32))
    inner(x)  # warms the fast path of `inner`

    @rt.function
    def outer(x):
        return inner(x) + 1

    outer(x)
    ops = [node.op.name for node in outer.get_concrete_function(x).graph.nodes]
    assert "multiply" in ops  # inlined, not run eagerly and baked in as a constant


def test_errors_on_the_fast_path_name_the_op():
    f = rt.function(lambda x, i: rt.gather(x, i))
    x = rt.constant(np.arange(3, dtype=np.float32))
    f(x, rt.constant(np.array([0], np.int32)))
    with pytest.raises(rt.errors.InvalidArgumentError, match="gather"):
        f(x, rt.constant(np.array([5], np.int32)))


# The second function retraces for every new shape on purpose (to trace while others call).
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
def test_threads_calling_while_another_traces_get_right_answers():
    f = rt.function(lambda x: x + 1)
    x = rt.constant(np.zeros(4, np.float32))
    f(x)
    errors = []

    def call_many():
        try:
            for _ in range(200):
                np.testing.assert_array_equal(f(x).numpy(), np.ones(4, np.float32))
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=call_many) for _ in range(4)]
    tracer = rt.function(lambda y: y * 3)
    for thread in threads:
        thread.start()
    for size in range(1, 30):
        tracer(rt.constant(np.ones(size, np.float32)))
    for thread in threads:
        thread.join()
    assert errors == []


def test_containers_of_tensors_take_the_fast_path_and_still_check_every_leaf():
    f = rt.function(lambda pairs, options: [w * options["scale"] + b for w, b in pairs])
    pairs = [(rt.constant(np.ones(2, np.float32)), rt.constant(np.zeros(2, np.float32)))] * 3
    f(pairs, {"scale": 2.0})
    assert f.get_concrete_function(pairs, {"scale": 2.0}).fast_entry is not None
    f(pairs, {"scale": 2.0})
    assert f.tracing_count == 1
    f(pairs[:2], {"scale": 2.0})  # shorter list
    f(pairs, {"scale": 3.0})      # another literal in the dict
    longer = rt.constant(np.ones(3, np.float32))
    f([(longer, longer)] + pairs[1:], {"scale": 2.0})  # one leaf of another shape
    assert f.tracing_count == 4
    assert [t.numpy().tolist() for t in f(pairs, {"scale": 3.0})] == [[3.0, 3.0]] * 3
