"""Effects (print, assert, variable writes, random draws) run on every call, in program order,
even when nothing uses them; pure ops that nothing needs do not run at all."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError


def test_rt_print_runs_at_once_eagerly(capsys):
    rt.print("value:", rt.constant([1, 2]), 3, sep=" | ", end="!\n")
    assert capsys.readouterr().out == "value: | [1 2] | 3!\n"


def test_rt_print_runs_on_every_call_of_a_graph(capsys):
    @rt.function
    def f(x):
        rt.print("x is", x)
        return x + 1
    f(rt.constant(1))
    f(rt.constant(2))
    assert capsys.readouterr().out == "x is 1\nx is 2\n"
    assert f.tracing_count == 1


def test_python_print_only_while_tracing_but_rt_print_every_call(capsys):
    @rt.function
    def f(x):
        print("python print")
        rt.print("rt print")
        return x
    for value in (1.0, 2.0, 3.0):
        f(rt.constant(value))
    assert capsys.readouterr().out == "python print\n" + "rt print\n" * 3


def test_effects_keep_program_order(capsys):
    counter = rt.Variable(0)

    @rt.function
    def f(x):
        rt.print("before", counter)
        counter.assign_add(x)
        rt.print("after", counter)
        counter.assign_add(x)
        return counter.value()
    assert f(rt.constant(5)).numpy() == 10
    assert capsys.readouterr().out == "before 0\nafter 5\n"


def test_unused_effects_still_run(capsys):
    counter = rt.Variable(0)

    @rt.function
    def f(x):
        rt.print("side effect")
        counter.assign_add(1)
        rt.assert_(x > 0, "x must be positive")
        return x * 2
    assert f(rt.constant(3)).numpy() == 6
    f(rt.constant(4))
    assert capsys.readouterr().out == "side effect\nside effect\n"
    assert counter.numpy() == 2
    with pytest.raises(InvalidArgumentError, match=re.escape("x must be positive")):
        f(rt.constant(-1))
    assert {"print", "assign_variable", "assert"} <= {
        node.op.name for node in f.get_concrete_function(rt.TensorSpec([], rt.int32)).graph.nodes}


def test_unused_random_draw_advances_the_generator():
    @rt.function
    def f(x):
        rt.random.uniform([3])  # unused, but an effect
        return x

    rt.random.set_seed(11)
    rt.random.uniform([3])
    expected_second = rt.random.uniform([3]).numpy()

    f(rt.constant(0.0))  # trace outside the seeded region
    rt.random.set_seed(11)
    f(rt.constant(0.0))
    np.testing.assert_array_equal(rt.random.uniform([3]).numpy(), expected_second)


def test_unused_pure_op_is_not_run_in_a_graph_but_fails_eagerly():
    def f(x):
        rt.gather(x, rt.constant(5))  # out of range, result unused
        return x + 1

    with pytest.raises(InvalidArgumentError, match="index 5 is out of range"):
        f(rt.constant([1, 2]))
    traced = rt.function(f)
    np.testing.assert_array_equal(traced(rt.constant([1, 2])).numpy(), [2, 3])
    ops = [node.op.name for node in traced.get_concrete_function(rt.constant([1, 2])).graph.nodes]
    assert "gather" not in ops


def test_unused_variable_read_is_pruned_but_writes_are_not():
    variable = rt.Variable(1.0)

    @rt.function
    def f():
        variable.value()
        variable.assign(5.0)
        return rt.constant(0)
    f()
    assert variable.numpy() == 5.0
    ops = [node.op.name for node in f.get_concrete_function().graph.nodes]
    assert "read_variable" not in ops and "assign_variable" in ops


def test_assert_eagerly():
    rt.assert_(rt.constant(True), "never raised")
    rt.assert_(rt.constant([1, 2]) > 0, "never raised")
    with pytest.raises(InvalidArgumentError, match=re.escape("values must be positive 1 -2")):
        rt.assert_(rt.constant([1, -2]) > 0, "values must be positive",
                   data=[rt.constant(1), rt.constant(-2)])
    assert issubclass(rt.errors.InvalidArgumentError, ValueError)


def test_assert_in_a_graph_checks_every_call():
    @rt.function
    def f(x):
        rt.assert_(rt.reduce_all(x >= 0), "x must be non-negative")
        return rt.sqrt(x)
    np.testing.assert_array_equal(f(rt.constant([4.0])).numpy(), [2.0])
    with pytest.raises(InvalidArgumentError, match=re.escape("x must be non-negative")):
        f(rt.constant([-4.0]))
    np.testing.assert_array_equal(f(rt.constant([9.0])).numpy(), [3.0])


def test_effects_inside_branches_run_only_when_taken(capsys):
    counter = rt.Variable(0)

    @rt.function
    def f(flag):
        def then():
            rt.print("then")
            counter.assign_add(1)
            return 1
        return rt.cond(flag, then, lambda: 0)
    f(rt.constant(False))
    assert capsys.readouterr().out == "" and counter.numpy() == 0
    f(rt.constant(True))
    assert capsys.readouterr().out == "then\n" and counter.numpy() == 1


def test_effects_inside_a_loop_body_run_every_iteration(capsys):
    @rt.function
    def f(n):
        def body(i):
            rt.print("step", i)
            return (i + 1,)
        return rt.while_loop(lambda i: i < n, body, (0,))
    f(rt.constant(3))
    assert capsys.readouterr().out == "step 0\nstep 1\nstep 2\n"


def test_a_branch_with_effects_makes_the_cond_an_effect():
    @rt.function
    def f(flag):
        rt.cond(flag, lambda: rt.print("taken") or 0, lambda: 0)  # result unused
        return flag
    graph = f.get_concrete_function(rt.TensorSpec([], rt.bool)).graph
    (cond,) = [node for node in graph.nodes if node.op.name == "cond"]
    assert cond.effect
