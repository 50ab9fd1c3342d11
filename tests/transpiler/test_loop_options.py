"""``set_loop_options`` at the top of a loop body: growing loop variables, iteration bounds."""

import importlib.util

import numpy as np
import pytest

import runtime as rt
import transpiler
from transpiler import UnsupportedSyntaxError, function, set_loop_options, to_code


def doubling(n):
    v = rt.zeros([1])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(v, [None])])
        v = rt.concat([v, v + 1.0], 0)
        i += 1
    return v


def rows_of_multiples(n):
    v = rt.ones([1, 2], rt.int64)
    for i in range(n):
        transpiler.set_loop_options(shape_invariants=[(v, [None, 2])])
        v = rt.concat([v, v[-1:] * (i + 2)], 0)
    return v


def bounded(n):
    total = 0
    i = 0
    while i < n:
        set_loop_options(maximum_iterations=4)
        total += i
        i += 1
    return total


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_while_loop_variable_may_grow_along_a_declared_dimension(n):
    got = function(doubling)(rt.constant(n))
    np.testing.assert_array_equal(got.numpy(), doubling(n).numpy())
    assert got.shape == (2 ** n,)


# A new function of the same Python function per parametrized case: the RetracingWarning
# the runtime gives for that is expected here.
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
@pytest.mark.parametrize("n", [0, 2, 5])
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_a_for_loop_variable_may_grow_along_a_declared_dimension(n, dtype):
    got = function(rows_of_multiples)(rt.constant(n, dtype))
    np.testing.assert_array_equal(got.numpy(), rows_of_multiples(n).numpy())
    assert got.dtype == rt.int64


def test_the_graph_shape_keeps_the_declared_unknown_dimension():
    concrete = function(doubling).get_concrete_function(rt.TensorSpec([], rt.int32))
    assert concrete.graph.outputs[0].shape == (None,)


@pytest.mark.parametrize("n", [2, 4, 9])
def test_maximum_iterations_bounds_a_graph_loop(n):
    assert int(function(bounded)(rt.constant(n))) == bounded(min(n, 4))


def test_as_python_the_options_do_nothing():
    assert bounded(9) == sum(range(9))
    assert set_loop_options(maximum_iterations=1) is None


def test_the_generated_code_passes_the_options_to_the_loop():
    code = to_code(doubling)
    assert "opts=ag__.loop_options(shape_invariants=[(v, [None])])" in code
    assert "set_loop_options" not in code


def growing_without_options(n):
    v = rt.zeros([1])
    i = 0
    while i < n:  # <-
        v = rt.concat([v, v], 0)
        i += 1
    return v


def test_a_growing_loop_variable_error_names_set_loop_options():
    with pytest.raises(rt.errors.ShapeError, match=r"'v' has shape \(1,\) before the loop, but "
                                                    r"shape \(2,\) after one iteration.*"
                                                    r"transpiler\.set_loop_options\(shape_invariants="):
        function(growing_without_options)(rt.constant(2))


def options_not_at_the_top(n):
    v = rt.zeros([1])
    i = 0
    while i < n:
        i += 1
        set_loop_options(shape_invariants=[(v, [None])])
    return v


def test_options_anywhere_but_the_top_of_a_loop_body_are_an_error():
    with pytest.raises(UnsupportedSyntaxError, match=r"set_loop_options\(\.\.\.\) at "
                                                     r".*test_loop_options\.py:\d+ is not the "
                                                     r"first statement of a loop body"):
        function(options_not_at_the_top)(rt.constant(2))


def options_for_a_value_that_is_not_a_loop_variable(n):
    v = rt.zeros([1])
    w = rt.zeros([1])
    i = 0
    while i < n:
        set_loop_options(shape_invariants=[(w, [None])])
        v = v + 1.0
        i += 1
    return v


def test_options_must_name_a_loop_variable():
    with pytest.raises(ValueError, match=r"names a tensor .*which is not the value of a loop "
                                         r"variable when the loop starts"):
        function(options_for_a_value_that_is_not_a_loop_variable)(rt.constant(2))


def _nested_loops_source(depth: int) -> str:
    """``depth`` nested tensor while loops with Python-number counters, a break flag (the
    break converter's bool) and a trace-time counter in the innermost body."""
    lines = ["def note():", "    TRACES.append(1)", "", "", "def nested(n):", "    total = 0"]
    indent = "    "
    for level in range(depth):
        lines += [f"{indent}i{level} = 0", f"{indent}while i{level} < n:",
                  f"{indent}    i{level} += 1",
                  f"{indent}    if total > 1000000:", f"{indent}        break"]
        indent += "    "
    lines += [f"{indent}note()", f"{indent}total += 1", "    return total"]
    return "\n".join(lines) + "\n"


def test_nested_loops_trace_each_body_once(tmp_path):
    depth = 10
    path = tmp_path / "nested_loops.py"
    path.write_text(_nested_loops_source(depth))
    spec = importlib.util.spec_from_file_location("nested_loops", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.TRACES = []
    fn = transpiler.function(module.nested)
    assert fn(np.int32(2)).numpy() == 2 ** depth
    # Probing each body before tracing it doubled the work per level: 1,024 traces here.
    assert len(module.TRACES) == 1


def test_a_python_number_that_changes_type_in_a_loop_settles():
    @transpiler.function
    def mean_of(x, n):
        total = 0            # a Python int that becomes float32 in the first iteration
        i = 0
        while i < n:
            total += x
            i += 1
        return total / rt.cast(n, rt.float32)
    result = mean_of(np.float32(1.5), np.int32(4))
    assert result.dtype == np.float32 and result.numpy() == np.float32(1.5)
