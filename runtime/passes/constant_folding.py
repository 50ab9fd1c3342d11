"""Constant folding: a pure node whose inputs are all constants becomes a constant.

The value comes from the op's own bound kernel, the function the executor would call, so a
folded graph gives bit-identical results. Never folded: effects and random draws (they run
on every call), reads of variables, control flow (see inline_cond and dead_loops), results
larger than ``MAX_FOLDED_ELEMENTS`` (a graph should not carry big arrays it can recompute,
nor compute them while it is optimized), and nodes whose kernel raises or warns: they stay,
so the problem shows when the graph runs, with the user's line.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.registry import CONST, PLACEHOLDER
from runtime.passes.rewrite import Rewrite, rewrite

MAX_FOLDED_ELEMENTS = 100_000


def run(graph: Graph) -> list[str]:
    """Folds ``graph`` and its subgraphs in place; returns one line per folded node."""
    return rewrite(graph, _fold)


def _fold(node: Node) -> Rewrite | None:
    if not _foldable(node):
        return None
    arrays = evaluate(node, [v.node.attrs["value"] for v in node.inputs])
    if arrays is None:
        return None
    constants = [node.graph.make_constant(array, node.location) for array in arrays]
    return Rewrite("folded", [c.outputs[0] for c in constants], constants)


def _foldable(node: Node) -> bool:
    op = node.op
    if op is CONST or op is PLACEHOLDER or node.subgraphs:
        return False
    for value in node.inputs:  # asked first: most nodes have an input that is not constant
        if value.node.op is not CONST:
            return False
    return (not node.stateful and (op.kernel is not None or op.bind is not None)
            and not any(_declared_size(out.shape) > MAX_FOLDED_ELEMENTS for out in node.outputs))


def _declared_size(shape) -> int:
    """The number of elements of a value of this shape, 0 when not fully known."""
    if shape is None or None in shape:
        return 0
    return math.prod(shape)


def evaluate(node: Node, inputs: list) -> list[np.ndarray] | None:
    """The outputs of pure ``node`` on these input arrays, computed now; None if they cannot
    or should not be (an error or warning, an unexpected type, too many elements)."""
    try:
        kernel = node.op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in node.inputs])
        with warnings.catch_warnings(), np.errstate(all="raise"):
            warnings.simplefilter("error")
            result = kernel(*inputs)
        arrays = [np.asarray(r) for r in ([result] if len(node.outputs) == 1 else result)]
    except Exception:  # noqa: BLE001 - any failure leaves the node to fail at run time
        return None
    if len(arrays) != len(node.outputs):
        return None
    for array, out in zip(arrays, node.outputs):
        if array.dtype != out.dtype or array.size > MAX_FOLDED_ELEMENTS \
                or not _fits(array.shape, out.shape):
            return None
    return arrays


def _fits(shape: tuple, declared) -> bool:
    return declared is None or (len(shape) == len(declared) and all(
        d is None or d == s for s, d in zip(shape, declared)))
