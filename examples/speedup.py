"""Seeing the speed-up: graphs beat eager execution on many small operations.

Mirrors "Seeing the speed-up" (seeds 001, 002, 003): `power(x, 100)` (100 small matmuls) and a
model of 100 small Dense layers, timed eagerly and as graphs.
"""

import argparse
import timeit

import numpy as np

import runtime as rt
from transpiler import function


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


class Dense:
    """A fully connected layer: relu(x @ w + b), or no activation."""

    def __init__(self, units: int, inputs: int, activation=None, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.w = rt.Variable(rt.constant(rng.normal(0, 0.1, (inputs, units)).astype(np.float32)))
        self.b = rt.Variable(rt.zeros([units]))
        self.activation = activation

    def __call__(self, x):
        y = rt.matmul(x, self.w) + self.b
        if self.activation is not None:
            y = self.activation(y)
        return y


class SequentialModel:
    """Flatten, 100 small relu layers, and a final Dense(10), as in the seed's Keras model."""

    def __init__(self, num_layers: int = 100):
        self.my_layers = [Dense(64, 784 if n == 0 else 64, rt.nn.relu, seed=n)
                          for n in range(num_layers)]
        self.dense_2 = Dense(10, 64, seed=num_layers)

    def call(self, x):
        x = rt.reshape(x, (x.shape[0], -1))
        for layer in self.my_layers:
            x = layer(x)
        x = self.dense_2(x)
        return x

    def __call__(self, x):
        return self.call(x)


def main(quick: bool = False) -> None:
    number = 20 if quick else 1000
    x = rt.random.uniform(shape=[10, 10], minval=-1, maxval=2, dtype=rt.int32, seed=1)
    power_as_graph = function(power)
    assert (power(x, 100).numpy() == power_as_graph(x, 100).numpy()).all()
    eager = timeit.timeit(lambda: power(x, 100), number=number)
    graph = timeit.timeit(lambda: power_as_graph(x, 100), number=number)
    print(f"power, {number} calls: eager {eager:.3f} s, graph {graph:.3f} s ({eager / graph:.1f}x)")

    input_data = rt.random.uniform([20, 28, 28], seed=2)
    eager_model = SequentialModel()
    graph_model = SequentialModel()
    graph_model.call = function(graph_model.call)  # wrap the call method, as in the seed
    np.testing.assert_allclose(eager_model(input_data).numpy(), graph_model(input_data).numpy(),
                               rtol=1e-5, atol=1e-6)
    number = 5 if quick else 100
    eager = timeit.timeit(lambda: eager_model(input_data), number=number)
    graph = timeit.timeit(lambda: graph_model(input_data), number=number)
    print(f"100-layer model, {number} calls: eager {eager:.3f} s, graph {graph:.3f} s "
          f"({eager / graph:.1f}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer timed calls")
    main(parser.parse_args().quick)
