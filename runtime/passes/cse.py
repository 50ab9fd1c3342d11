"""Common-subexpression elimination: pure nodes computing the same thing are merged.

Two nodes of one graph are the same computation when they have the same op, the same input
values and equal attributes; constants are the same when dtype, shape and bytes are (so
``-0.0`` is not ``0.0``, and NaNs are equal only with the same payload). Effects, random
draws, variable reads and control flow are never merged: each must run where it is.

A node's key holds small arrays' bytes; a larger array is keyed by dtype, shape and a sample
of its elements, and nodes whose keys agree are then compared byte for byte. Hashing every
byte of a hundred weight matrices on every round cost milliseconds; two different matrices
that agree on the sample only cost one comparison.
"""

from __future__ import annotations

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.registry import PLACEHOLDER
from runtime.passes.rewrite import Rewrite, rewrite

_MAX_KEYED_BYTES = 256  # arrays up to this size are keyed by all their bytes
_SAMPLED_ELEMENTS = 16  # larger ones by this many elements spread over them, and the last


def run(graph: Graph) -> list[str]:
    """Merges duplicates in ``graph`` and its subgraphs; returns one line per removed node."""
    seen: dict = {}  # key -> [(node, its sampled arrays)]

    def merge(node: Node) -> Rewrite | None:
        sampled: list[np.ndarray] = []
        key = _key(node, sampled)
        if key is None:
            return None
        try:
            candidates = seen.get(key)
        except TypeError:
            return None  # an attribute without a value identity: keep the node
        if candidates is None:  # most nodes: the first of their kind
            seen[key] = [(node, sampled)]
            return None
        for original, arrays in candidates:
            if all(_same_bytes(a, b) for a, b in zip(arrays, sampled)):
                return Rewrite(f"the same as {original.reference()}", original.outputs)
        candidates.append((node, sampled))
        return None
    return rewrite(graph, merge)


def _key(node: Node, sampled: list):
    """A key of what ``node`` computes (None: never merged), hashable unless an attribute has
    no value identity; arrays keyed by a sample are appended to ``sampled``, in key order."""
    op = node.op
    # node.stateful, less what was just checked: no subgraph can hold an effect or a read.
    if op is PLACEHOLDER or node.subgraphs or node.effect or op.stateful:
        return None
    inputs = tuple(map(id, node.inputs))
    attrs = node.attrs
    if not attrs:
        return (id(node.graph), op, inputs)
    try:
        if len(attrs) == 1:  # a constant's value, a cast's dtype: nothing to sort
            for name, value in attrs.items():
                frozen = ((name, _freeze(value, sampled)),)
        else:
            frozen = tuple(sorted([(name, _freeze(value, sampled))
                                   for name, value in attrs.items()]))
    except TypeError:
        return None  # attribute names (or dictionary keys in them) that do not sort
    return (id(node.graph), op, inputs, frozen)


def _freeze(value, sampled: list):
    """A hashable stand-in for an attribute value, equal exactly when the values are (for a
    sampled array, equal when the sample is: the bytes are compared afterwards)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            return ("array", id(value))
        if value.nbytes <= _MAX_KEYED_BYTES:
            return ("array", value.dtype.str, value.shape, value.tobytes())
        sampled.append(value)
        return ("sampled array", value.dtype.str, value.shape, _sample(value))
    if isinstance(value, slice):
        return ("slice", _freeze(value.start, sampled), _freeze(value.stop, sampled),
                _freeze(value.step, sampled))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__,) + tuple(_freeze(v, sampled) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple(sorted((k, _freeze(v, sampled)) for k, v in value.items()))
    if isinstance(value, (float, np.floating)):
        return (type(value).__name__, float(value).hex())  # -0.0 is not 0.0; NaN equals NaN
    if isinstance(value, (complex, np.complexfloating)):
        return (type(value).__name__, float(value.real).hex(), float(value.imag).hex())
    return (type(value).__name__, value)


def _sample(array: np.ndarray) -> bytes:
    flat = array.reshape(-1)  # a view when the array is contiguous, as constants are
    step = max(1, flat.size // _SAMPLED_ELEMENTS)
    return flat[::step].tobytes() + flat[-1:].tobytes()


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """True when the arrays (same dtype and shape, by their keys) hold the same bytes."""
    return a is b or a.tobytes() == b.tobytes()
