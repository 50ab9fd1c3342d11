"""Pruning: removes pure nodes that no output needs (non-strict execution).

Effects (print, assert, variable writes, random draws) are always kept, so they run on every
call; everything else runs only if an output, an effect or a kept control-flow node uses it.
That is why an unused out-of-range ``gather`` raises eagerly but not in a graph.
"""

from __future__ import annotations

from runtime.graph import Graph


def run(graph: Graph) -> list[str]:
    """Prunes ``graph`` and its subgraphs in place; returns one line per removed node."""
    needed = {id(v) for v in graph.outputs}
    kept = []
    for node in reversed(graph.nodes):
        if node.effect or any(id(out) in needed for out in node.outputs):
            kept.append(node)
            needed.update(id(v) for v in node.inputs)
    kept.reverse()
    kept_ids = {id(node) for node in kept}
    removed = [f"{node.op.name} {node.reference()}: unused" for node in graph.nodes
               if id(node) not in kept_ids]
    for node in kept:
        node.control_inputs = [c for c in node.control_inputs if id(c) in kept_ids]
        for sub in node.subgraphs.values():
            removed += run(sub)
    graph.nodes = kept
    return removed
