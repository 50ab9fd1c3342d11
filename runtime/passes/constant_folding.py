"""Constant folding: a pure node whose inputs are all constants becomes a constant.

The value comes from the op's own bound kernel, the function the executor would call, so a
folded graph gives bit-identical results. Never folded: effects and random draws (they run
on every call), reads of variables, control flow (see inline_cond and dead_loops), results
larger than ``MAX_FOLDED_ELEMENTS`` (a graph should not carry big arrays it can recompute),
and nodes whose kernel raises or warns: they stay, so the problem shows when the graph runs,
with the user's line.
"""

from __future__ import annotations

import warnings

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.registry import CONST, PLACEHOLDER

MAX_FOLDED_ELEMENTS = 100_000


def run(graph: Graph) -> list[str]:
    """Folds ``graph`` and its subgraphs in place; returns one line per folded node."""
    changes: list[str] = []
    replaced: dict = {}
    nodes: list[Node] = []
    for node in graph.nodes:
        node.inputs = [replaced.get(id(v), v) for v in node.inputs]
        for sub in node.subgraphs.values():
            changes += run(sub)
        arrays = evaluate(node, [v.node.attrs["value"] for v in node.inputs]) \
            if _foldable(node) else None
        if arrays is None:
            nodes.append(node)
            continue
        constants = [graph.make_constant(array, node.location) for array in arrays]
        nodes.extend(constants)
        replaced.update((id(old), new.outputs[0]) for old, new in zip(node.outputs, constants))
        changes.append(f"folded {node.op.name} {node.value_name(0)}")
    graph.nodes = nodes
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    return changes


def _foldable(node: Node) -> bool:
    return (node.op is not CONST and node.op is not PLACEHOLDER and not node.subgraphs
            and not node.stateful and (node.op.kernel is not None or node.op.bind is not None)
            and all(v.node.op is CONST for v in node.inputs))


def evaluate(node: Node, inputs: list) -> list[np.ndarray] | None:
    """The outputs of pure ``node`` on these input arrays, computed now; None if they cannot
    or should not be (an error or warning, an unexpected type, too many elements)."""
    try:
        kernel = node.op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in node.inputs])
        with warnings.catch_warnings(), np.errstate(all="raise"):
            warnings.simplefilter("error")
            result = kernel(*inputs)
    except Exception:  # noqa: BLE001 - any failure leaves the node to fail at run time
        return None
    results = [result] if len(node.outputs) == 1 else list(result)
    arrays = [np.asarray(r) for r in results]
    for array, out in zip(arrays, node.outputs):
        if array.dtype != out.dtype or array.size > MAX_FOLDED_ELEMENTS or not _fits(array.shape, out.shape):
            return None
    return arrays


def _fits(shape: tuple, declared) -> bool:
    return declared is None or (len(shape) == len(declared) and all(
        d is None or d == s for s, d in zip(shape, declared)))
