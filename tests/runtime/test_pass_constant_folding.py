"""Constant folding: what is folded, and what must never be."""

import numpy as np

import runtime as rt
from runtime.passes import constant_folding
from tests.runtime.graph_helpers import all_ops, ops, traced


def test_pure_ops_on_constants_become_one_constant():
    concrete = traced(lambda x: x + rt.constant(2.0) * 3.0 - rt.sqrt(rt.constant(16.0)),
                      rt.TensorSpec([2], rt.float32))
    assert "multiply" not in ops(concrete.graph) and "sqrt" not in ops(concrete.graph)
    np.testing.assert_array_equal(concrete(np.ones(2, np.float32)).numpy(), [3.0, 3.0])
    assert any(r.name == "constant folding" for r in concrete.pass_records)


def test_folded_values_are_bit_identical_to_the_kernel():
    concrete = traced(lambda x: x * (rt.constant(0.1, rt.float32) + rt.constant(0.2, rt.float32)),
                      rt.TensorSpec([], rt.float32))
    expected = np.float32(1.0) * (np.float32(0.1) + np.float32(0.2))
    assert concrete(np.float32(1.0)).numpy() == expected


def test_effects_and_random_draws_are_not_folded():
    def f(x):
        rt.print(rt.constant(1) + 1)
        return x + rt.random.uniform([2], seed=3)
    concrete = traced(f, rt.TensorSpec([2], rt.float32))
    assert "random_uniform" in ops(concrete.graph) and "print" in ops(concrete.graph)


def test_variable_reads_are_not_folded():
    v = rt.Variable(rt.constant(1.0))
    f = rt.function(lambda x: x + v * 2.0)
    x = rt.constant(1.0)
    assert f(x).numpy() == 3.0
    v.assign(5.0)
    assert f(x).numpy() == 11.0


def test_a_failing_constant_op_is_left_to_fail_at_run_time():
    concrete = traced(lambda x: x + rt.gather(rt.constant([1.0, 2.0]), rt.constant(7)),
                      rt.TensorSpec([], rt.float32))
    assert "gather" in ops(concrete.graph)


def test_a_warning_such_as_division_by_zero_is_left_for_run_time():
    concrete = traced(lambda x: x + rt.constant(1.0) / rt.constant(0.0), rt.TensorSpec([], rt.float32))
    assert "divide" in ops(concrete.graph)


def test_results_above_the_size_cap_stay_computed_at_run_time(monkeypatch):
    monkeypatch.setattr(constant_folding, "MAX_FOLDED_ELEMENTS", 10)
    concrete = traced(lambda x: x + rt.ones([20]) * 2.0, rt.TensorSpec([20], rt.float32))
    assert "multiply" in all_ops(concrete.graph)
    concrete_small = traced(lambda x: x + rt.ones([5]) * 2.0, rt.TensorSpec([5], rt.float32))
    assert "multiply" not in all_ops(concrete_small.graph)


def test_constants_inside_branches_are_folded_too():
    def f(x):
        return rt.cond(x > 0, lambda: x + rt.constant(2) * 3, lambda: x)
    concrete = traced(f, rt.TensorSpec([], rt.int32))
    assert "multiply" not in all_ops(concrete.graph)
    assert concrete(np.int32(1)).numpy() == 7
    concrete.graph.lint()
