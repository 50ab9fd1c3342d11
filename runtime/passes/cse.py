"""Common-subexpression elimination: pure nodes computing the same thing are merged.

Two nodes are the same computation when they have the same op, the same input values and
equal attributes; constants are the same when dtype, shape and bytes are. Effects, random
draws, variable reads and control flow are never merged: each must run where it is.
"""

from __future__ import annotations

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.registry import CONST, PLACEHOLDER

_MAX_CONSTANT_BYTES = 1 << 16  # larger constants are compared by identity only


def run(graph: Graph) -> list[str]:
    """Merges duplicates in ``graph`` and its subgraphs; returns one line per removed node."""
    changes: list[str] = []
    replaced: dict = {}
    seen: dict = {}
    nodes: list[Node] = []
    for node in graph.nodes:
        node.inputs = [replaced.get(id(v), v) for v in node.inputs]
        for sub in node.subgraphs.values():
            changes += run(sub)
        key = _key(node)
        original = seen.get(key) if key is not None else None
        if original is None:
            if key is not None:
                seen[key] = node
            nodes.append(node)
            continue
        replaced.update((id(a), b) for a, b in zip(node.outputs, original.outputs))
        changes.append(f"{node.op.name} {node.value_name(0)} is {original.value_name(0)}")
    graph.nodes = nodes
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    return changes


def _key(node: Node):
    if node.op is PLACEHOLDER or node.subgraphs or node.stateful:
        return None
    try:
        attrs = tuple(sorted((name, _freeze(value)) for name, value in node.attrs.items()))
        key = (node.op.name, tuple(id(v) for v in node.inputs), attrs)
        hash(key)
    except TypeError:
        return None  # an attribute without a value identity: keep the node
    return key


def _freeze(value):
    """A hashable stand-in for an attribute value, equal exactly when the values are."""
    if isinstance(value, np.ndarray):
        if value.nbytes > _MAX_CONSTANT_BYTES:
            return ("array", id(value))
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, slice):
        return ("slice", value.start, value.stop, value.step)
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, float):
        return ("float", value.hex())  # tells -0.0 from 0.0; NaN equals NaN
    return (type(value).__name__, value)
