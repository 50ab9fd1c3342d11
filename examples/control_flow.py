"""Control flow becomes graph control flow, and `to_code` shows how.

Mirrors "Converting Python functions to graphs" (seeds 001, 002, 003): `my_function` and
`simple_relu` take both branches correctly as graphs, and `to_code` prints the generated
Python, which reads much like the original.
"""

import argparse

import runtime as rt
from transpiler import function, to_code


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def my_function(x):
    if rt.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


def main(quick: bool = False) -> None:
    tf_simple_relu = function(simple_relu)
    print("First branch, with graph:", tf_simple_relu(rt.constant(1)).numpy())
    print("Second branch, with graph:", tf_simple_relu(rt.constant(-1)).numpy())
    print(to_code(simple_relu))

    a_function = function(my_function)
    print("First branch, with graph:", a_function(rt.constant(1.0)).numpy())
    print("Second branch, with graph:", a_function(rt.constant([5.0, 5.0])).numpy())
    print(to_code(my_function))

    # The graph itself: one typed node per line, with the line of the source that made it.
    print(tf_simple_relu.get_concrete_function(rt.constant(1)).graph)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="(no effect: this example is fast)")
    main(parser.parse_args().quick)
