"""Common-subexpression elimination: merges pure duplicates, never effects or state."""

import numpy as np

import runtime as rt
from tests.runtime.graph_helpers import ops, traced


def test_the_same_pure_expression_is_computed_once():
    concrete = traced(lambda x: rt.exp(x) + rt.exp(x), rt.TensorSpec([2], rt.float32))
    assert ops(concrete.graph).count("exp") == 1
    np.testing.assert_allclose(concrete(np.zeros(2, np.float32)).numpy(), [2.0, 2.0])


def test_different_attributes_are_not_merged():
    concrete = traced(lambda x: rt.reduce_sum(x, axis=0) + rt.reduce_sum(x, axis=1),
                      rt.TensorSpec([2, 2], rt.float32))
    assert ops(concrete.graph).count("reduce_sum") == 2


def test_effects_and_random_draws_are_never_merged(capsys):
    def f(x):
        rt.print(x)
        rt.print(x)
        return rt.random.uniform([2]) - rt.random.uniform([2])
    concrete = traced(f, rt.TensorSpec([], rt.float32))
    assert ops(concrete.graph).count("print") == 2
    assert ops(concrete.graph).count("random_uniform") == 2
    concrete(np.float32(1))
    assert capsys.readouterr().out == "1.0\n1.0\n"


def test_variable_reads_are_not_merged_across_a_write():
    v = rt.Variable(rt.constant(1.0))

    def f(x):
        before = v * 1.0
        v.assign_add(x)
        return before, v * 1.0
    a, b = rt.function(f)(rt.constant(2.0))
    assert (a.numpy(), b.numpy()) == (1.0, 3.0)


def test_outputs_that_become_the_same_value_keep_the_result_structure():
    f = rt.function(lambda x: (x * 2.0, x * 2.0, {"k": x * 2.0}))
    a, b, c = f(rt.constant(1.5))
    assert a.numpy() == b.numpy() == c["k"].numpy() == 3.0
