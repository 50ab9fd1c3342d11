"""The walk that every rewriting pass shares.

A pass supplies a rule, ``node -> Rewrite | None``. The walk visits a graph's nodes in program
order, each node's subgraphs before the node itself (so a rule sees them already rewritten),
puts a rewrite's new nodes where the old node was, and makes every later use of the old
node's outputs read the replacement values, and every later control edge to it point at what
now runs in its place. That bookkeeping is written once here, not in each pass.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from runtime.graph import Graph, Node
from runtime.tensor import SymbolicTensor


class Rewrite(NamedTuple):
    """What a node becomes: ``nodes`` take its place (none when it is only a value that
    already exists), ``outputs`` stand for its outputs, ``description`` says what changed.
    (A named tuple: made several times faster than a frozen dataclass.)"""

    description: str
    outputs: Sequence[SymbolicTensor]
    nodes: Sequence[Node] = ()


Rule = Callable[[Node], "Rewrite | None"]


def rewrite(graph: Graph, rule: Rule, enter: Callable[[Node], bool] | None = None,
            ops: frozenset | None = None) -> list[str]:
    """Applies ``rule`` to every node of ``graph`` and its subgraphs, in place; returns one
    line per rewritten node. With ``enter``, only the subgraphs of nodes it accepts are
    visited. With ``ops``, the rule rewrites nodes of these ops only: a graph that holds none
    (most hold no control flow) is not walked, as the walk costs a pass that checks them
    on every round."""
    if ops is not None and not _holds(graph, ops):
        return []
    changes: list[str] = []
    values: dict[int, SymbolicTensor] = {}
    ordering: dict[int, list[Node]] = {}  # a removed node -> the nodes now ordered in its place
    nodes: list[Node] = []
    replaced = values.keys()
    for node in graph.nodes:
        # Most nodes read no replaced value: their lists are checked (in C), not rebuilt.
        if values and not replaced.isdisjoint(map(id, node.inputs)):
            node.inputs = [values.get(id(v), v) for v in node.inputs]
        if values and node.subgraphs:
            for sub in node.subgraphs.values():
                sub.captures = [(values.get(id(outer), outer), inner) for outer, inner in sub.captures]
        if ordering and node.control_inputs:
            node.control_inputs = _unique(
                [c for old in node.control_inputs for c in ordering.get(id(old), [old])])
        if node.subgraphs and (enter is None or enter(node)):
            for sub in node.subgraphs.values():
                changes += rewrite(sub, rule, enter)
        result = rule(node)
        if result is None:
            nodes.append(node)
            continue
        nodes.extend(result.nodes)
        values.update((id(old), new) for old, new in zip(node.outputs, result.outputs))
        effects = [n for n in result.nodes if n.effect]
        ordering[id(node)] = effects[-1:] or node.control_inputs
        changes.append(f"{change_subject(node)}: {result.description}")
    graph.nodes = nodes
    graph.outputs = [values.get(id(v), v) for v in graph.outputs]
    return changes


def _holds(graph: Graph, ops: frozenset) -> bool:
    """Whether a node of ``graph`` or of its subgraphs has one of ``ops``."""
    return any(node.op in ops or node.subgraphs and any(
        _holds(sub, ops) for sub in node.subgraphs.values()) for node in graph.nodes)


def change_subject(node: Node) -> str:
    """How a pass's change line names the node it changed (reports match on it)."""
    return f"{node.op.name} {node.reference()}"


def _unique(nodes: list[Node]) -> list[Node]:
    return list({id(node): node for node in nodes}.values())
