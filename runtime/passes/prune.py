"""Pruning: removes pure nodes that no output needs (non-strict execution).

Effects (print, assert, variable writes, random draws) are always kept, so they run on every
call; everything else runs only if an output, an effect or a kept control-flow node uses it.
That is why an unused out-of-range ``gather`` raises eagerly but not in a graph. A kept
``cond`` loses the outputs nothing reads, so its branches no longer compute them.
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.ops.registry import COND
from runtime.passes.rewrite import change_subject


def run(graph: Graph) -> list[str]:
    """Prunes ``graph`` and its subgraphs in place; returns one line per removed node."""
    needed = {id(v) for v in graph.outputs}
    kept, unused = [], []
    for node in reversed(graph.nodes):
        if node.effect or not needed.isdisjoint(map(id, node.outputs)):
            kept.append(node)
            needed.update(map(id, node.inputs))
        else:
            unused.append(node)
    kept.reverse()
    removed = [f"{change_subject(node)}: unused" for node in reversed(unused)]
    removed += [_drop_unused_outputs(node, needed) for node in kept
                if node.op is COND and not all(id(out) in needed for out in node.outputs)]
    # Control inputs are earlier nodes of this graph (Graph.lint): only removed ones go.
    unused_ids = {id(node) for node in unused}
    for node in kept:
        if unused_ids and node.control_inputs:
            node.control_inputs = [c for c in node.control_inputs if id(c) not in unused_ids]
        for sub in node.subgraphs.values():
            removed += run(sub)
    if unused:
        graph.nodes = kept
    return removed


def _drop_unused_outputs(node: Node, needed: set[int]) -> str:
    """Removes the outputs of ``node`` (a cond) that are not ``needed``, from its branches too."""
    unused = [out.node.value_name(out.index) for out in node.outputs if id(out) not in needed]
    positions = [i for i, out in enumerate(node.outputs) if id(out) in needed]
    for sub in node.subgraphs.values():
        sub.outputs = [sub.outputs[i] for i in positions]
    node.outputs = [node.outputs[i] for i in positions]
    for index, out in enumerate(node.outputs):
        out.index = index
    return f"{change_subject(node)}: unused outputs {', '.join(unused)}"
