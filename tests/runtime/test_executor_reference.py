"""The compiled plan computes what a plain reference interpreter computes, node by node with
the ops' own kernels, on random graphs with branches, loops and effects, before and after
the passes."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.executor import Plan
from runtime.graph import Graph
from tests.runtime.graph_helpers import (INPUTS, PROGRAMS, assert_identical, assert_same_behaviour,
                                         random_program, run_graph, traced)


def interpret(graph: Graph, arrays: list) -> list:
    """The outputs of ``graph``: each node's kernel called in program order on the values of
    its inputs; a cond runs the branch its predicate picks, a loop runs its subgraphs in a
    Python loop. No code generation, no reuse of buffers."""
    values = {id(p): a for p, a in zip(graph.inputs, arrays)}
    for node in graph.nodes:
        inputs = [values[id(v)] for v in node.inputs]
        if node.op.name == "const":
            outputs = [node.attrs["value"]]
        elif node.op.name == "cond":
            outputs = interpret(node.subgraphs["then" if bool(inputs[0]) else "else"], inputs[1:])
        elif node.op.name == "while_loop":
            outputs = _loop(node, inputs)
        else:
            kernel = node.op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in node.inputs])
            result = kernel(*inputs)
            outputs = [result] if len(node.outputs) == 1 else list(result or ())
        values.update((id(v), o) for v, o in zip(node.outputs, outputs))
    return [values[id(v)] for v in graph.outputs]


def _loop(node, inputs: list) -> list:
    count, limit = node.attrs["num_vars"], node.attrs["maximum_iterations"]
    rest = inputs[count:]
    if limit == "input":
        limit, rest = int(rest[0]), rest[1:]
    state, steps = inputs[:count], 0
    while (limit is None or steps < limit) and bool(interpret(node.subgraphs["cond"], state + rest)[0]):
        state = interpret(node.subgraphs["body"], state + rest)
        steps += 1
    return state


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PROGRAMS, st.integers(0, 3))
def test_plans_agree_with_the_reference_interpreter(program, n):
    dtype_name, steps = program
    program = random_program(dtype_name, steps)
    concrete = program.trace()
    for graph in (concrete.unoptimized_graph, concrete.graph):
        plan = Plan(graph, "checked")
        for x in INPUTS[dtype_name]:
            reference = program.observe(lambda *a: interpret(graph, list(a)), x, n)
            assert_same_behaviour(program.observe(plan.run, x, n), reference)


# -- cases the random programs found or could miss ------------------------------------------


def check(fn, *arguments):
    """Runs ``fn``'s traced graph (before and after the passes) with the plan and with the
    interpreter, and checks that they agree."""
    concrete = traced(fn, *[rt.TensorSpec(np.shape(a), np.asarray(a).dtype) for a in arguments])
    for graph in (concrete.unoptimized_graph, concrete.graph):
        assert_identical(run_graph(graph, *arguments), interpret(graph, list(arguments)))


def test_a_loop_that_runs_zero_times_still_returns_a_value_later_written_in_place():
    def f(x, n):
        a = x * 0.5
        _, v = rt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 0.5 + a), (0, a))
        return v, -a
    check(f, np.array([1.0, 2.0], np.float32), np.int32(0))


def test_a_branch_that_returns_its_input_is_not_overwritten_later():
    def f(x, n):
        a = x * 0.5
        return rt.cond(n > 0, lambda: a, lambda: a * 2.0), -a
    check(f, np.array([1.0, 2.0], np.float32), np.int32(1))


def test_a_view_is_not_overwritten_through_its_base():
    def f(x):
        a = x * 2.0
        reversed_a, reshaped = a[::-1], rt.reshape(a, [2, 1])
        return reversed_a, reshaped, -a
    check(f, np.array([1.0, 2.0], np.float32))


def test_nested_loops_and_branches_with_a_tensor_iteration_limit():
    def f(x, n):
        def body(i, v):
            inner = rt.while_loop(lambda j, w: j < i, lambda j, w: (j + 1, w + 1.0), (0, v),
                                  maximum_iterations=n)[1]
            return i + 1, rt.cond(rt.reduce_sum(inner) > 10.0, lambda: inner * 0.5, lambda: inner)
        return rt.while_loop(lambda i, v: i < 4, body, (0, x))
    check(f, np.array([1.0, -2.0], np.float32), np.int32(2))


def test_returned_constants_and_arguments_are_arrays_of_the_right_type():
    check(lambda x: (x, rt.identity(rt.constant([1, 2])) * 2, rt.identity(rt.constant(2.5)) + 1.0),
          np.float32(3.0))


def test_a_returned_constant_is_a_copy_the_caller_may_change():
    f = rt.function(lambda x: (x, rt.identity(rt.constant([1.0, 2.0])) * 2.0))
    first = f(rt.constant(0.0))[1].numpy()
    first[0] = 100.0
    np.testing.assert_array_equal(f(rt.constant(0.0))[1].numpy(), [2.0, 4.0])


def test_a_graph_of_effects_only(capsys):
    def f(x):
        rt.print("x is", x)
    check(f, np.int32(3))
    assert capsys.readouterr().out == "x is 3\n" * 4  # plan and interpreter, before and after
