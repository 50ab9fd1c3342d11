"""Gradients through rt.cond and rt.while_loop inside traced functions: they agree with the
same computation run eagerly (Python control flow) and with central finite differences."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import GradientError

# Every check traces a new function on purpose (one graph per model).
pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def finite_difference(fn, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (float(fn(x + step)) - float(fn(x - step))) / (2 * eps)
    return grad


def check(model, x, *args):
    """``model(x, *args)`` gives a scalar: its gradient in a graph, eagerly and by finite
    differences agree."""
    def gradient(x, *args):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = model(x, *args)
        return y, tape.gradient(y, x)

    x = np.asarray(x, np.float64)
    tensors = [rt.constant(a) for a in args]
    _, eager = gradient(rt.constant(x), *tensors)
    _, graph = rt.function(gradient)(rt.constant(x), *tensors)
    expected = finite_difference(lambda v: model(rt.constant(v), *tensors), x)
    np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=1e-12)
    np.testing.assert_allclose(graph.numpy(), expected, rtol=1e-6, atol=1e-8)
    return graph


def power_loop(x, n):
    _, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), (0, rt.ones_like(x)))
    return rt.reduce_sum(y) if x.shape else y


@pytest.mark.parametrize("n", [1, 2, 5])
def test_loop_with_a_tensor_bound(n):
    check(power_loop, 1.3, n)
    check(power_loop, [0.5, -1.5, 2.0], n)


def test_a_loop_that_runs_zero_times_passes_the_gradient_through():
    def model(x, n):
        return rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x), (0, x))[1]
    check(model, 1.3, 0)


def test_connectivity_in_a_graph_is_decided_while_tracing():
    """As in TensorFlow: eagerly a loop that ran zero times leaves no path (None); a graph
    cannot know the count while tracing, so the gradient is zero."""
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = power_loop(x, n)
        return tape.gradient(y, x)
    assert gradient(rt.constant(2.0), rt.constant(0)) is None
    assert float(rt.function(gradient)(rt.constant(2.0), rt.constant(0))) == 0.0


def test_a_variable_read_in_a_loop_that_assigns_it_is_refused():
    w = rt.Variable(1.5)

    @rt.function
    def step(n):
        with rt.GradientTape() as tape:
            def body(i, y):
                w.assign(w * 1.0)
                return i + 1, y * w
            _, y = rt.while_loop(lambda i, y: i < n, body, (0, rt.constant(1.0)))
        return tape.gradient(y, w)
    with pytest.raises(GradientError, match="'.*' is read inside|read inside the while_loop"):
        step(rt.constant(2))


def test_loop_with_maximum_iterations():
    def capped(x):
        _, y = rt.while_loop(lambda i, y: True, lambda i, y: (i + 1, y * x + 1.0), (0, x),
                             maximum_iterations=4)
        return y
    check(capped, 0.7)


def test_loop_variables_feed_each_other():
    def fibonacci_like(x, n):
        def body(i, a, b):
            return i + 1, b, a * x + b
        _, a, b = rt.while_loop(lambda i, a, b: i < n, body, (0, x, x * x))
        return a * b
    check(fibonacci_like, 1.1, 6)


def test_cond_picks_the_gradient_of_the_branch_taken():
    def piecewise(x, p):
        return rt.cond(p > 0, lambda: x * x * x, lambda: x * 4.0)
    assert float(check(piecewise, 2.0, 1)) == pytest.approx(12.0)
    assert float(check(piecewise, 2.0, -1)) == pytest.approx(4.0)


def test_cond_inside_a_loop():
    def body(i, y, x):
        return i + 1, rt.cond(y * y > 4.0, lambda: y * 0.5, lambda: y * x), x

    def model(x, n):
        return rt.while_loop(lambda i, y, x: i < n, body, (0, x, x))[1]
    for n in range(6):
        check(model, 1.7, n)


def test_loop_inside_a_cond():
    def model(x, p):
        return rt.cond(p > 0, lambda: power_loop(x, 3), lambda: x + x)
    check(model, 1.5, 1)
    check(model, 1.5, 0)


def test_nested_loops():
    def model(x, n):
        def outer(i, y):
            return i + 1, power_loop(y, 2) * 0.5 + x
        return rt.while_loop(lambda i, y: i < n, outer, (0, x))[1]
    check(model, 0.9, 3)


def test_loop_capturing_a_variable():
    w = rt.Variable(1.5, dtype=rt.float64)

    @rt.function
    def step(n):
        with rt.GradientTape() as tape:
            _, y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * w), (0, w))
        return tape.gradient(y, w)
    assert float(step(rt.constant(3))) == pytest.approx(4 * 1.5 ** 3)


def test_random_draws_inside_a_loop_are_kept_not_redrawn():
    @rt.function
    def step(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            def body(i, y, product):
                u = rt.random.uniform([], dtype=rt.float64) + 0.5
                return i + 1, y * x * u, product * u
            _, y, product = rt.while_loop(lambda i, y, p: i < n, body,
                                          (0, rt.constant(1.0, rt.float64), rt.constant(1.0, rt.float64)))
        return tape.gradient(y, x), product
    grad, product = step(rt.constant(2.0, rt.float64), rt.constant(3))
    assert float(grad) == pytest.approx(3 * 2.0 ** 2 * float(product))


def test_a_variable_assigned_in_the_loop_is_read_as_it_was():
    v = rt.Variable(1.0, dtype=rt.float64, trainable=False)

    @rt.function
    def step(x, n):
        v.assign(1.0)
        with rt.GradientTape() as tape:
            tape.watch(x)
            def body(i, y):
                v.assign(v * 2.0)
                return i + 1, y * x * v
            _, y = rt.while_loop(lambda i, y: i < n, body, (0, rt.constant(1.0, rt.float64)))
        return tape.gradient(y, x)
    # y = x^3 * 2 * 4 * 8: dy/dx = 3 x^2 * 64
    assert float(step(rt.constant(2.0, rt.float64), rt.constant(3))) == pytest.approx(3 * 4.0 * 64)


def test_gradient_graph_shows_the_backward_loop():
    @rt.function
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = power_loop(x, n)
        return tape.gradient(y, x)
    text = str(gradient.get_concrete_function(rt.constant(1.0), rt.constant(2)).graph)
    assert text.count("while_loop(") == 2 and "tensor_array_write" in text
    assert float(gradient(rt.constant(2.0), rt.constant(3))) == 12.0


def test_a_traced_gradient_step_with_loops_can_be_saved_and_loaded(tmp_path):
    @rt.function
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = power_loop(x, n)
        return tape.gradient(y, x)
    concrete = gradient.get_concrete_function(rt.constant(1.0), rt.constant(2))
    rt.save(concrete, tmp_path / "gradient.e2g")
    loaded = rt.load(tmp_path / "gradient.e2g")
    assert float(loaded(rt.constant(2.0), rt.constant(3))) == 12.0


def test_a_list_appended_to_in_a_loop_has_a_gradient():
    def model(x, n):
        array = rt.TensorArray(rt.float64, size=0, dynamic_size=True)
        _, array = rt.while_loop(lambda i, a: i < n,
                                 lambda i, a: (i + 1, a.write(i, x * rt.cast(i + 1, rt.float64))),
                                 (0, array))
        stacked = array.stack()
        return rt.reduce_sum(stacked * stacked)
    for n in (1, 3, 7):
        check(model, 1.5, n)
        check(model, [1.5, -0.5], n)


def test_a_list_a_loop_reads_and_grows_is_a_clear_error():
    @rt.function
    def gradient(x, n):
        with rt.GradientTape() as tape:
            tape.watch(x)
            array = rt.TensorArray(rt.float32, size=1, dynamic_size=True).write(0, x)
            def body(i, a):
                return i + 1, a.write(i + 1, a.read(i) * x)
            _, array = rt.while_loop(lambda i, a: i < n, body, (0, array))
            y = array.stack()
        return tape.gradient(y, x)
    with pytest.raises(GradientError, match="changes shape"):
        gradient(rt.constant(1.0), rt.constant(3))


def test_a_fixed_size_tensor_array_written_in_a_loop_has_a_gradient():
    def model(x, n):
        array = rt.TensorArray(rt.float64, size=3, element_shape=())
        _, array = rt.while_loop(lambda i, a: i < n,
                                 lambda i, a: (i + 1, a.write(i, x * rt.cast(i + 1, rt.float64))),
                                 (0, array))
        return rt.reduce_sum(array.stack() * array.stack())
    check(model, 1.5, 3)


def test_second_and_third_derivatives_through_a_loop():
    """The first backward loop reads the values the forward loop kept; differentiating it
    again sends gradients into those stacks, which must reach the loop's variables."""
    def derivatives(x, n):
        with rt.GradientTape() as third:
            third.watch(x)
            with rt.GradientTape() as second:
                second.watch(x)
                with rt.GradientTape() as first:
                    first.watch(x)
                    y = rt.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, y * x + x),
                                      (0, x))[1]
                d1 = first.gradient(y, x)
            d2 = second.gradient(d1, x)
        return d1, d2, third.gradient(d2, x)
    x = rt.constant(1.5, rt.float64)
    for n in (2, 3, 5):
        eager = derivatives(x, rt.constant(n))
        graph = rt.function(derivatives)(x, rt.constant(n))
        for a, b in zip(eager, graph):
            np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12)


def test_second_derivative_through_a_cond():
    def derivatives(x, p):
        with rt.GradientTape() as second:
            second.watch(x)
            with rt.GradientTape() as first:
                first.watch(x)
                y = rt.cond(p > 0, lambda: x * x * x, lambda: x * x)
            d1 = first.gradient(y, x)
        return d1, second.gradient(d1, x)
    x = rt.constant(2.0, rt.float64)
    for p, expected in ((1, [12.0, 12.0]), (0, [4.0, 2.0])):
        for result in (derivatives(x, rt.constant(p)), rt.function(derivatives)(x, rt.constant(p))):
            assert [float(v) for v in result] == expected
