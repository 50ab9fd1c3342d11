"""Moving the body of a control-flow subgraph into its parent graph (used when a ``cond`` or
``while_loop`` node is replaced by what it computes)."""

from __future__ import annotations

from runtime.graph import Graph, Node
from runtime.tensor import SymbolicTensor


def splice(sub: Graph, arguments: list[SymbolicTensor], parent: Graph) -> tuple[list[Node], list]:
    """The nodes of ``sub``, now owned by ``parent`` with ``sub``'s parameters bound to
    ``arguments``, and the parent values that ``sub``'s outputs became."""
    bound = {id(param): argument for param, argument in zip(sub.inputs, arguments)}
    for node in sub.nodes:
        node.inputs = [bound.get(id(v), v) for v in node.inputs]
        node.graph = parent
        for value in node.outputs:
            value.graph = parent
        for nested in node.subgraphs.values():
            nested.parent = parent
    return list(sub.nodes), [bound.get(id(v), v) for v in sub.outputs]
