"""Constant folding: what is folded (exactly as the kernel computes it), and what never is."""

import numpy as np
import pytest

import runtime as rt
from runtime.graph import Graph
from runtime.ops.registry import OpDef
from runtime.passes import constant_folding
from tests.runtime.graph_helpers import all_ops, apply, assert_identical, ops, run_graph, traced_graph

F32 = rt.TensorSpec([], rt.float32)


def const(value, dtype=None):
    """A constant that is a node of the graph being traced (not computed eagerly)."""
    return rt.identity(rt.constant(value, dtype))


def fold(fn, spec=F32):
    """The graph of ``fn`` before and after constant folding, and the pass's changes."""
    graph = traced_graph(fn, spec)
    folded = graph.copy()
    return graph, folded, apply(constant_folding.run, folded)


def test_pure_ops_on_constants_become_one_constant():
    _, graph, changes = fold(lambda x: x + (const(2.0) * 3.0 - rt.sqrt(const(16.0))))
    assert ops(graph) == ["add"]
    assert [line.split()[0] for line in changes] == [
        "identity", "multiply", "identity", "sqrt", "subtract"]
    assert all(line.endswith(": folded") for line in changes)
    np.testing.assert_array_equal(run_graph(graph, np.float32(1.0))[0], np.float32(3.0))


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x * (const(0.1) + const(0.2)), F32),                 # float32 rounding
    (lambda x: x + const(200, rt.uint8) + const(100, rt.uint8), rt.TensorSpec([], rt.uint8)),
    (lambda x: x + (const(2**31 - 1) + 1), rt.TensorSpec([], rt.int32)),  # wraps like at run time
    (lambda x: x + const(np.nan) + 1.0, F32),                       # NaN folds silently
    (lambda x: x + const(-0.0) * 1.0, F32),                          # -0.0 stays -0.0
    (lambda x: x + rt.reduce_sum(rt.ones([4, 3]) * 0.1, axis=0), rt.TensorSpec([3], rt.float32)),
    (lambda x: rt.cast(x, rt.float64) + rt.cast(const(1.1), rt.float64), F32),
])
def test_folded_values_are_what_the_kernels_compute_at_run_time(fn, spec):
    before, after, changes = fold(fn, spec)
    assert changes
    x = np.zeros(spec.shape, spec.dtype)
    assert_identical(run_graph(after, x), run_graph(before, x))
    for node in after.walk():
        if node.op.name == "const":
            assert node.attrs["value"].dtype == node.outputs[0].dtype
            assert not node.attrs["value"].flags.writeable


@pytest.mark.parametrize("fn", [
    lambda x: x + (const(np.inf) - const(np.inf)),   # invalid value
    lambda x: x + const(1.0) / const(0.0),            # division by zero
    lambda x: x + rt.log(const(0.0)),
    lambda x: x + rt.sqrt(const(-1.0)),
    lambda x: x + const(3e38) * 10.0,                # overflow
])
def test_an_operation_that_warns_is_left_to_warn_at_run_time(fn):
    _, graph, _ = fold(fn)
    assert len(ops(graph)) >= 2
    with pytest.warns(RuntimeWarning):
        run_graph(graph, np.float32(0.0))


def test_a_failing_operation_is_left_to_fail_at_run_time_with_the_users_line():
    def f(x):
        return x + rt.gather(const([1.0, 2.0]), 7)
    _, graph, _ = fold(f)
    assert "gather" in ops(graph)
    with pytest.raises(rt.errors.InvalidArgumentError, match="test_passes_constant_folding.py"):
        rt.function(f)(rt.constant(1.0))


def test_effects_random_draws_and_variable_reads_are_not_folded():
    v = rt.Variable(rt.constant(2.0))

    def f(x):
        rt.print(const(1.0) + 1.0)
        rt.assert_(const(True), "never fails")
        return x + rt.random.uniform([], seed=3) + v.value()
    _, graph, _ = fold(f)
    assert {"print", "assert", "random_uniform", "read_variable"} <= set(ops(graph))


def test_a_variable_read_sees_every_assignment():
    v = rt.Variable(rt.constant(1.0))
    f = rt.function(lambda x: x + v * 2.0)
    assert f(rt.constant(1.0)).numpy() == 3.0
    v.assign(5.0)
    assert f(rt.constant(1.0)).numpy() == 11.0


def test_parameters_are_never_folded():
    _, graph, changes = fold(lambda x: x * 2.0)
    assert changes == [] and ops(graph) == ["multiply"]


def test_results_above_the_size_cap_stay_computed_at_run_time(monkeypatch):
    monkeypatch.setattr(constant_folding, "MAX_FOLDED_ELEMENTS", 10)
    _, big, _ = fold(lambda x: x + rt.ones([20]) * 2.0, rt.TensorSpec([20], rt.float32))
    assert "multiply" in ops(big)
    _, small, _ = fold(lambda x: x + rt.ones([5]) * 2.0, rt.TensorSpec([5], rt.float32))
    assert "multiply" not in ops(small)


def test_a_result_declared_too_large_is_not_even_computed(monkeypatch):
    calls = []
    op = OpDef("make_big", lambda: calls.append(1) or np.zeros(50, np.float32), None)
    graph = Graph("big")
    graph.outputs = graph.add_node(op, [], {}, [(np.dtype(np.float32), (50,))]).outputs
    monkeypatch.setattr(constant_folding, "MAX_FOLDED_ELEMENTS", 10)
    assert apply(constant_folding.run, graph) == [] and calls == []


def test_constants_inside_branches_and_loop_bodies_are_folded_too():
    def f(x):
        y = rt.cond(x > 0, lambda: x + const(2.0) * 3.0, lambda: x)
        return rt.while_loop(lambda v: v < 100.0, lambda v: v + const(4.0) * 5.0, (y,))[0]
    before, after, _ = fold(f)
    assert "multiply" not in all_ops(after)
    assert_identical(run_graph(after, np.float32(1.0)), run_graph(before, np.float32(1.0)))
