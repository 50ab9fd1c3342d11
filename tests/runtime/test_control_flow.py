"""``rt.cond`` and ``rt.while_loop``: plain Python eagerly, checked subgraphs while tracing."""

import collections
import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import GraphTypeError, ShapeError

Point = collections.namedtuple("Point", "x y")

SCALAR_F = rt.TensorSpec([], rt.float32)
SCALAR_I = rt.TensorSpec([], rt.int32)
SCALAR_B = rt.TensorSpec([], rt.bool)


def _trace(fn, *specs):
    return rt.function(fn).get_concrete_function(*specs)


# -- cond: eager -----------------------------------------------------------------------------


def test_eager_cond_is_python_and_calls_only_the_taken_branch():
    calls = []
    true_fn = lambda: calls.append("true") or "yes"  # noqa: E731
    false_fn = lambda: calls.append("false") or "no"  # noqa: E731
    assert rt.cond(rt.constant(True), true_fn, false_fn) == "yes"
    assert rt.cond(rt.constant(0.0), true_fn, false_fn) == "no"
    assert rt.cond(1, true_fn, false_fn) == "yes"
    assert calls == ["true", "false", "true"]


def test_eager_cond_rejects_a_non_scalar_condition():
    with pytest.raises(ValueError, match=re.escape("the condition of rt.cond must be a scalar, got a "
                                                   "tensor of shape (2,)")):
        rt.cond(rt.constant([True, False]), lambda: 1, lambda: 2)


# -- cond: traced ----------------------------------------------------------------------------


def test_traced_cond_picks_the_branch_at_run_time():
    @rt.function
    def f(x):
        return rt.cond(x > 0, lambda: x * 10.0, lambda: x - 1.0)
    assert f(rt.constant(2.0)).numpy() == 20.0
    assert f(rt.constant(-2.0)).numpy() == -3.0
    assert f.tracing_count == 1


def test_numeric_scalar_condition_means_not_equal_zero():
    @rt.function
    def f(n):
        return rt.cond(n, lambda: 1, lambda: 2)
    assert f(rt.constant(0)).numpy() == 2
    assert f(rt.constant(-3)).numpy() == 1
    assert f(rt.constant(0.5)).numpy() == 1


def test_traced_cond_rejects_a_non_scalar_condition():
    with pytest.raises(ValueError, match=re.escape("the condition of rt.cond must be a scalar, got a "
                                                   "tensor of shape (3,)")):
        _trace(lambda x: rt.cond(x > 0, lambda: x, lambda: -x), rt.TensorSpec([3]))


def test_only_the_taken_branch_runs(capsys):
    @rt.function
    def f(flag, values):
        def then():
            rt.print("then")
            return rt.gather(values, rt.constant(0))

        def otherwise():
            rt.print("else")
            return rt.gather(values, rt.constant(100))  # out of range: must never run
        return rt.cond(flag, then, otherwise)
    assert f(rt.constant(True), rt.constant([5, 6])).numpy() == 5
    assert capsys.readouterr().out == "then\n"


def test_branch_shapes_are_joined():
    @rt.function
    def f(x):
        return rt.cond(rt.reduce_sum(x) > 0, lambda: x * 2.0, lambda: x[:1])
    concrete = f.get_concrete_function(rt.TensorSpec([3]))
    assert concrete.graph.outputs[0].shape == (None,)
    np.testing.assert_array_equal(f(rt.constant([1.0, 2.0, 3.0])).numpy(), [2.0, 4.0, 6.0])
    np.testing.assert_array_equal(f(rt.constant([-1.0, 2.0, -3.0])).numpy(), [-1.0])


def test_branches_with_different_ranks_give_unknown_rank():
    graph = _trace(lambda x: rt.cond(x[0] > 0, lambda: x, lambda: x[0]), rt.TensorSpec([2])).graph
    assert graph.outputs[0].shape is None


def test_python_literals_in_branches_are_weakly_typed():
    @rt.function
    def f(x):
        return rt.cond(x > 0, lambda: x, lambda: 0)
    result = f(rt.constant(-1.5))
    assert result.dtype == rt.float32 and result.numpy() == 0.0


def test_nested_structures_come_back_with_their_types():
    @rt.function
    def f(x):
        return rt.cond(x > 0,
                       lambda: {"p": Point(x, [x, 1]), "t": (x * 2,)},
                       lambda: {"p": Point(-x, [x * 3, 2]), "t": (x,)})
    result = f(rt.constant(-2))
    assert isinstance(result["p"], Point) and isinstance(result["p"].y, list)
    assert isinstance(result["t"], tuple)
    assert [int(v) for v in (result["p"].x, *result["p"].y, *result["t"])] == [2, -6, 2, -2]


def test_equal_python_values_in_both_branches_stay_python():
    @rt.function
    def f(x):
        return rt.cond(x > 0, lambda: (x, "label", None), lambda: (-x, "label", None))
    value, label, nothing = f(rt.constant(3))
    assert label == "label" and nothing is None and value.numpy() == 3


def test_branch_structures_must_match():
    with pytest.raises(GraphTypeError, match=re.escape(
            "the two branches of a tensor conditional return different structures: the true branch "
            "gives (*, *) and the false branch gives *")):
        _trace(lambda x: rt.cond(x > 0, lambda: (x, x), lambda: x), SCALAR_F)


def test_branch_dtypes_must_match_and_the_message_names_the_output():
    with pytest.raises(GraphTypeError, match=re.escape(
            "'output' has dtype int32 in the true branch but float32 in the false branch")):
        _trace(lambda x: rt.cond(x > 0, lambda: rt.cast(x, rt.int32), lambda: x), SCALAR_F)
    with pytest.raises(GraphTypeError, match=re.escape(
            "'total' has dtype int32 in the true branch but float32 in the false branch")):
        _trace(lambda x: rt.cond(x > 0, lambda: (x, rt.cast(x, rt.int32)), lambda: (x, x),
                                 names=["x", "total"]), SCALAR_F)


def test_nested_output_paths_name_the_leaf():
    with pytest.raises(GraphTypeError, match=re.escape("'output['b'][1]' has dtype")):
        _trace(lambda x: rt.cond(x > 0, lambda: {"a": x, "b": (x, x)},
                                 lambda: {"a": x, "b": (x, rt.cast(x, rt.int64))}), SCALAR_F)


def test_none_in_only_one_branch_is_an_error():
    with pytest.raises(rt.errors.GraphValueError, match=re.escape(
            "'output[1]' is None in the true branch of a tensor conditional but a value in the other")):
        _trace(lambda x: rt.cond(x > 0, lambda: (x, None), lambda: (x, x)), SCALAR_F)


def test_different_python_values_are_an_error():
    with pytest.raises(GraphTypeError, match=re.escape(
            "'output' is the Python str 'a' in the true branch and the Python str 'b' in the false "
            "branch")):
        _trace(lambda x: rt.cond(x > 0, lambda: "a", lambda: "b"), SCALAR_F)


def test_cond_graph_is_well_formed_and_lifts_captures():
    concrete = _trace(lambda x, y: rt.cond(x > 0, lambda: x + y, lambda: y), SCALAR_F, SCALAR_F)
    concrete.graph.lint()
    (node,) = [n for n in concrete.graph.nodes if n.op.name == "cond"]
    then, otherwise = node.subgraphs["then"], node.subgraphs["else"]
    assert len(then.inputs) == len(otherwise.inputs) == len(node.inputs) - 1
    assert [t.dtype for t in then.inputs] == [t.dtype for t in otherwise.inputs]


# -- while_loop: eager -----------------------------------------------------------------------


def test_eager_while_loop_is_python():
    assert rt.while_loop(lambda i: i < 3, lambda i: i + 1, 0) == 3
    i, total = rt.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
    assert (i, total) == (4, 6)
    assert rt.while_loop(lambda d: d["i"] < 2, lambda d: {"i": d["i"] + 1}, {"i": 0}) == {"i": 2}
    assert rt.while_loop(lambda i: True, lambda i: i + 1, 0, maximum_iterations=5) == 5


def test_eager_while_loop_with_tensors():
    i, acc = rt.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0),
                           (rt.constant(0), rt.constant([1.0, 2.0])))
    assert int(i) == 3
    np.testing.assert_array_equal(acc.numpy(), [8.0, 16.0])


# -- while_loop: traced ----------------------------------------------------------------------


def test_traced_while_loop_runs_at_run_time():
    @rt.function
    def f(n):
        return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))
    i, total = f(rt.constant(5))
    assert (int(i), int(total)) == (5, 10)
    i, total = f(rt.constant(0))
    assert (int(i), int(total)) == (0, 0)
    assert f.tracing_count == 1


def test_single_loop_variable_keeps_its_shape():
    @rt.function
    def f(n):
        return rt.while_loop(lambda i: i < n, lambda i: i + 1, rt.constant(0))
    result = f(rt.constant(7))
    assert result.shape == () and result.numpy() == 7
    one = rt.function(lambda x: rt.while_loop(lambda v: rt.reduce_sum(v) < 10.0, lambda v: (v * 2.0,),
                                              (x,)))(rt.constant([1.0, 2.0]))
    assert isinstance(one, tuple) and one[0].shape == (2,)
    np.testing.assert_array_equal(one[0].numpy(), [4.0, 8.0])


def test_maximum_iterations_static_and_tensor():
    @rt.function
    def f(limit):
        static = rt.while_loop(lambda i: True, lambda i: i + 1, rt.constant(0), maximum_iterations=3)
        dynamic = rt.while_loop(lambda i: i < 100, lambda i: i + 1, rt.constant(0),
                                maximum_iterations=limit)
        return static, dynamic
    static, dynamic = f(rt.constant(7))
    assert (int(static), int(dynamic)) == (3, 7)


def test_loop_variables_in_nested_structures():
    @rt.function
    def f(n):
        def body(state):
            return {"p": Point(state["p"].x + 1, state["p"].y * 2.0), "hist": [state["hist"][0] + 1]}
        return rt.while_loop(lambda state: state["p"].x < n, body,
                             {"p": Point(rt.constant(0), rt.constant(1.0)), "hist": [0]})
    result = f(rt.constant(3))
    assert isinstance(result["p"], Point) and isinstance(result["hist"], list)
    assert int(result["p"].x) == 3 and float(result["p"].y) == 8.0 and int(result["hist"][0]) == 3


def test_while_loop_reads_outer_values():
    @rt.function
    def f(x, n):
        step = x * 2.0
        return rt.while_loop(lambda i, acc: i < n, lambda i, acc: (i + 1, acc + step),
                             (0, rt.zeros([2])))
    concrete = f.get_concrete_function(rt.TensorSpec([2]), SCALAR_I)
    concrete.graph.lint()
    _, acc = f(rt.constant([1.0, 0.5]), rt.constant(3))
    np.testing.assert_array_equal(acc.numpy(), [6.0, 3.0])


def test_nested_while_loops():
    @rt.function
    def f(n):
        def outer_body(i, total):
            _, inner = rt.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + 1), (0, 0))
            return i + 1, total + inner
        return rt.while_loop(lambda i, total: i < n, outer_body, (0, 0))[1]
    assert int(f(rt.constant(4))) == 0 + 1 + 2 + 3


def test_cond_inside_while_loop():
    @rt.function
    def collatz_steps(n):
        def body(value, steps):
            value = rt.cond(value % 2 == 0, lambda: value // 2, lambda: 3 * value + 1)
            return value, steps + 1
        return rt.while_loop(lambda value, steps: value > 1, body, (n, 0))[1]
    assert int(collatz_steps(rt.constant(6))) == 8


def test_loop_variable_dtype_must_not_change():
    with pytest.raises(GraphTypeError, match=re.escape(
            "'loop_vars[1]' has dtype int32 before the loop, but dtype float32 after one iteration")):
        _trace(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, rt.cast(s, rt.float32)),
                                       (0, 0)), SCALAR_I)
    with pytest.raises(GraphTypeError, match=re.escape(
            "'total' has dtype int32 before the loop, but dtype float32 after one iteration")):
        _trace(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 0.5), (0, 0),
                                       names=["i", "total"]), SCALAR_I)


def test_python_literal_in_body_is_weakly_typed():
    @rt.function
    def f(n):
        return rt.while_loop(lambda i, x: i < n, lambda i, x: (i + 1, 1), (0, rt.constant(0.0)))[1]
    result = f(rt.constant(2))
    assert result.dtype == rt.float32 and result.numpy() == 1.0


def test_loop_variable_shape_must_not_change_without_invariants():
    with pytest.raises(ShapeError, match=re.escape(
            "'loop_vars[1]' has shape (1,) before the loop, but shape (2,) after one iteration")) as info:
        _trace(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, rt.concat([s, s], 0)),
                                       (0, rt.constant([1.0]))), SCALAR_I)
    assert "shape_invariants" in str(info.value)


def test_shape_invariants_let_a_shape_vary():
    @rt.function
    def f(n):
        return rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, rt.concat([s, s], 0)),
                             (0, rt.constant([1.0])), shape_invariants=(None, [None]))
    concrete = f.get_concrete_function(SCALAR_I)
    assert [v.shape for v in concrete.graph.outputs] == [(), (None,)]
    _, doubled = f(rt.constant(3))
    np.testing.assert_array_equal(doubled.numpy(), np.ones(8, np.float32))


def test_shape_invariant_must_fit_the_initial_value():
    with pytest.raises(ShapeError, match=re.escape(
            "'loop_vars[0]' enters the loop with shape (2,), which does not fit its shape invariant "
            "(3,)")):
        _trace(lambda x: rt.while_loop(lambda v: False, lambda v: v, (x,), shape_invariants=([3],)),
               rt.TensorSpec([2]))


def test_loop_structure_must_not_change():
    with pytest.raises(GraphTypeError, match=re.escape(
            "the loop body changes the structure of the loop variables: they enter as (*, *) and the "
            "body returns (*, *, *)")):
        _trace(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s, s), (0, 0)),
               SCALAR_I)


def test_loop_variables_must_be_values():
    with pytest.raises(GraphTypeError, match=re.escape("'loop_vars[1]' is None when a tensor loop starts")):
        _trace(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s), (0, None)), SCALAR_I)
    with pytest.raises(GraphTypeError, match=re.escape(
            "'loop_vars[1]' is None at the end of an iteration of a tensor loop")):
        _trace(lambda n: rt.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, None), (0, 0)), SCALAR_I)


def test_loop_condition_must_be_a_bool():
    with pytest.raises(GraphTypeError, match=re.escape(
            "the condition of a tensor loop returned the Python str 'yes'")):
        _trace(lambda n: rt.while_loop(lambda i: "yes", lambda i: i + 1, (n,)), SCALAR_I)
    with pytest.raises(ValueError, match=re.escape(
            "the condition of a tensor while loop must be a scalar, got a tensor of shape (2,)")):
        _trace(lambda x: rt.while_loop(lambda v: v > 0, lambda v: v - 1.0, (x,)), rt.TensorSpec([2]))


def test_while_graph_is_well_formed():
    concrete = _trace(lambda n, x: rt.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * x),
                                                 (0, x)), SCALAR_I, SCALAR_F)
    concrete.graph.lint()
    (node,) = [n for n in concrete.graph.nodes if n.op.name == "while_loop"]
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    assert len(cond.inputs) == len(body.inputs)
    assert [(t.dtype, t.shape) for t in body.outputs] == [(rt.int32, ()), (rt.float32, ())]
    assert cond.outputs[0].dtype == rt.bool and cond.outputs[0].shape == ()
