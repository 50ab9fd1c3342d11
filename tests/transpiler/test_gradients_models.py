"""Gradients of converted model code: rt.Variables read in loops, training loops traced
whole, variables assigned under the tape, the seed's ``line_search_step`` and random draws.
Graph (``transpiler.function``), eager and finite differences in float64 agree (helpers in
test_gradients_converted)."""

import contextlib

import numpy as np
import pytest

import runtime as rt
import transpiler
from runtime.errors import GradientError
from tests.transpiler.test_gradients_converted import (assert_close, both_ways, check,
                                                       finite_difference, functions_run_eagerly)


# --------------------------------------------------------------------------------------------
# A recurrent model as rt.Variables read in a loop


class Recurrent(rt.Module):
    def __init__(self, dtype=np.float64):
        self.w = rt.Variable(np.array([[0.5, -0.3], [0.2, 0.8]], dtype))
        self.b = rt.Variable(np.array([0.1, -0.2], dtype))
        self.scale = rt.Variable(np.array(0.9, dtype))

    def loss(self, xs, steps):
        h = rt.zeros_like(self.b)
        for t in range(steps):
            h = rt.tanh(rt.matmul(rt.reshape(h, [1, 2]), self.w)[0] + xs[t] + self.b)
            if rt.reduce_sum(h) > 0.0:
                h = h * self.scale
            else:
                h = h - self.b * 0.5
        return rt.reduce_sum(h * h)


def loss_and_gradients(model, xs, steps):
    with rt.GradientTape() as tape:
        loss = model.loss(xs, steps)
    return loss, tape.gradient(loss, [model.w, model.b, model.scale])


XS = np.array([[0.3, -0.1], [0.5, 0.4], [-0.2, 0.1], [0.05, 0.6]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("steps", [0, 1, 4])
def test_variables_read_in_a_loop(steps, dtype):
    model = Recurrent(dtype)
    args = (model, rt.constant(XS.astype(dtype)), rt.constant(steps))
    graph, eager = both_ways(loss_and_gradients, *args)
    if steps == 0:  # the graph's gradient is zero where eagerly nothing connects
        assert eager[1][:2] == [None, None]
        np.testing.assert_array_equal(graph[1][1].numpy(), np.zeros(2))
        return
    assert_close(graph, eager, rtol=1e-9 if dtype == np.float64 else 1e-5)
    assert all(g.dtype == dtype for g in graph[1])
    if dtype == np.float32:
        return
    for variable, grad in zip([model.w, model.b, model.scale], graph[1]):
        start = variable.numpy().copy()

        def loss_at(value):
            variable.assign(value)
            return model.loss(*args[1:]).numpy()
        expected = finite_difference(loss_at, start)
        variable.assign(start)
        np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-6, atol=1e-9)


X = rt.constant(np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.3]]))
Y = rt.constant(np.array([1.0, 0.0, 2.0]))


def train(w, b, optimizer, steps):
    """A whole training loop in one graph: the tape is inside the converted loop."""
    for step in range(steps):
        with rt.GradientTape() as tape:
            error = rt.reduce_sum(X * w, axis=1) + b - Y
            loss = rt.reduce_mean(error * error)
            if loss > 0.5:
                loss = loss * 2.0
        optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))
    return loss


@pytest.mark.parametrize("optimizer", [lambda: rt.optimizers.SGD(0.1, momentum=0.5),
                                       lambda: rt.optimizers.Adam(0.05)], ids=["sgd", "adam"])
def test_a_training_loop_traced_whole(optimizer):
    results = []
    for eagerly in (False, True):
        w, b = rt.Variable(np.array([0.5, -0.5])), rt.Variable(np.float64(0.1))
        with functions_run_eagerly() if eagerly else contextlib.nullcontext():
            loss = transpiler.function(train)(w, b, optimizer(), rt.constant(5))
        results.append([loss.numpy(), w.numpy(), b.numpy()])
    for graph, eager in zip(*results):
        np.testing.assert_allclose(graph, eager, rtol=1e-9)


# --------------------------------------------------------------------------------------------
# Variables assigned under the tape


W_START = 1.5
w = rt.Variable(np.float64(W_START))
v = rt.Variable(np.float64(0.5))


def assigned_before_the_loop(x, n):
    with rt.GradientTape() as tape:
        w.assign(w * 2.0)
        y = x
        for i in range(n):
            y = y * w
    return y, tape.gradient(y, w)


def assigned_after_the_loop(x, n):
    with rt.GradientTape() as tape:
        y = x
        for i in range(n):
            y = y * w
        w.assign(w * 2.0)
        y = y * w
    return y, tape.gradient(y, w)


def other_variable_assigned_in_the_loop(x, n):
    v.assign(0.5)
    with rt.GradientTape() as tape:
        y = x
        for i in range(n):
            y = y * w + v
            v.assign(y)
    return y, tape.gradient(y, w)


def assigned_in_the_loop(x, n):
    with rt.GradientTape() as tape:
        y = x
        for i in range(n):
            y = y * w
            w.assign_add(0.5)
    return y, tape.gradient(y, w)


@pytest.mark.parametrize("step", [assigned_before_the_loop, assigned_after_the_loop,
                                  other_variable_assigned_in_the_loop])
def test_variables_assigned_outside_the_loop(step):
    """Reads before and after an assignment are different values of the variable, each
    one a path for its gradient (as in TensorFlow)."""
    results = []
    for eagerly in (False, True):
        w.assign(np.float64(W_START))
        with functions_run_eagerly() if eagerly else contextlib.nullcontext():
            results.append(transpiler.function(step)(rt.constant(1.0, rt.float64),
                                                     rt.constant(3)))
    assert_close(*results)
    if step is assigned_after_the_loop:  # y = x w^3 (w = 1.5), then y * w (w = 3)
        assert float(results[0][1]) == pytest.approx(3 * 1.5 ** 2 * 3 + 1.5 ** 3)


def test_a_variable_assigned_in_the_loop_it_is_read_in_is_a_clear_error():
    w.assign(np.float64(W_START))
    loop_line = assigned_in_the_loop.__code__.co_firstlineno + 3
    with pytest.raises(GradientError, match=rf"variable '{w.name}': it is read inside the "
                       rf"while_loop created at test_gradients_models\.py:{loop_line}\b.*"
                       rf"Read the variable once before the loop"):
        transpiler.function(assigned_in_the_loop)(rt.constant(1.0, rt.float64),
                                                  rt.constant(3))


# --------------------------------------------------------------------------------------------
# The seed's line_search_step (tf.GradientTape example "dynamic models")


def quartic(x):
    return rt.reduce_sum(x * x * x * 0.25 - x * 2.0 + 1.0)


def line_search_step(fn, init_x, rate=1.0):
    with rt.GradientTape() as tape:
        tape.watch(init_x)
        value = fn(init_x)

    grad = tape.gradient(value, init_x)
    grad_norm = rt.reduce_sum(grad * grad)  # noqa: F841 (as in the seed)
    init_value = value - 1

    while value > init_value:
        x = init_x - rate * grad
        value = fn(x)
        rate /= 2.0

    return x, value


def line_search_value(x, rate):
    return line_search_step(quartic, x, rate)[1]


def line_search_point(x, rate):
    point, _ = line_search_step(quartic, x, rate)
    return rt.reduce_sum(point * point)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("model", [line_search_value, line_search_point])
@pytest.mark.parametrize("rate", [1.0, 4.0])
def test_line_search_step(model, rate, dtype):
    """Differentiating the step differentiates its inner gradient too (second derivatives of
    ``quartic``) and the loop that halves the rate."""
    check(model, [1.5, 2.5], rate, dtype=dtype)


def test_line_search_step_result():
    x, value = transpiler.function(line_search_step)(quartic, rt.constant([1.5, 2.5]))
    np.testing.assert_allclose(x.numpy(), [1.578125, 1.828125])
    assert value.dtype == rt.float32 and float(value) < float(quartic(rt.constant([1.5, 2.5])))


# --------------------------------------------------------------------------------------------
# Random draws in loops and branches


def noisy_sum(x, n):
    """Returns the draws next to the gradient, which is 2 x * (sum of draws)."""
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x * 0.0
        draws = x * 0.0
        for i in range(n):
            e = rt.random.normal([], dtype=x.dtype)
            if e > -10.0:
                y = y + x * x * e
            draws = draws + e
    return draws, tape.gradient(y, x)


def test_random_draws_in_a_loop_are_kept_for_the_gradient():
    rt.random.set_seed(7)
    draws, grad = transpiler.function(noisy_sum)(rt.constant(1.5, rt.float64), rt.constant(4))
    assert float(draws) != 0.0
    assert float(grad) == pytest.approx(3.0 * float(draws), rel=1e-12)


def noise_in_a_nested_branch(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = x
        for i in range(n):
            if y > 1.0:
                y = y + x * rt.random.normal([], dtype=x.dtype)
            else:
                y = y * x
    return tape.gradient(y, x)


def test_random_draws_in_a_branch_inside_a_loop_are_a_clear_error():
    branch_line = noise_in_a_nested_branch.__code__.co_firstlineno + 5
    with pytest.raises(GradientError, match=rf"cond created at test_gradients_models\.py:"
                       rf"{branch_line}\b: it draws random numbers.*Draw the numbers outside"):
        transpiler.function(noise_in_a_nested_branch)(rt.constant(1.5, rt.float64),
                                                      rt.constant(3))
