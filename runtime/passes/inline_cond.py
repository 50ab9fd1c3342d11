"""A ``cond`` whose predicate is a constant is replaced by the branch it always takes.

The taken branch's nodes move into the enclosing graph in the cond's place (effects keep
their order), and the untaken branch disappears with everything only it needed.
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.ops.registry import CONST
from runtime.passes.splicing import splice


def run(graph: Graph) -> list[str]:
    """Inlines constant conds in ``graph`` and its subgraphs; returns one line per cond."""
    changes: list[str] = []
    replaced: dict = {}
    nodes: list[Node] = []
    for node in graph.nodes:
        node.inputs = [replaced.get(id(v), v) for v in node.inputs]
        for sub in node.subgraphs.values():
            changes += run(sub)
        pred = node.inputs[0] if node.op.name == "cond" else None
        if pred is None or pred.node.op is not CONST:
            nodes.append(node)
            continue
        taken = "then" if bool(pred.node.attrs["value"]) else "else"
        moved, outputs = splice(node.subgraphs[taken], node.inputs[1:], graph)
        nodes.extend(moved)
        replaced.update((id(old), new) for old, new in zip(node.outputs, outputs))
        changes.append(f"cond {node.value_name(0) if node.outputs else node.id}: always {taken}")
    graph.nodes = nodes
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    return changes
