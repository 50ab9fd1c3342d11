"""tf.gradients and tf.hessians (runtime.ops.symbolic_gradients): gradients taken from the
traced graph agree with the tape's, through control flow too, and are refused eagerly."""

import numpy as np
import pytest

import runtime as rt
from runtime.ops.symbolic_gradients import gradients, hessians


def test_graph_gradients_agree_with_the_tape_through_a_loop_and_a_conditional():
    def loss(x):
        y = rt.while_loop(lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * x), (0, x))[1]
        return rt.reduce_sum(rt.cond(rt.reduce_sum(x) > 0, lambda: y * 2.0, lambda: -y))

    @rt.function
    def by_graph(x):
        return gradients(loss(x), [x])[0]

    @rt.function
    def by_tape(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            value = loss(x)
        return tape.gradient(value, x)

    for x in (rt.constant([0.5, 1.5]), rt.constant([-2.0, 0.5])):
        np.testing.assert_allclose(by_graph(x), by_tape(x), rtol=1e-6)


def test_hessians_match_finite_differences_of_the_gradient():
    @rt.function
    def hessian(x):
        return hessians(rt.reduce_sum(rt.exp(x) * x[0] + x ** 3), [x])[0]

    def gradient(x):
        return 3 * x ** 2 + np.exp(x) * x[0] + np.array([np.exp(x).sum(), 0.0])

    x, h = np.array([0.3, -0.7]), 1e-6
    numeric = np.stack([(gradient(x + h * e) - gradient(x - h * e)) / (2 * h)
                        for e in np.eye(2)], axis=1)
    np.testing.assert_allclose(hessian(rt.constant(x)), numeric, rtol=1e-5)


def test_eager_calls_raise_tensorflows_runtime_error():
    with pytest.raises(RuntimeError, match="GradientTape"):
        gradients(rt.constant(1.0), [rt.constant(1.0)])
    with pytest.raises(RuntimeError, match="GradientTape"):
        hessians(rt.constant(1.0), [rt.constant(1.0)])
