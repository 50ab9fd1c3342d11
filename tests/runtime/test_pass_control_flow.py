"""Conds with a constant predicate are inlined; loops that cannot run are removed."""

import numpy as np

import runtime as rt
from tests.runtime.graph_helpers import all_ops, ops, traced


def test_a_cond_on_a_constant_keeps_only_the_taken_branch(capsys):
    def f(x):
        return rt.cond(rt.constant(3) > 2, lambda: (rt.print("then"), x + 1)[1],
                       lambda: (rt.print("else"), x - 1)[1])
    concrete = traced(f, rt.TensorSpec([], rt.int32))
    assert "cond" not in ops(concrete.graph) and all_ops(concrete.graph).count("print") == 1
    assert concrete(np.int32(1)).numpy() == 2
    assert capsys.readouterr().out == "then\n"
    concrete.graph.lint()


def test_effects_keep_their_order_around_an_inlined_branch(capsys):
    def f(x):
        rt.print("before")
        y = rt.cond(rt.constant(False), lambda: x, lambda: (rt.print("inside"), x * 2)[1])
        rt.print("after")
        return y
    concrete = traced(f, rt.TensorSpec([], rt.int32))
    concrete(np.int32(3))
    assert capsys.readouterr().out == "before\ninside\nafter\n"


def test_a_loop_whose_condition_is_false_at_the_start_is_removed():
    concrete = traced(lambda x: rt.while_loop(lambda i, s: i < 0, lambda i, s: (i + 1, s + x),
                                              (rt.constant(5), x))[1], rt.TensorSpec([], rt.int32))
    assert "while_loop" not in all_ops(concrete.graph)
    assert concrete(np.int32(4)).numpy() == 4


def test_a_loop_with_zero_maximum_iterations_is_removed():
    concrete = traced(lambda x: rt.while_loop(lambda s: s < 100, lambda s: s + 1, (x,),
                                              maximum_iterations=0)[0], rt.TensorSpec([], rt.int32))
    assert "while_loop" not in all_ops(concrete.graph)
    assert concrete(np.int32(4)).numpy() == 4


def test_a_loop_that_may_run_is_kept():
    concrete = traced(lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 1, (rt.constant(0),))[0],
                      rt.TensorSpec([], rt.int32))
    assert "while_loop" in ops(concrete.graph)
    assert concrete(np.int32(6)).numpy() == 6


def test_graph_before_the_passes_is_printable():
    concrete = traced(lambda x: x * 1.0 + rt.constant(2.0) * 3.0, rt.TensorSpec([2], rt.float32))
    before, after = str(concrete.unoptimized_graph), str(concrete.graph)
    assert "multiply" in before and "multiply" not in after
    assert [r.name for r in concrete.pass_records]
