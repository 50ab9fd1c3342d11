"""Random programs behave identically with and without the pass pipeline: the same outputs
(dtype, shape and value, NaN, infinities, -0.0 and integer wrap-around included), the same
printed text and the same variable updates. Every pass leaves a well-formed graph, and the
pipeline stops at a fixed point."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.passes import optimize
from tests.runtime.graph_helpers import (INPUTS, PROGRAMS, assert_same_behaviour, random_program,
                                         run_graph)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(PROGRAMS, st.integers(0, 3))
def test_the_pipeline_never_changes_what_a_program_does(program, n):
    dtype_name, steps = program
    program = random_program(dtype_name, steps)
    concrete = program.trace()
    checked = concrete.unoptimized_graph.copy()
    optimize(checked, check=True)  # lints after every pass
    assert optimize(checked) == []
    for x in INPUTS[dtype_name]:
        expected = program.observe(lambda *a: run_graph(concrete.unoptimized_graph, *a), x, n)
        assert_same_behaviour(program.observe(lambda *a: run_graph(checked, *a), x, n), expected)
        assert_same_behaviour(program.observe(lambda *a: [t.numpy() for t in concrete(*a)], x, n),
                              expected)


@settings(SETTINGS, max_examples=100)
@given(PROGRAMS, st.integers(0, 3))
def test_optimized_graphs_do_what_the_function_does_eagerly(program, n):
    dtype_name, steps = program
    program = random_program(dtype_name, steps)
    concrete = program.trace()
    for x in INPUTS[dtype_name]:
        eager = program.observe(
            lambda x, n: [t.numpy() for t in program.fn(rt.constant(x), rt.constant(n))], x, n)
        graph = program.observe(lambda *a: [t.numpy() for t in concrete(*a)], x, n)
        assert_same_behaviour(graph, eager)
