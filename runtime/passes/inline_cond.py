"""A ``cond`` whose predicate is a constant is replaced by the branch it always takes.

The taken branch's nodes move into the enclosing graph in the cond's place (effects keep
their order), and the untaken branch disappears with everything only it needed.
"""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.ops.registry import COND, CONST
from runtime.passes.rewrite import Rewrite, rewrite
from runtime.passes.splicing import splice


def run(graph: Graph) -> list[str]:
    """Inlines constant conds in ``graph`` and its subgraphs; returns one line per cond."""
    return rewrite(graph, _inline, ops=frozenset({COND}))


def _inline(node: Node) -> Rewrite | None:
    if node.op is not COND or node.inputs[0].node.op is not CONST:
        return None
    taken = "then" if bool(node.inputs[0].node.attrs["value"]) else "else"
    nodes, outputs = splice(node, taken, node.inputs[1:])  # the inputs after the predicate
    return Rewrite(f"always {taken}", outputs, nodes)
