"""A ``while_loop`` that can never run its body is replaced by its initial values.

That is the case when its iteration limit is 0 or less, or when the loop condition,
evaluated on the initial values (constants, for what it reads), is false. The condition must
be pure: one that prints or reads a variable runs once even when the body never does. It is
evaluated with the ops' own kernels, as constant folding does, and a condition that fails
keeps the loop, so the error shows when the graph runs.
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.ops.registry import CONST, WHILE_LOOP
from runtime.passes.constant_folding import evaluate
from runtime.passes.rewrite import Rewrite, rewrite


def run(graph: Graph) -> list[str]:
    """Removes dead loops in ``graph`` and its subgraphs; returns one line per loop."""
    return rewrite(graph, _remove, ops=frozenset({WHILE_LOOP}))


def _remove(node: Node) -> Rewrite | None:
    if node.op is not WHILE_LOOP:
        return None
    num_vars, limit = node.attrs["num_vars"], node.attrs["maximum_iterations"]
    # Inputs: the loop variables, the limit when it is a tensor, then the captures.
    arguments = list(node.inputs)
    if limit == "input":
        limit = _constant(arguments.pop(num_vars))
    if limit is not None and limit <= 0:
        return Rewrite(f"its iteration limit is {limit}", node.inputs[:num_vars])
    if _condition_is_false(node, arguments):
        return Rewrite("its condition is false on the initial values", node.inputs[:num_vars])
    return None


def _constant(value):
    return value.node.attrs["value"] if value.node.op is CONST else None


def _condition_is_false(node: Node, arguments: list) -> bool:
    cond = node.subgraphs["cond"]
    known = {id(param): arg.node.attrs["value"] for param, arg in zip(cond.inputs, arguments)
             if arg.node.op is CONST}
    for inner in cond.nodes:
        if inner.op is CONST:
            outputs = [inner.attrs["value"]]
        elif inner.stateful or inner.subgraphs or any(id(v) not in known for v in inner.inputs):
            return False
        else:
            outputs = evaluate(inner, [known[id(v)] for v in inner.inputs])
            if outputs is None:
                return False
        known.update((id(v), array) for v, array in zip(inner.outputs, outputs))
    result = known.get(id(cond.outputs[0]))
    return result is not None and not bool(result)
