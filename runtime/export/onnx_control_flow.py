"""``cond`` as ONNX ``If`` and ``while_loop`` as ONNX ``Loop``.

A branch or loop body becomes a subgraph that reads the values the control-flow node passes
in from the enclosing scope, by name. ``while_loop`` runs ``while count < maximum_iterations
and cond(vars): vars = body(vars)``; ``Loop(M, cond0, vars)`` runs an iteration while its trip
count is below ``M`` and its condition holds, so the loop condition is lowered twice: before
the loop on the initial values (``cond0``) and at the end of the body on the new values.
"""

from __future__ import annotations

import numpy as np
from onnx import helper

from runtime.export.onnx_builder import value_info
from runtime.graph import Graph, Node


def _params(sub: Graph, names: list[str]) -> dict:
    return {id(param): name for param, name in zip(sub.inputs, names)}


def _as_list(outputs) -> list[str]:
    return [outputs] if isinstance(outputs, str) else list(outputs)


def lower_cond(lowering, node: Node, inputs: list[str]) -> list[str]:
    b = lowering.builder
    branches = {}
    for key in ("then", "else"):
        sub = node.subgraphs[key]
        env = _params(sub, inputs[1:])
        with b.subgraph() as nodes:
            lowering.nested(sub, env)
            outputs = [b.emit("Identity", [env[id(value)]]) for value in sub.outputs]
        branches[key] = helper.make_graph(
            nodes, b.fresh(f"{b.prefix}/{key}"), [],
            [value_info(name, value.dtype, None) for name, value in zip(outputs, sub.outputs)])
    if not node.outputs:  # only effects, and they were dropped
        return []
    return _as_list(b.emit("If", [inputs[0]], outputs=len(node.outputs),
                           then_branch=branches["then"], else_branch=branches["else"]))


def lower_while(lowering, node: Node, inputs: list[str]) -> list[str]:
    b = lowering.builder
    count = node.attrs["num_vars"]
    initial, rest = inputs[:count], inputs[count:]
    limit = node.attrs["maximum_iterations"]
    if limit == "input":
        trip_count = b.emit("Max", [b.cast(rest[0], node.inputs[count].dtype, np.int64),
                                    b.scalar(0, np.int64)])
        rest = rest[1:]
    elif limit is None:
        trip_count = ""
    else:
        trip_count = b.scalar(max(int(limit), 0), np.int64)
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    if count == 0:
        return []

    def condition(values: list[str]) -> str:
        env = _params(cond, values + rest)
        lowering.nested(cond, env)
        return env[id(cond.outputs[0])]

    first = condition(initial)
    labels = [param.node.label or f"var{i}" for i, param in enumerate(body.inputs[:count])]
    carried = [b.fresh(f"{b.prefix}/{label}") for label in labels]
    iteration, keep_going = b.fresh(f"{b.prefix}/iteration"), b.fresh(f"{b.prefix}/cond_in")
    with b.subgraph() as nodes:
        env = _params(body, carried + rest)
        lowering.nested(body, env)
        new = [env[id(value)] for value in body.outputs]
        outputs = [b.emit("Identity", [condition(new)])] + [b.emit("Identity", [n]) for n in new]
    graph = helper.make_graph(
        nodes, b.fresh(f"{b.prefix}/body"),
        [value_info(iteration, np.int64, ()), value_info(keep_going, np.bool_, ())]
        + [value_info(name, value.dtype, None) for name, value in zip(carried, node.outputs)],
        [value_info(outputs[0], np.bool_, None)]
        + [value_info(name, value.dtype, None) for name, value in zip(outputs[1:], node.outputs)])
    return _as_list(b.emit("Loop", [trip_count, first] + initial, outputs=count, body=graph))
