"""Algebraic simplification: exact identities only, never changing dtype, shape or any value
(NaN, infinities, -0.0 and integer extremes included)."""

import numpy as np
import pytest

import runtime as rt
from runtime.ops.array_ops import CAST
from runtime.ops.dispatch import apply_op
from runtime.passes import prune, simplify
from tests.runtime.graph_helpers import apply, assert_identical, ops, run_graph, traced_graph

F32 = rt.TensorSpec([6], rt.float32)
F32_2D = rt.TensorSpec([2, 2], rt.float32)
I32 = rt.TensorSpec([4], rt.int32)
BOOL = rt.TensorSpec([2], rt.bool)
C64 = rt.TensorSpec([3], rt.complex64)

DATA = {
    F32: np.array([-0.0, 0.0, np.nan, np.inf, -np.inf, 1e-40], np.float32),
    F32_2D: np.array([[-0.0, np.nan], [np.inf, 2.5]], np.float32),
    I32: np.array([-2**31, 2**31 - 1, 0, -1], np.int32),
    BOOL: np.array([True, False]),
    C64: np.array([complex(-0.0, -0.0), complex(np.inf, 1.0), complex(1.0, np.inf)], np.complex64),
}


def simplified(fn, spec):
    """The graph of ``fn`` before and after simplification (checked to compute identical
    results on special values), and the pass's changes."""
    before = traced_graph(fn, spec)
    after = before.copy()
    changes = apply(simplify.run, after)
    with np.errstate(all="ignore"):
        assert_identical(run_graph(after, DATA[spec]), run_graph(before, DATA[spec]))
    return before, after, changes


def pruned_ops(graph):
    """The ops left once what the simplification made unused is pruned."""
    apply(prune.run, graph)
    return ops(graph)


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x * 1.0, F32), (lambda x: 1.0 * x, F32), (lambda x: x - 0.0, F32),
    (lambda x: x / 1.0, F32), (lambda x: x ** 1.0, F32), (lambda x: -(-x), F32),
    (lambda x: rt.identity(x), F32),
    (lambda x: apply_op(CAST, [x], {"dtype": x.dtype}), F32),  # rt.cast would return x itself
    (lambda x: rt.reshape(x, [6]), F32), (lambda x: rt.reshape(x, [-1]), F32),
    (lambda x: rt.transpose(x), F32), (lambda x: rt.transpose(x, [0, 1]), F32_2D),
    (lambda x: x + 0, I32), (lambda x: 0 + x, I32), (lambda x: x - 0, I32), (lambda x: x * 1, I32),
    (lambda x: 1 * x, I32), (lambda x: x // 1, I32), (lambda x: x ** 1, I32), (lambda x: -(-x), I32),
    (lambda b: rt.logical_and(b, True), BOOL), (lambda b: rt.logical_or(False, b), BOOL),
    (lambda b: rt.logical_not(rt.logical_not(b)), BOOL), (lambda b: b * True, BOOL),
    (lambda b: rt.add(b, False), BOOL),
])
def test_exact_identities_disappear(fn, spec):
    _, after, changes = simplified(fn, spec)
    assert len(changes) >= 1
    assert pruned_ops(after) == []


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x + 0.0, F32),            # -0.0 + 0.0 is 0.0
    (lambda x: 0.0 + x, F32),
    (lambda x: x * 0.0, F32),            # inf * 0.0 and NaN * 0.0 are NaN
    (lambda x: 0.0 * x, F32),
    (lambda x: x - (-0.0), F32),         # x + 0.0 in disguise
    (lambda x: x * 2.0, F32),
    (lambda x: rt.transpose(x, [1, 0]), F32_2D),
    (lambda x: x * rt.ones([2, 6]), F32),  # broadcasting changes the shape
    (lambda x: x / 1, I32),
    (lambda x: rt.logical_not(rt.logical_not(x)), I32),  # the result is a bool
    (lambda x: x * 1, C64),              # complex arithmetic mixes the parts
    (lambda x: x - 0, C64),
    (lambda x: x / 1, C64),
    (lambda x: x ** 1, C64),
])
def test_identities_that_would_change_a_value_or_a_type_are_not_applied(fn, spec):
    before, after, changes = simplified(fn, spec)
    assert changes == []
    assert ops(after) == ops(before)


def test_the_float_identities_that_are_not_applied_really_are_not_exact():
    x = DATA[F32]
    z = DATA[C64]
    with np.errstate(all="ignore"):  # the inf/nan data makes NumPy warn, as intended here
        assert np.signbit(x + np.float32(0.0))[0] != np.signbit(x)[0]
        assert np.isnan(x * np.float32(0.0))[3] and not np.isnan(x)[3]
        assert np.signbit((z * np.complex64(1)).real[0]) != np.signbit(z.real[0])


def test_integer_times_zero_is_zeros_of_the_right_shape_and_dtype():
    _, after, changes = simplified(lambda x: (x * 0, 0 * x), I32)
    assert len(changes) == 2 and pruned_ops(after) == []
    assert_identical(run_graph(after, DATA[I32]), [np.zeros(4, np.int32)] * 2)


def test_integer_times_zero_of_unknown_shape_stays():
    graph = traced_graph(lambda x: x * 0, rt.TensorSpec([None], rt.int32))
    assert apply(simplify.run, graph) == [] and ops(graph) == ["multiply"]


@pytest.mark.parametrize("spec", [F32, I32])
def test_pow_two_becomes_square(spec):
    _, after, changes = simplified(lambda x: x ** 2, spec)
    assert [line.split(": ")[1] for line in changes] == ["x ** 2 became square(x)"]
    assert pruned_ops(after) == ["square"]


def test_rules_apply_inside_branches_and_loop_bodies():
    def f(x):
        y = rt.cond(rt.reduce_sum(x) > 0, lambda: x * 1.0, lambda: -(-x))
        return rt.while_loop(lambda v: rt.reduce_sum(v) < 10.0, lambda v: (v - 0.0) + 1.0, (y,))[0]
    before = traced_graph(f, rt.TensorSpec([2], rt.float32))
    after = before.copy()
    assert len(apply(simplify.run, after)) == 3
    x = np.array([1.0, -0.5], np.float32)
    assert_identical(run_graph(after, x), run_graph(before, x))


@pytest.mark.parametrize("spec", [F32, I32])
def test_a_select_inside_a_select_on_the_same_condition_goes(spec):
    def f(x):
        positive = x > 0
        return (rt.where(positive, x, rt.where(positive, -x, x * 3)),
                rt.where(positive, rt.where(positive, x * 2, -x), x * 5))
    _, after, changes = simplified(f, spec)
    assert [line.split(": ")[1] for line in changes] == [
        "select inside a select on the same condition removed"] * 2
    assert pruned_ops(after).count("where") == 2


def test_a_select_whose_inner_select_sets_the_shape_or_has_another_condition_stays():
    def f(x):
        positive, big = x > 0, x > 2
        scalar = rt.reduce_sum(x) > 0
        return (rt.where(scalar, 1.0, rt.where(scalar, x, 2.0)),  # the inner one broadcasts
                rt.where(positive, x, rt.where(big, -x, x)))
    before, after, changes = simplified(f, F32)
    assert changes == [] and ops(after) == ops(before)


def test_relu_gradient_in_a_training_step_is_one_select():
    w = rt.Variable(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32))

    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(rt.nn.relu(rt.matmul(x, w)))
        return tape.gradient(loss, w)
    graph = rt.function(step).get_concrete_function(rt.TensorSpec([3, 2], rt.float32)).graph
    assert ops(graph).count("where") == 1
