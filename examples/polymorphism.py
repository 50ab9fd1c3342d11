"""Polymorphism: one function, one graph per kind of input; and when tracing happens.

Mirrors "Polymorphism: one Function, many graphs" and the tracing examples (seeds 002, 003):
`my_relu` makes three graphs for three input signatures and reuses them; a Python `print`
inside shows when a trace runs (tensors of the same signature reuse a graph, new Python
numbers each trace again).
"""

import argparse

import runtime as rt
from transpiler import function


@function
def my_relu(x):
    return rt.maximum(0., x)


@function
def tracing_function(x):
    print("Tracing")
    return x


def main(quick: bool = False) -> None:
    # `my_relu` creates new graphs as it observes different input types.
    print(my_relu(rt.constant(5.5)))
    print(my_relu([1, -1]))
    print(my_relu(rt.constant([3., -3.])))
    # These two calls do *not* create new graphs.
    print(my_relu(rt.constant(-2.5)))  # Input type matches `rt.constant(5.5)`.
    print(my_relu(rt.constant([-1., 1.])))  # Input type matches `rt.constant([3., -3.])`.
    print("graphs traced:", my_relu.tracing_count)
    print(my_relu.pretty_printed_concrete_signatures())

    print("#1: ", tracing_function(rt.constant(5)))  # tracing
    print("#2: ", tracing_function(rt.constant(6)))  # no tracing
    print("#1: ", tracing_function(5))  # tracing
    print("#2: ", tracing_function(6))  # tracing: a new Python value is a new signature


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
