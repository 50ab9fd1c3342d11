"""A tour of eager2graph: eager vs. graph, tracing once, polymorphism, converted control flow.

Run: python examples/quickstart.py
"""

import timeit

import runtime as rt
from transpiler import function, to_code


def section(title: str) -> None:
    print(f"\n== {title} ==")


section("Graphs from functions")


def a_regular_function(x, y, b):
    x = rt.matmul(x, y)
    x = x + b
    return x


a_function_that_uses_a_graph = function(a_regular_function)
x1 = rt.constant([[1.0, 2.0]])
y1 = rt.constant([[2.0], [3.0]])
b1 = rt.constant(4.0)
print("eager:", a_regular_function(x1, y1, b1).numpy())
print("graph:", a_function_that_uses_a_graph(x1, y1, b1).numpy())
print(a_function_that_uses_a_graph.get_concrete_function(x1, y1, b1).graph)

section("Control flow is converted")


def my_function(x):
    if rt.reduce_sum(x) <= 1:
        return x * x
    else:
        return x - 1


a_function = function(my_function)
print("First branch, with graph:", a_function(rt.constant(1.0)).numpy())
print("Second branch, with graph:", a_function(rt.constant([5.0, 5.0])).numpy())
print(to_code(my_function))

section("Tracing happens once per input signature")


@function
def tracing_function(x):
    print("Tracing!")  # a Python side effect: runs only while tracing
    return x * x + rt.constant(2)


print(tracing_function(rt.constant(2)))
print(tracing_function(rt.constant(3)))  # same dtype and shape: no tracing
print(tracing_function(2))  # Python values are part of the signature: traces
print(tracing_function(3))  # ... and again

section("Polymorphism: one function, many graphs")


@function
def my_relu(x):
    return rt.maximum(0., x)


print(my_relu(rt.constant(5.5)))
print(my_relu([1, -1]))
print(my_relu(rt.constant([3., -3.])))
print(my_relu.pretty_printed_concrete_signatures())

section("Seeing the speed-up")
x = rt.random.uniform([10, 10], minval=-1, maxval=2, dtype=rt.int32)


def power(x, y):
    result = rt.eye(10, dtype=rt.int32)
    for _ in range(y):
        result = rt.matmul(x, result)
    return result


power_as_graph = function(power)
eager_seconds = timeit.timeit(lambda: power(x, 100), number=100)
graph_seconds = timeit.timeit(lambda: power_as_graph(x, 100), number=100)
print(f"Eager execution: {eager_seconds:.3f} s for 100 calls")
print(f"Graph execution: {graph_seconds:.3f} s for 100 calls "
      f"({eager_seconds / graph_seconds:.1f}x faster)")
