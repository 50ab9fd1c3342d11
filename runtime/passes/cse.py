"""Common-subexpression elimination: pure nodes computing the same thing are merged.

Two nodes of one graph are the same computation when they have the same op, the same input
values and equal attributes; constants are the same when dtype, shape and bytes are. Effects,
random draws, variable reads and control flow are never merged: each must run where it is.
"""

from __future__ import annotations

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.registry import PLACEHOLDER
from runtime.passes.rewrite import Rewrite, rewrite

_MAX_CONSTANT_BYTES = 1 << 16  # larger constants are compared by identity only


def run(graph: Graph) -> list[str]:
    """Merges duplicates in ``graph`` and its subgraphs; returns one line per removed node."""
    seen: dict = {}

    def merge(node: Node) -> Rewrite | None:
        key = _key(node)
        if key is None:
            return None
        original = seen.setdefault(key, node)
        if original is node:
            return None
        return Rewrite(f"the same as {original.reference()}", original.outputs)
    return rewrite(graph, merge)


def _key(node: Node):
    if node.op is PLACEHOLDER or node.subgraphs or node.stateful:
        return None
    try:
        attrs = tuple(sorted((name, _freeze(value)) for name, value in node.attrs.items()))
        key = (id(node.graph), node.op, tuple(id(v) for v in node.inputs), attrs)
        hash(key)
    except TypeError:
        return None  # an attribute without a value identity: keep the node
    return key


def _freeze(value):
    """A hashable stand-in for an attribute value, equal exactly when the values are."""
    if isinstance(value, np.ndarray):
        if value.nbytes > _MAX_CONSTANT_BYTES or value.dtype.kind == "O":
            return ("array", id(value))
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, slice):
        return ("slice", _freeze(value.start), _freeze(value.stop), _freeze(value.step))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (float, np.floating)):
        return (type(value).__name__, float(value).hex())  # -0.0 is not 0.0; NaN equals NaN
    if isinstance(value, (complex, np.complexfloating)):
        return (type(value).__name__, float(value.real).hex(), float(value.imag).hex())
    return (type(value).__name__, value)
