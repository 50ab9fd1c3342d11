"""Recomputing a subgraph inside the graph being built, for a backward pass.

The gradient of a ``cond`` branch or of one loop iteration needs the values computed inside
it, which exist only while that subgraph runs. Rather than keeping every intermediate value,
the backward pass copies the subgraph's nodes next to its own (their parameters bound to the
values the forward run saw) and differentiates the copy. What cannot be recomputed is kept by
the forward run instead and passed in as ``recorded``: random draws, and reads of variables
that change. Effects (print, assert, assignments) already ran and are left out of the copy.
"""

from __future__ import annotations

from typing import Sequence

import threading
from contextlib import contextmanager

from runtime import tracing
from runtime.errors import GradientError
from runtime.graph import Graph, Node


class _Substitutes(threading.local):
    def __init__(self):
        self.maps: list[dict] = []


_substitutes = _Substitutes()


def substitute(value):
    """The recomputed copy standing for ``value`` (a value of a subgraph being replayed),
    or ``value`` itself: how a custom gradient function that kept a forward value of a
    loop body or branch gets that value inside the backward pass."""
    for values in _substitutes.maps:  # outer replays first: a copy may be copied again
        value = values.get(id(value), value)
    return value


@contextmanager
def standing_in(values: dict):
    """While the block runs, ``substitute`` maps the replayed values to their copies."""
    _substitutes.maps.append(values)
    try:
        yield
    finally:
        _substitutes.maps.pop()


def replay(graph: Graph, arguments: Sequence, recorded: dict[int, list],
           needed: set[int] | None = None) -> tuple[list[Node], list, dict]:
    """Copies ``graph``'s nodes into the graph being built, its parameters bound to
    ``arguments`` (values of the graph being built; None for parameters nothing needed reads).
    ``recorded`` maps a node (by id) to the values standing for its outputs; ``needed``
    (node ids) limits the copy to those nodes. Returns the new nodes, the copied outputs and
    the map from the ids of ``graph``'s values to their copies (for ``standing_in``)."""
    current = tracing.current_graph()
    values = {id(p): a for p, a in zip(graph.inputs, arguments) if a is not None}
    copies = []
    for node in graph.nodes:
        if needed is not None and id(node) not in needed:
            continue
        if id(node) in recorded:
            values.update((id(old), new) for old, new in zip(node.outputs, recorded[id(node)]))
            continue
        if node.effect and not node.outputs:
            continue
        _check_recomputable(node)
        subgraphs = {key: _without_effects(sub.copy(current, values, keep_ids=False))
                     for key, sub in node.subgraphs.items()}
        copy = current.add_node(node.op, [values[id(v)] for v in node.inputs], dict(node.attrs),
                                [(v.dtype, v.shape) for v in node.outputs], subgraphs,
                                node.location)
        for old, new in zip(node.outputs, copy.outputs):
            new.weak = old.weak
            values[id(old)] = new
        copies.append(copy)
    return copies, [values.get(id(v)) for v in graph.outputs], values


def must_record(node: Node, assigned: set[int]) -> bool:
    """Whether recomputing ``node`` could give another value than the forward run did: a
    random draw, or a read of a variable that is assigned (``assigned``: variable ids)."""
    if node.op.effect and node.outputs and not node.subgraphs:
        return True
    return node.op.reads_variable and id(node.attrs["variable"]) in assigned


def assigned_variables(graph: Graph) -> set[int]:
    """The ids of the variables that ``graph`` (with its subgraphs) assigns."""
    return {id(node.attrs["variable"]) for node in graph.walk()
            if node.effect and "variable" in node.attrs and not node.op.reads_variable}


def _check_recomputable(node: Node) -> None:
    for sub in node.subgraphs.values():
        for inner in sub.walk():
            if inner.op.effect and inner.outputs and not inner.subgraphs:
                raise GradientError(
                    f"cannot differentiate through the {node.op.name}{_created_at(node)}: it "
                    f"draws random numbers ({inner.op.name}{_created_at(inner)}) inside control "
                    f"flow nested in the loop or conditional being differentiated, and the "
                    f"backward pass recomputes it. Draw the numbers outside the nested "
                    f"{node.op.name} and pass them in.")


def _without_effects(graph: Graph) -> Graph:
    """``graph`` without its effects that have no outputs (they ran in the forward pass)."""
    kept = []
    for node in graph.nodes:
        for sub in node.subgraphs.values():
            _without_effects(sub)
        node.effect = node.op.effect or any(sub.has_effects() for sub in node.subgraphs.values())
        if node.effect and not node.outputs:
            continue
        kept.append(node)
    ids = {id(node) for node in kept}
    for node in kept:
        node.control_inputs = [c for c in node.control_inputs if id(c) in ids]
    graph.nodes = kept
    return graph


def _created_at(node: Node) -> str:
    return f" created at {node.location}" if node.location else ""
