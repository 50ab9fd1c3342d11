"""The graph as traced, kept for ``ConcreteFunction.unoptimized_graph`` without copying it.

The passes rewrite the traced graph in place. Copying it first (``Graph.copy``) cost a
first call 1-3 ms for a few hundred nodes, for a graph that is only printed when someone
debugs. Instead ``TracedGraph(graph)`` records, before the passes run, every field that
``Graph.copy`` reads (node lists, inputs, control inputs, attributes, outputs, captures, ids,
value types): a tuple per node, several times cheaper than a node copy. The first use of
the object rebuilds the copy from that record into the object itself, which from then on is
a plain ``Graph``, equal to what ``graph.copy()`` would have given before the passes.

The record is exactly as deep as ``Graph.copy``: lists and attribute dicts are copied, the
values inside attributes (arrays, tuples) are shared, as the copy shares them.
"""

from __future__ import annotations

import threading
from typing import Any

from runtime.graph import Graph, Node

_lock = threading.RLock()


class TracedGraph(Graph):
    """A ``Graph`` rebuilt on first use from a record of ``graph`` taken now."""

    def __init__(self, graph: Graph):  # Graph.__init__ runs when the graph is rebuilt
        self._record = _record(graph)

    def __getattr__(self, name: str) -> Any:
        # Called only for attributes the object does not have, so only until it is rebuilt.
        if name.startswith("__") or name == "_record":
            raise AttributeError(name)
        with _lock:
            record = self.__dict__.pop("_record", None)
            if record is not None:
                try:
                    _restore(record, None, {}, into=self)
                except BaseException:
                    self.__dict__.clear()
                    self._record = record
                    raise
                self.__class__ = Graph  # the same layout: from now on a plain Graph
            elif type(self) is TracedGraph:  # asked for while this thread rebuilds it
                raise AttributeError(name)
        return getattr(self, name)


def _record(graph: Graph) -> tuple:
    inputs = [(v, v.dtype, v.shape, v.node.label, v.node.id, v.weak) for v in graph.inputs]
    nodes = [(node, node.op, list(node.inputs), dict(node.attrs),
              [(v, v.dtype, v.shape, v.weak) for v in node.outputs],
              {key: _record(sub) for key, sub in node.subgraphs.items()}
              if node.subgraphs else None,
              node.location, node.label, node.id, list(node.control_inputs))
             for node in graph.nodes]
    return graph.name, inputs, nodes, list(graph.outputs), list(graph.captures)


def _restore(record: tuple, parent: Graph | None, values: dict, into: Graph | None = None) -> Graph:
    """``Graph.copy`` (ids kept) of the recorded graph; ``values`` maps recorded values of
    enclosing graphs to their copies."""
    name, inputs, nodes, outputs, captures = record
    clone = into if into is not None else Graph(name, parent)
    if into is not None:
        Graph.__init__(into, name, parent)
    for value, dtype, shape, label, node_id, weak in inputs:
        new = clone.add_placeholder(dtype, shape, label)
        new.node.id = node_id
        new.weak = weak
        values[id(value)] = new
    copies: dict[int, Node] = {}
    for node, op, node_inputs, attrs, node_outputs, subgraphs, location, label, node_id, \
            control_inputs in nodes:
        subs = {key: _restore(sub, clone, values) for key, sub in subgraphs.items()} \
            if subgraphs else None
        new = Node(clone, op, [values[id(v)] for v in node_inputs], dict(attrs),
                   [(dtype, shape) for _, dtype, shape, _ in node_outputs], subs, location, label)
        new.id = node_id
        new.control_inputs = [copies[id(c)] for c in control_inputs]
        copies[id(node)] = new
        clone.nodes.append(new)
        for (old, _, _, weak), copied in zip(node_outputs, new.outputs):
            copied.weak = weak
            values[id(old)] = copied
    clone.outputs = [values[id(v)] for v in outputs]
    clone.captures = [(values.get(id(outer), outer), values[id(inner)])
                      for outer, inner in captures]
    return clone
