"""The graph as traced, kept for ``ConcreteFunction.unoptimized_graph`` without copying it.

The passes rewrite the traced graph in place. Copying it first (``Graph.copy``) cost a
first call 1-3 ms for a few hundred nodes, for a graph that is only printed when someone
debugs. Instead ``GraphRecord(graph)`` records, before the passes run, the fields of
``Graph.copy`` that the passes may change (node lists, inputs, control inputs, attributes,
outputs, captures): a tuple per node, several times cheaper than a node copy. The others (a
node's op, location, label and id, a value's dtype, shape and weakness) are set when a node
is made and never changed, so they are read from the nodes themselves. ``rebuild()`` makes
from it the graph ``graph.copy()`` would have given before the passes.

The record is exactly as deep as ``Graph.copy``: lists and attribute dicts are copied, the
values inside attributes (arrays, tuples) are shared, as the copy shares them.
"""

from __future__ import annotations

from runtime.graph import Graph, Node


class GraphRecord:
    """A graph as it was when recorded, rebuilt on demand."""

    __slots__ = ("_record",)

    def __init__(self, graph: Graph):
        self._record = _record(graph)

    def rebuild(self) -> Graph:
        return _restore(self._record, None, {})


def _record(graph: Graph) -> tuple:
    """What the passes may change, copied (lists and attribute dicts, as tuples and dicts);
    what they never change is read from the nodes and values when rebuilt: a node's op,
    location, label and id, a value's dtype, shape and weakness are set when it is made."""
    inputs = [(v, v.dtype, v.shape, v.node.label, v.node.id, v.weak) for v in graph.inputs]
    nodes = [(node, tuple(node.inputs), dict(node.attrs), tuple(node.outputs),
              {key: _record(sub) for key, sub in node.subgraphs.items()}
              if node.subgraphs else None,
              tuple(node.control_inputs))
             for node in graph.nodes]
    return graph.name, inputs, nodes, tuple(graph.outputs), tuple(graph.captures)


def _restore(record: tuple, parent: Graph | None, values: dict) -> Graph:
    """``Graph.copy`` (ids kept) of the recorded graph; ``values`` maps recorded values of
    enclosing graphs to their copies."""
    name, inputs, nodes, outputs, captures = record
    clone = Graph(name, parent)
    for value, dtype, shape, label, node_id, weak in inputs:
        new = clone.add_placeholder(dtype, shape, label)
        new.node.id = node_id
        new.weak = weak
        values[id(value)] = new
    copies: dict[int, Node] = {}
    for node, node_inputs, attrs, node_outputs, subgraphs, control_inputs in nodes:
        subs = {key: _restore(sub, clone, values) for key, sub in subgraphs.items()} \
            if subgraphs else None
        new = Node(clone, node.op, [values[id(v)] for v in node_inputs], dict(attrs),
                   [(v.dtype, v.shape) for v in node_outputs], subs, node.location, node.label)
        new.id = node.id
        new.control_inputs = [copies[id(c)] for c in control_inputs]
        copies[id(node)] = new
        clone.nodes.append(new)
        for old, copied in zip(node_outputs, new.outputs):
            copied.weak = old.weak
            values[id(old)] = copied
    clone.outputs = [values[id(v)] for v in outputs]
    clone.captures = [(values.get(id(outer), outer), values[id(inner)])
                      for outer, inner in captures]
    return clone
