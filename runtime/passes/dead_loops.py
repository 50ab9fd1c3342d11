"""A ``while_loop`` that can never run its body is replaced by its initial values.

That is the case when ``maximum_iterations`` is 0, or when the loop condition, evaluated on
the initial values (all constants for what it reads), is false. The condition must be pure;
its evaluation uses the ops' own kernels, as constant folding does.
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.ops.registry import CONST
from runtime.passes.constant_folding import evaluate


def run(graph: Graph) -> list[str]:
    """Removes dead loops in ``graph`` and its subgraphs; returns one line per loop."""
    changes: list[str] = []
    replaced: dict = {}
    nodes: list[Node] = []
    for node in graph.nodes:
        node.inputs = [replaced.get(id(v), v) for v in node.inputs]
        for sub in node.subgraphs.values():
            changes += run(sub)
        if node.op.name != "while_loop" or not _never_runs(node):
            nodes.append(node)
            continue
        initial = node.inputs[:node.attrs["num_vars"]]
        replaced.update((id(old), new) for old, new in zip(node.outputs, initial))
        changes.append(f"while_loop {node.value_name(0) if node.outputs else node.id}: never runs")
    graph.nodes = nodes
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    return changes


def _never_runs(node: Node) -> bool:
    if node.attrs["maximum_iterations"] == 0:
        return True
    cond = node.subgraphs["cond"]
    arguments = list(node.inputs)
    if node.attrs["maximum_iterations"] == "input":
        del arguments[node.attrs["num_vars"]]  # the limit is not a parameter of the subgraphs
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
