"""Pruning: what no output needs is removed; effects always stay, in order."""

import numpy as np
import pytest

import runtime as rt
from runtime.passes import prune
from tests.runtime.graph_helpers import all_ops, apply, ops, run_graph, traced_graph

F32 = rt.TensorSpec([2], rt.float32)


def test_unused_pure_nodes_are_removed_and_used_ones_kept():
    graph = traced_graph(lambda x: (rt.exp(x), rt.sin(x) * 2.0)[0] + 1.0, F32)
    changes = apply(prune.run, graph)
    assert ops(graph) == ["exp", "add"]
    assert [line.split()[0] for line in changes] == ["sin", "const", "multiply"]
    assert all(line.endswith(": unused") for line in changes)


def test_effects_are_kept_even_when_nothing_reads_them():
    v = rt.Variable(rt.constant([0.0, 0.0]))

    def f(x):
        rt.print("hello")
        rt.assert_(rt.reduce_all(x > -10.0), "too small")
        v.assign(x)
        rt.random.uniform([2], seed=1)
        return x
    graph = traced_graph(f, F32)
    apply(prune.run, graph)
    assert {"print", "assert", "assign_variable", "random_uniform"} <= set(ops(graph))


def test_an_unused_variable_read_is_removed_but_a_read_that_is_used_stays():
    v = rt.Variable(rt.constant([1.0, 2.0]))
    graph = traced_graph(lambda x: (v.value(), x + v.value())[1], F32)
    apply(prune.run, graph)
    assert ops(graph).count("read_variable") == 1


def test_effects_keep_their_order_and_their_chain_stays_valid(capsys):
    def f(x):
        rt.print("a")
        unused = rt.exp(x)  # noqa: F841 - pruned between two effects
        rt.print("b")
        return x
    graph = traced_graph(f, F32)
    apply(prune.run, graph)
    printing = [node for node in graph.nodes if node.op.name == "print"]
    assert printing[1].control_inputs == [printing[0]]
    run_graph(graph, np.zeros(2, np.float32))
    assert capsys.readouterr().out == "a\nb\n"


def test_branches_and_loop_bodies_are_pruned_too():
    def f(x):
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: (rt.exp(x), x + 1.0)[1], lambda: x)
        return rt.while_loop(lambda i: i < 3, lambda i: (rt.sin(x), i + 1)[1], (0,))[0], y
    graph = traced_graph(f, F32)
    apply(prune.run, graph)
    assert "exp" not in all_ops(graph) and "sin" not in all_ops(graph)
    assert ops(graph) == ["reduce_sum", "greater", "cond", "while_loop"]


def test_a_cond_whose_outputs_are_unused_stays_when_a_branch_has_an_effect(capsys):
    def f(x):
        rt.cond(rt.reduce_sum(x) > 0, lambda: (rt.print("positive"), x)[1], lambda: x)
        return x
    graph = traced_graph(f, F32)
    apply(prune.run, graph)
    assert "cond" in ops(graph)
    run_graph(graph, np.ones(2, np.float32))
    assert capsys.readouterr().out == "positive\n"


def test_an_unused_failing_op_does_not_run_in_a_graph():
    def f(x):
        rt.gather(x, 20)  # out of range: raises eagerly, pruned in a graph
        return x * 2.0
    with pytest.raises(rt.errors.InvalidArgumentError):
        f(rt.constant([1.0, 2.0]))
    assert rt.function(f)(rt.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]


def test_a_pruned_graph_gives_the_same_results():
    graph = traced_graph(lambda x: (rt.exp(x), x * 3.0, rt.cos(x))[1], F32)
    x = np.array([1.5, -2.0], np.float32)
    before = run_graph(graph, x)
    apply(prune.run, graph)
    np.testing.assert_array_equal(run_graph(graph, x)[0], before[0])


def test_a_cond_loses_the_outputs_nothing_reads(capsys):
    def f(x):
        a, b, c = rt.cond(rt.reduce_sum(x) > 0, lambda: (rt.exp(x), x + 1.0, (rt.print("then"), x)[1]),
                          lambda: (x, x - 1.0, x * 2.0))
        return b
    graph = traced_graph(f, F32)
    x = np.array([1.5, -1.0], np.float32)
    before = run_graph(graph, x)
    changes = apply(prune.run, graph)
    cond = next(node for node in graph.nodes if node.op.name == "cond")
    assert [out.index for out in cond.outputs] == [0] and graph.outputs[0] is cond.outputs[0]
    assert any(line.startswith(f"cond {cond.reference()}: unused outputs") for line in changes)
    assert "exp" not in all_ops(graph) and "multiply" not in all_ops(graph)
    assert "print" in all_ops(graph)  # effects in a branch stay
    np.testing.assert_array_equal(run_graph(graph, x)[0], before[0])
    assert capsys.readouterr().out == "then\nthen\n"
