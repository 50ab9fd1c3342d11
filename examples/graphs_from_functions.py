"""Graphs from functions: a function becomes a graph, and functions it calls join that graph.

Mirrors "Taking advantage of graphs" in the TensorFlow guides (seeds 001, 002, 003): the same
inputs give [[12.]] eagerly and as a graph. Only the import changes: `rt` for `tf`.
"""

import argparse

import runtime as rt
from transpiler import function


def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


def inner_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


@function
def outer_function(x):
    y = rt.constant([[2.0], [3.0]])
    b = rt.constant(4.0)
    return inner_function(x, y, b)


def main(quick: bool = False) -> None:
    a_function_that_uses_a_graph = function(a_regular_function)
    x1 = rt.constant([[1.0, 2.0]])
    y1 = rt.constant([[2.0], [3.0]])
    b1 = rt.constant(4.0)

    orig_value = a_regular_function(x1, y1, b1).numpy()
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    assert orig_value == tf_function_value
    print("eager:", orig_value)
    print("graph:", tf_function_value)

    # outer_function's graph contains inner_function's operations too.
    print("outer_function:", outer_function(rt.constant([[1.0, 2.0]])).numpy())
    concrete = outer_function.get_concrete_function(rt.constant([[1.0, 2.0]]))
    print(concrete.graph)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
