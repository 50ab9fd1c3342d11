"""Helpers for pass tests: trace a function, list ops, run a graph without passes."""

from __future__ import annotations

import numpy as np

import runtime as rt
from runtime.executor import Plan


def traced(fn, *args):
    """The ConcreteFunction of ``rt.function(fn)`` for these arguments."""
    return rt.function(fn).get_concrete_function(*args)


def ops(graph) -> list[str]:
    return [node.op.name for node in graph.nodes]


def all_ops(graph) -> list[str]:
    return [node.op.name for node in graph.walk()]


def run_unoptimized(concrete, *arrays):
    """The traced graph's outputs computed without any pass."""
    return [np.asarray(v) for v in Plan(concrete.unoptimized_graph, "unoptimized").run(*arrays)]


def interpret(graph, arrays: list) -> list:
    """A reference interpreter: runs each node's kernel in program order, recursing into
    control flow, with none of the executor's code generation."""
    values = {id(p): a for p, a in zip(graph.inputs, arrays)}
    for node in graph.nodes:
        inputs = [values[id(v)] for v in node.inputs]
        if node.op.name == "const":
            outputs = [node.attrs["value"]]
        elif node.op.name == "cond":
            branch = node.subgraphs["then" if bool(inputs[0]) else "else"]
            outputs = interpret(branch, inputs[1:])
        elif node.op.name == "while_loop":
            outputs = _interpret_loop(node, inputs)
        else:
            kernel = node.op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in node.inputs])
            result = kernel(*inputs)
            outputs = [result] if len(node.outputs) == 1 else list(result)
        values.update((id(v), o) for v, o in zip(node.outputs, outputs))
    return [values[id(v)] for v in graph.outputs]


def _interpret_loop(node, inputs):
    count = node.attrs["num_vars"]
    limit = node.attrs["maximum_iterations"]
    rest = inputs[count:]
    if limit == "input":
        limit, rest = int(rest[0]), rest[1:]
    state, steps = inputs[:count], 0
    while (limit is None or steps < limit) and bool(interpret(node.subgraphs["cond"], state + rest)[0]):
        state = interpret(node.subgraphs["body"], state + rest)
        steps += 1
    return state
