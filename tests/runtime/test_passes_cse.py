"""Common-subexpression elimination: merges pure duplicates, never effects, state or
control flow, and never two constants that differ in any bit or in dtype."""

import numpy as np

import runtime as rt
from runtime.passes import cse
from tests.runtime.graph_helpers import all_ops, apply, assert_identical, ops, run_graph, traced_graph

F32 = rt.TensorSpec([2], rt.float32)


def merged(fn, spec=F32):
    """The graph of ``fn`` before and after CSE, and the pass's changes."""
    before = traced_graph(fn, spec)
    after = before.copy()
    return before, after, apply(cse.run, after)


def constants(graph):
    return [node.attrs["value"] for node in graph.nodes if node.op.name == "const"]


def test_the_same_pure_expression_is_computed_once():
    before, after, changes = merged(lambda x: rt.exp(x) + rt.exp(x))
    assert ops(after) == ["exp", "add"]
    assert len(changes) == 1 and "exp" in changes[0] and "the same as" in changes[0]
    x = np.array([0.5, -1.0], np.float32)
    assert_identical(run_graph(after, x), run_graph(before, x))


def test_chains_of_duplicates_merge_in_one_pass():
    _, after, _ = merged(lambda x: rt.tanh(rt.exp(x) * 2.0) - rt.tanh(rt.exp(x) * 2.0))
    assert ops(after) == ["exp", "multiply", "tanh", "subtract"]


def test_different_attributes_or_inputs_are_not_merged():
    _, after, changes = merged(lambda x: (rt.reduce_sum(x, axis=0), rt.reduce_sum(x, axis=1),
                                          rt.exp(x[0]), rt.exp(x[1])), rt.TensorSpec([2, 2], rt.float32))
    assert changes == []


def test_equal_constants_merge_but_not_across_dtypes_or_signs_of_zero():
    _, after, _ = merged(lambda x: (x * 2.0, x * 2.0, rt.cast(x, rt.float64) * 2.0, x * 0.0,
                                    x * -0.0, x * np.nan, x * np.nan))
    values = constants(after)
    assert len(values) == 5  # 2.0, 2.0 (float64), 0.0, -0.0 and one NaN
    assert ops(after).count("multiply") == 5


def test_effects_and_random_draws_are_never_merged(capsys):
    def f(x):
        rt.print(x)
        rt.print(x)
        rt.assert_(x > -1.0, "small")
        rt.assert_(x > -1.0, "small")
        return rt.random.uniform([2]) - rt.random.uniform([2])
    _, after, _ = merged(f, rt.TensorSpec([], rt.float32))
    for effect in ("print", "assert", "random_uniform"):
        assert ops(after).count(effect) == 2
    assert ops(after).count("greater") == 1  # what they read may merge
    run_graph(after, np.float32(1.0))
    assert capsys.readouterr().out == "1.0\n1.0\n"


def test_variable_reads_are_not_merged_across_a_write():
    v = rt.Variable(rt.constant(1.0))

    def f(x):
        before = v * 1.0
        v.assign_add(x)
        return before, v * 1.0
    _, after, _ = merged(f, rt.TensorSpec([], rt.float32))
    assert ops(after).count("read_variable") == 2
    a, b = rt.function(f)(rt.constant(2.0))
    assert (a.numpy(), b.numpy()) == (1.0, 3.0)


def test_control_flow_nodes_are_not_merged_but_their_insides_are():
    def f(x):
        def branch():
            return rt.exp(x) + rt.exp(x)
        pred = rt.reduce_sum(x) > 0
        return rt.cond(pred, branch, lambda: x), rt.cond(pred, branch, lambda: x)
    before, after, _ = merged(f)
    assert ops(after).count("cond") == 2
    assert all_ops(after).count("exp") == 2  # one per cond, down from four
    x = np.array([1.0, 2.0], np.float32)
    assert_identical(run_graph(after, x), run_graph(before, x))


def test_outputs_that_become_the_same_value_keep_the_result_structure():
    f = rt.function(lambda x: (x * 2.0, x * 2.0, {"k": x * 2.0}))
    a, b, c = f(rt.constant(1.5))
    assert a.numpy() == b.numpy() == c["k"].numpy() == 3.0
    assert len(f.get_concrete_function(rt.constant(1.5)).graph.nodes) == 2
