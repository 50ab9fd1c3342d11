"""Moving the body of a control-flow subgraph into its parent graph (used when a ``cond`` is
replaced by the branch it always takes)."""

from __future__ import annotations

from runtime.graph import Node
from runtime.tensor import SymbolicTensor


def splice(node: Node, key: str, arguments: list[SymbolicTensor]) -> tuple[list[Node], list]:
    """The nodes of ``node``'s subgraph ``key``, now owned by ``node``'s graph with the
    subgraph's parameters bound to ``arguments``, and the values its outputs became.

    The subgraph's first effects and state reads were ordered after nothing; in the parent
    they are ordered after what ``node`` was, so the effect chain stays explicit."""
    sub, parent = node.subgraphs[key], node.graph
    bound = {id(param): argument for param, argument in zip(sub.inputs, arguments)}
    for moved in sub.nodes:
        moved.inputs = [bound.get(id(v), v) for v in moved.inputs]
        moved.graph = parent
        for value in moved.outputs:
            value.graph = parent
        if moved.stateful and not moved.control_inputs:
            moved.control_inputs = list(node.control_inputs)
        for nested in moved.subgraphs.values():
            nested.parent = parent
            nested.captures = [(bound.get(id(outer), outer), inner) for outer, inner in nested.captures]
    return list(sub.nodes), [bound.get(id(v), v) for v in sub.outputs]
