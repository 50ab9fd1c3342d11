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
    kept = []
    for node in reversed(graph.nodes):
        if node.effect or any(id(out) in needed for out in node.outputs):
            kept.append(node)
            needed.update(id(v) for v in node.inputs)
    kept.reverse()
    kept_ids = {id(node) for node in kept}
    removed = [f"{change_subject(node)}: unused" for node in graph.nodes
               if id(node) not in kept_ids]
    removed += [_drop_unused_outputs(node, needed) for node in kept
                if node.op is COND and not all(id(out) in needed for out in node.outputs)]
    for node in kept:
        node.control_inputs = [c for c in node.control_inputs if id(c) in kept_ids]
        for sub in node.subgraphs.values():
            removed += run(sub)
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
