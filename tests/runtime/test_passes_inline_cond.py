"""A cond on a constant is replaced by the branch it takes, with effects kept in order."""

import numpy as np

import runtime as rt
from runtime.passes import constant_folding, inline_cond
from tests.runtime.graph_helpers import (all_ops, apply, assert_identical, ops, run_graph, traced,
                                         traced_graph)

I32 = rt.TensorSpec([], rt.int32)


def constant_pred(value: bool):
    """A predicate that is a constant node of the graph (``rt.constant`` alone is a Python
    value to ``rt.cond``, which then runs like an ``if``)."""
    return rt.identity(rt.constant(value))


def inlined(fn, spec=I32):
    """The graph of ``fn`` before and after folding and cond inlining, and the inlining's changes."""
    before = traced_graph(fn, spec)
    after = before.copy()
    apply(constant_folding.run, after)
    return before, after, apply(inline_cond.run, after)


def effects(graph):
    return [node for node in graph.nodes if node.effect]


def test_a_cond_on_a_constant_keeps_only_the_taken_branch(capsys):
    def f(x):
        return rt.cond(constant_pred(True), lambda: (rt.print("then"), x + 1)[1],
                       lambda: (rt.print("else"), x - 1)[1])
    before, after, changes = inlined(f)
    assert [line.split(": ")[1] for line in changes] == ["always then"]
    assert ops(after) == ["print", "add"] and "cond" not in all_ops(after)
    assert_identical(run_graph(after, np.int32(1)), [np.int32(2)])
    assert capsys.readouterr().out == "then\n"


def test_effects_keep_their_order_and_their_chain_around_an_inlined_branch(capsys):
    def f(x):
        rt.print("before")
        y = rt.cond(constant_pred(False), lambda: x, lambda: (rt.print("inside"), x * 2)[1])
        rt.print("after")
        return y
    _, after, _ = inlined(f)
    before, inside, last = effects(after)
    assert inside.control_inputs == [before] and last.control_inputs == [inside]
    assert inside.graph is after
    run_graph(after, np.int32(3))
    assert capsys.readouterr().out == "before\ninside\nafter\n"


def test_when_the_taken_branch_has_no_effect_later_effects_follow_the_earlier_ones():
    def f(x):
        rt.print("before")
        y = rt.cond(constant_pred(True), lambda: x + 1, lambda: (rt.print("never"), x)[1])
        rt.print("after")
        return y
    _, after, _ = inlined(f)
    before, last = effects(after)
    assert last.control_inputs == [before]


def test_a_variable_read_in_the_branch_still_follows_an_earlier_write():
    v = rt.Variable(rt.constant(1))

    def f(x):
        v.assign(x)
        return rt.cond(constant_pred(True), lambda: v.value() * 10, lambda: x)
    _, after, _ = inlined(f)
    (write,) = effects(after)
    (read,) = [node for node in after.nodes if node.op.name == "read_variable"]
    assert read.control_inputs == [write]
    assert rt.function(f)(rt.constant(4)).numpy() == 40


def test_a_cond_nested_in_the_taken_branch_moves_with_it():
    def f(x):
        def outer():
            y = x * 3
            return rt.cond(x > 0, lambda: y + x, lambda: y - x)
        return rt.cond(constant_pred(True), outer, lambda: x)
    before, after, _ = inlined(f)
    (nested,) = [node for node in after.nodes if node.op.name == "cond"]
    assert all(sub.parent is after for sub in nested.subgraphs.values())
    assert all(outer.graph is after for sub in nested.subgraphs.values() for outer, _ in sub.captures)
    for x in (np.int32(2), np.int32(-2)):
        assert_identical(run_graph(after, x), run_graph(before, x))


def test_a_branch_that_returns_a_value_it_was_given_becomes_that_value():
    _, after, _ = inlined(lambda x: rt.cond(constant_pred(False), lambda: x + 1, lambda: x))
    assert after.outputs == after.inputs


def test_a_cond_on_a_value_known_only_at_run_time_stays():
    _, after, changes = inlined(lambda x: rt.cond(x > 0, lambda: x + 1, lambda: x - 1))
    assert changes == [] and "cond" in ops(after)


def test_the_pipeline_inlines_a_predicate_that_folding_makes_constant():
    concrete = traced(lambda x: rt.cond(rt.identity(rt.constant(3)) * 2 > 5,
                                        lambda: x + 1, lambda: x - 1), I32)
    assert "cond" not in all_ops(concrete.graph)
    assert concrete(np.int32(1)).numpy() == 2
