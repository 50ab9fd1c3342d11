"""Automatic differentiation: every GradientTape example of the recitation (seed 004).

A tape records the forward pass and plays it backwards: `w * w` gives `[[2.]]`; a tape gives
one gradient (a second call is a RuntimeError); gradients flow through "dynamic models", here
the seed's `line_search_step` with its `while` loop on a tensor, run eagerly and as a graph;
and `rt.custom_gradient` gives a numerically stable gradient of `log(1 + exp(x))` at 100
(`nan` without it, `1.0` with it).
"""

import argparse

import numpy as np

import runtime as rt
from transpiler import function

# -- GradientTape -----------------------------------------------------------------------------


def square_gradient() -> None:
    w = rt.Variable([[1.0]])
    with rt.GradientTape() as tape:
        loss = w * w

    grad = tape.gradient(loss, w)
    print("gradient of w * w at [[1.]]:", grad)  # => Tensor([[2.]], shape=(1, 1), dtype=float32)
    try:
        tape.gradient(loss, w)
    except RuntimeError as error:
        print(f"second gradient call: RuntimeError: {error}")


# -- dynamic models -----------------------------------------------------------------------------


def line_search_step(fn, init_x, rate=1.0):
    with rt.GradientTape() as tape:
        tape.watch(init_x)
        value = fn(init_x)

    grad = tape.gradient(value, init_x)
    grad_norm = rt.reduce_sum(grad * grad)  # noqa: F841 (unused, as in the seed)
    init_value = value - 1

    while value > init_value:
        x = init_x - rate * grad
        value = fn(x)
        rate /= 2.0

    return x, value


def quartic(x):
    return rt.reduce_sum(x ** 4)


def gradient_through_the_step(init_x):
    """Beyond the seed: the gradient of the step's result with respect to its start, through
    the inner tape and the `while` loop (a second-order gradient)."""
    with rt.GradientTape() as tape:
        tape.watch(init_x)
        _, value = line_search_step(quartic, init_x)
    return tape.gradient(value, init_x)


def dynamic_models() -> None:
    init_x = rt.constant([1.0, 2.0])
    x, value = line_search_step(quartic, init_x)
    print(f"line_search_step(quartic, [1. 2.]), eager: x = {x.numpy()}, value = {value.numpy()}")

    # Converted: the `while` on a tensor becomes an rt.while_loop in the graph.
    graph_x, graph_value = function(line_search_step)(quartic, init_x)
    print(f"line_search_step(quartic, [1. 2.]), graph: x = {graph_x.numpy()}, "
          f"value = {graph_value.numpy()}")
    assert np.array_equal(x.numpy(), graph_x.numpy()) and value.numpy() == graph_value.numpy()

    eager = gradient_through_the_step(init_x)
    graph = function(gradient_through_the_step)(init_x)
    print(f"d value / d init_x through the loop: eager {eager.numpy()}, graph {graph.numpy()}")


# -- custom gradients -------------------------------------------------------------------------


def log1pexp(x):
    return rt.log(1 + rt.exp(x))


def grad_log1pexp(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        value = log1pexp(x)
    return tape.gradient(value, x)


@rt.custom_gradient
def stable_log1pexp(x):
    e = rt.exp(x)

    def grad(dy):
        return dy * (1 - 1 / (1 + e))
    return rt.log(1 + e), grad


def grad_stable_log1pexp(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        value = stable_log1pexp(x)
    return tape.gradient(value, x)


def custom_gradients() -> None:
    x = rt.constant(100.0)
    # exp(100) overflows float32 to inf on purpose: that is what the example shows (the plain
    # gradient is inf * 0 = nan). NumPy's overflow warnings would only repeat it.
    with np.errstate(over="ignore", invalid="ignore"):
        print("grad_log1pexp(100.), normal gradient:", grad_log1pexp(x).numpy())  # => nan
        print("grad_log1pexp(100.), custom gradient:", grad_stable_log1pexp(x).numpy())  # => 1.0
        print("as graphs: normal", function(grad_log1pexp)(x).numpy(),
              "custom", function(grad_stable_log1pexp)(x).numpy())


def main(quick: bool = False) -> None:
    square_gradient()
    dynamic_models()
    custom_gradients()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
