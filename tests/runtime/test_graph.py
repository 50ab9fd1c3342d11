"""The graph IR: typed nodes, control inputs, source locations, subgraphs, captures, printing
and the structural checks of ``Graph.lint``."""

import re
import sys

import numpy as np
import pytest

import runtime as rt


def _line() -> int:
    """The caller's current line number (to know where a node should say it was created)."""
    return sys._getframe(1).f_lineno


def _graph(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs).graph


def _ops(graph):
    return [node.op.name for node in graph.nodes]


# -- nodes -----------------------------------------------------------------------------------


def test_nodes_have_op_inputs_attrs_typed_outputs_and_location():
    lines = {}

    def f(x):
        lines["sum"] = _line(); total = rt.reduce_sum(x, axis=1, keepdims=True)  # noqa: E702
        return total

    graph = _graph(f, rt.TensorSpec([None, 3]))
    (x,) = graph.inputs
    assert x.node.op.name == "placeholder" and x.name == "%x"
    (node,) = graph.nodes
    assert node.op.name == "reduce_sum"
    assert node.inputs == [x]
    assert node.attrs == {"axis": (1,), "keepdims": True}
    (out,) = node.outputs
    assert (out.dtype, out.shape) == (rt.float32, (None, 1))
    assert out.node is node and graph.outputs == [out]
    assert node.location.filename == __file__
    assert node.location.lineno == lines["sum"]
    assert node.location.function_name == "f"
    assert node.control_inputs == [] and node.subgraphs == {} and not node.effect


def test_effects_are_chained_by_control_inputs_in_program_order():
    variable = rt.Variable(0.0)

    def f(x):
        rt.print("a")
        variable.assign(x)
        rt.print("b")
        return variable.value()

    graph = _graph(f, rt.TensorSpec([]))
    first, assign, second, read = graph.nodes
    assert _ops(graph) == ["print", "assign_variable", "print", "read_variable"]
    assert first.control_inputs == [] and assign.control_inputs == [first]
    assert second.control_inputs == [assign] and read.control_inputs == [second]
    assert first.effect and assign.effect and second.effect and not read.effect
    assert read.stateful


def test_unused_pure_nodes_are_pruned_from_the_graph():
    def f(x):
        unused = rt.exp(x) * 3.0  # noqa: F841
        return x + 1.0
    assert [op for op in _ops(_graph(f, rt.TensorSpec([2]))) if op != "const"] == ["add"]


def test_multiple_outputs_and_python_leaves():
    def f(x):
        return {"double": x * 2.0, "name": "f", "pair": (x, None)}
    traced = rt.function(f)
    graph = traced.get_concrete_function(rt.TensorSpec([2])).graph
    assert len(graph.outputs) == 2
    result = traced(rt.constant([1.0, 2.0]))
    assert result["name"] == "f" and result["pair"][1] is None
    np.testing.assert_array_equal(result["double"].numpy(), [2.0, 4.0])


# -- captures --------------------------------------------------------------------------------


def test_eager_tensors_are_captured_once_as_constants():
    weights = rt.constant([1.0, 2.0])

    def f(x):
        return x * weights + weights

    graph = _graph(f, rt.TensorSpec([2]))
    consts = [node for node in graph.nodes if node.op.name == "const"]
    assert len(consts) == 1
    np.testing.assert_array_equal(consts[0].attrs["value"], [1.0, 2.0])
    assert not consts[0].attrs["value"].flags.writeable


def test_outer_graph_tensors_are_captured_by_subgraphs():
    def f(x, y):
        return rt.cond(x > 0, lambda: y * 2.0, lambda: y)

    graph = _graph(f, rt.TensorSpec([]), rt.TensorSpec([3]))
    x, y = graph.inputs
    cond = next(node for node in graph.nodes if node.op.name == "cond")
    assert set(cond.subgraphs) == {"then", "else"}
    assert cond.inputs[1:] == [y]  # the predicate, then the lifted captures
    then = cond.subgraphs["then"]
    assert then.parent is graph
    ((outer, placeholder),) = then.captures
    assert outer is y and placeholder in then.inputs
    assert (placeholder.dtype, placeholder.shape) == (rt.float32, (3,))
    assert then.nodes[-1].inputs[0] is placeholder
    graph.lint()


def test_captures_through_two_levels_of_subgraphs():
    outer_constant = rt.constant([10.0, 20.0])

    @rt.function
    def f(x, n):
        scale = x * 2.0

        def body(i, acc):
            acc = rt.cond(i % 2 == 0, lambda: acc + scale, lambda: acc - outer_constant)
            return i + 1, acc
        return rt.while_loop(lambda i, acc: i < n, body, (0, rt.zeros([2])))

    concrete = f.get_concrete_function(rt.TensorSpec([2]), rt.TensorSpec([], rt.int32))
    concrete.graph.lint()
    loop = next(node for node in concrete.graph.nodes if node.op.name == "while_loop")
    body = loop.subgraphs["body"]
    inner_cond = next(node for node in body.nodes if node.op.name == "cond")
    assert inner_cond.subgraphs["then"].parent is body and body.parent is concrete.graph
    _, acc = f(rt.constant([1.0, 1.0]), rt.constant(3))
    np.testing.assert_array_equal(acc.numpy(), [-6.0, -16.0])  # +2, -[10, 20], +2


# -- printing --------------------------------------------------------------------------------


def test_str_graph_prints_one_typed_node_per_line():
    lines = {}

    def double_sum(x):
        lines["mul"] = _line(); y = x * 2.0  # noqa: E702
        lines["sum"] = _line(); return rt.reduce_sum(y, axis=0)  # noqa: E702

    graph = _graph(double_sum, rt.TensorSpec([None, 3]))
    text = str(graph).splitlines()
    assert text[0] == "graph double_sum(%x: f32[?,3]) -> (f32[3])"
    assert re.fullmatch(r"  (%\d+): f32\[\?,3\] = multiply\(%x, 2\.0\) +# test_graph\.py:"
                        + str(lines["mul"]), text[1])
    product = re.fullmatch(r"  (%\d+):.*", text[1]).group(1)
    assert re.fullmatch(r"  (%\d+): f32\[3\] = reduce_sum\(" + product + r", axis=\[0\]\) +"
                        r"# test_graph\.py:" + str(lines["sum"]), text[2])
    assert re.fullmatch(r"  return \(%\d+\)", text[3])
    assert len(text) == 4


def test_str_graph_shows_subgraphs_effects_and_readable_attributes():
    def f(x):
        rt.print("x =", x)
        y = rt.cast(x, rt.int64)
        return rt.cond(x > 0, lambda: y, lambda: -y)

    text = str(_graph(f, rt.TensorSpec([], rt.float32)))
    assert "print(%x, template=('x =', $0))" in text and "# test_graph.py:" in text
    assert re.search(r"print\(.*\) +# test_graph\.py:\d+, effect", text)
    assert "cast(%x, dtype=int64)" in text
    assert re.search(r"\n    then\(%capture0: i64\[\]\):\n      return \(%capture0\)\n", text)
    assert re.search(r"\n    else\(%capture0: i64\[\]\):\n      %\d+: i64\[\] = negative", text)
    assert re.search(r"i64\[\] = cond\(%\d+, %\d+\)", text)


def test_partial_and_unknown_shapes_print_compactly():
    assert str(_graph(lambda x: x, rt.TensorSpec([None, 2], rt.int32))).startswith(
        "graph <lambda>(%x: i32[?,2]) -> (i32[?,2])")
    assert "bool[*]" in str(_graph(lambda x: x, rt.TensorSpec(None, rt.bool)))


# -- lint ------------------------------------------------------------------------------------


def _cond_and_loop_graph():
    def f(x, n):
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x)
        rt.print(y)
        return rt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v + y), (0, y))
    return _graph(f, rt.TensorSpec([2]), rt.TensorSpec([], rt.int32))


def test_lint_accepts_traced_graphs():
    _cond_and_loop_graph().lint()


def test_lint_rejects_a_use_before_definition():
    graph = _cond_and_loop_graph()
    graph.nodes.reverse()
    with pytest.raises(AssertionError, match="is used before it is defined"):
        graph.lint()


def test_lint_rejects_an_undefined_output():
    graph = _cond_and_loop_graph()
    other = _cond_and_loop_graph()
    graph.outputs = [other.outputs[0]]
    with pytest.raises(AssertionError, match="is not defined in it"):
        graph.lint()


def test_lint_rejects_a_control_input_that_is_not_earlier():
    graph = _graph(lambda: (rt.print("a"), rt.print("b"))[0])
    first, second = graph.nodes
    graph.nodes = [second, first]
    with pytest.raises(AssertionError, match="is not an earlier node"):
        graph.lint()


def test_lint_reports_problems_inside_subgraphs():
    graph = _cond_and_loop_graph()
    cond = next(node for node in graph.nodes if node.op.name == "cond")
    cond.subgraphs["then"].outputs.append(graph.inputs[0])  # an outer value, never captured
    with pytest.raises(AssertionError, match=re.escape("in subgraph 'then' of <Node")):
        graph.lint()


def test_lint_rejects_invalid_output_types():
    graph = _cond_and_loop_graph()
    graph.nodes[0].outputs[0]._shape = (-1,)
    with pytest.raises(AssertionError, match="has an invalid output shape"):
        graph.lint()


def test_lint_rejects_nodes_owned_by_another_graph():
    graph = _cond_and_loop_graph()
    graph.nodes.append(_cond_and_loop_graph().nodes[0])
    with pytest.raises(AssertionError, match="is listed in .* but owned by"):
        graph.lint()


def test_lint_rejects_a_capture_that_is_not_an_input():
    outer = rt.Graph("outer")
    x = outer.add_placeholder(rt.float32, (2,), "x")
    inner = rt.Graph("inner", parent=outer)
    placeholder = inner.capture(x)
    inner.inputs.remove(placeholder)
    with pytest.raises(AssertionError, match="capture placeholder %capture0 is not a graph input"):
        inner.lint()
