"""Counted loops compiled as loops.

The counted-loops pass guards a counted integer reduction with ``counted_range_fits``: array
code on the range when it is short, the loop otherwise. The array code's length is known
only at run time, so the tier cannot compile that branch, and on the plan it costs an array
per call. The loop branch gives the same result exactly (that is the pass's premise) and
compiles to a machine-code loop, which LLVM often turns into a closed form (W5: the same
3.8 us for n up to 10**7). So in the tier's graph, a guarded reduction whose loop compiles
becomes that loop.
"""

from __future__ import annotations

from runtime.backends.jit.codegen import why_not
from runtime.graph import Graph, Node
from runtime.ops.registry import COND
from runtime.passes.counted_loops import RANGE_FITS
from runtime.passes.rewrite import Rewrite, rewrite
from runtime.passes.splicing import splice


def prefer_loops(graph: Graph, exact: bool = False) -> None:
    """Replaces each guarded counted reduction of ``graph`` whose loop compiles by the loop
    (``exact``: see ``why_not``), and drops the guards nothing reads any more."""
    rewrite(graph, lambda node: _as_loop(node, exact))
    for owner in [graph] + [sub for node in graph.walk() for sub in node.subgraphs.values()]:
        read = {id(v) for node in owner.walk() for v in node.inputs} | \
            {id(v) for v in owner.outputs}
        owner.nodes = [node for node in owner.nodes if node.op is not RANGE_FITS
                       or id(node.outputs[0]) in read]


def _as_loop(node: Node, exact: bool) -> Rewrite | None:
    if node.op is not COND or node.inputs[0].node.op is not RANGE_FITS:
        return None
    if any(why_not(inner, exact) is not None for inner in node.subgraphs["else"].nodes):
        return None
    nodes, outputs = splice(node, "else", node.inputs[1:])
    return Rewrite("the counted loop kept as a loop, to be compiled", outputs, nodes)
