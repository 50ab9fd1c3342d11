"""A while_loop that can never run its body is replaced by its initial values; a loop whose
condition has an effect, reads state, fails or depends on inputs stays."""

import numpy as np
import pytest

import runtime as rt
from runtime.passes import constant_folding, dead_loops
from tests.runtime.graph_helpers import all_ops, apply, assert_identical, ops, run_graph, traced_graph

I32 = rt.TensorSpec([], rt.int32)


def removed(fn, spec=I32):
    """The graph of ``fn`` before and after folding and dead-loop removal, and the removal's
    changes."""
    before = traced_graph(fn, spec)
    after = before.copy()
    apply(constant_folding.run, after)
    return before, after, apply(dead_loops.run, after)


def counting_loop(start, limit=None, cond=None):
    """``(i, s)`` counting ``i`` up from ``start`` while ``cond`` (default ``i < 0``), adding
    ``x`` to ``s``; returns ``s``."""
    def f(x):
        return rt.while_loop(cond or (lambda i, s: i < 0), lambda i, s: (i + 1, s + x),
                             (rt.identity(rt.constant(start)), x), maximum_iterations=limit)[1]
    return f


def test_a_loop_whose_condition_is_false_at_the_start_is_removed():
    before, after, changes = removed(counting_loop(5))
    assert [line.split(": ")[1] for line in changes] == [
        "its condition is false on the initial values"]
    assert "while_loop" not in all_ops(after) and after.outputs == after.inputs
    assert_identical(run_graph(after, np.int32(4)), run_graph(before, np.int32(4)))


@pytest.mark.parametrize("limit, shown", [(0, "0"), (-3, "-3"), ("tensor", "0")])
def test_a_loop_allowed_no_iteration_is_removed(limit, shown):
    def f(x):
        bound = rt.identity(rt.constant(0)) if limit == "tensor" else limit
        return counting_loop(-5, bound, cond=lambda i, s: i < 100)(x)
    before, after, changes = removed(f)
    assert [line.split(": ")[1] for line in changes] == [f"its iteration limit is {shown}"]
    assert_identical(run_graph(after, np.int32(4)), run_graph(before, np.int32(4)))


def test_effects_of_a_body_that_never_runs_go_with_it(capsys):
    def f(x):
        rt.print("before")
        y = rt.while_loop(lambda s: s < 0, lambda s: (rt.print("body"), s + x)[1],
                          (rt.identity(rt.constant(5)),))[0]
        rt.print("after")
        return y
    _, after, changes = removed(f)
    assert len(changes) == 1
    printing = [node for node in after.nodes if node.op.name == "print"]
    assert [node.attrs["template"] for node in printing] == [("before",), ("after",)]
    assert printing[1].control_inputs == [printing[0]]
    run_graph(after, np.int32(1))
    assert capsys.readouterr().out == "before\nafter\n"


@pytest.mark.parametrize("cond", [
    lambda i, s: (rt.print("checked"), i < 0)[1],                    # an effect: runs once
    lambda i, s: rt.gather(rt.identity(rt.constant([0, 1])), i) < 0,  # fails at run time
    lambda i, s: s < 0,                                               # depends on the input
])
def test_a_loop_whose_condition_is_not_a_pure_constant_stays(cond):
    _, after, changes = removed(counting_loop(5, cond=cond))
    assert changes == [] and "while_loop" in ops(after)


def test_a_loop_whose_condition_reads_a_variable_stays():
    v = rt.Variable(rt.constant(-1))
    _, after, changes = removed(counting_loop(5, cond=lambda i, s: i < v.value()))
    assert changes == [] and "while_loop" in ops(after)


def test_a_loop_that_runs_is_kept():
    before, after, changes = removed(counting_loop(-2))
    assert changes == []
    assert_identical(run_graph(after, np.int32(3)), [np.int32(9)])


def test_dead_loops_inside_branches_and_bodies_are_removed():
    def f(x):
        def inner(s):
            return counting_loop(5)(s) + 1
        return rt.cond(x > 0, lambda: inner(x), lambda: x)
    before, after, changes = removed(f)
    assert len(changes) == 1 and "while_loop" not in all_ops(after)
    for x in (np.int32(2), np.int32(-2)):
        assert_identical(run_graph(after, x), run_graph(before, x))
