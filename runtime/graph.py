"""The graph IR: nodes with typed outputs, control inputs, subgraphs and source locations.

A ``Graph`` holds its nodes in program order (which is also a topological order: a node is
added after its inputs exist). Placeholders are the graph's parameters; captures are values
of an enclosing graph that a subgraph (a ``cond`` branch, a loop body) reads, passed in as
extra parameters. Effect nodes are chained with control inputs so their order is explicit.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from runtime.ops.registry import CONST, PLACEHOLDER
from runtime.source_location import Location
from runtime.tensor import Shape, SymbolicTensor, format_type

_node_ids = itertools.count(1)


def node_id_mark() -> int:
    """An id smaller than every node created afterwards (how a tape marks where it started)."""
    return next(_node_ids)


class Node:
    """One operation: ``outputs = op(*inputs, **attrs)``, possibly with subgraphs."""

    __slots__ = ("id", "op", "inputs", "attrs", "outputs", "control_inputs", "subgraphs",
                 "location", "graph", "effect", "label")

    def __init__(self, graph: "Graph", op, inputs: Sequence[SymbolicTensor], attrs: dict,
                 out_types: Sequence[tuple], subgraphs: dict | None, location: Location | None,
                 label: str | None = None):
        self.id = next(_node_ids)
        self.graph = graph
        self.op = op
        self.inputs = list(inputs)
        self.attrs = attrs
        self.subgraphs = subgraphs or {}
        self.location = location
        self.label = label  # placeholders: the parameter name
        self.control_inputs: list[Node] = []
        # (Most nodes have no subgraph: asked first, as it is cheaper than an empty any().)
        self.effect = op.effect or bool(subgraphs) and any(
            g.has_effects() for g in subgraphs.values())
        if len(out_types) == 1:  # most nodes: one output, no comprehension
            (dtype, shape), = out_types
            self.outputs = [SymbolicTensor(graph, self, 0, dtype, shape)]
        else:
            self.outputs = [SymbolicTensor(graph, self, i, dtype, shape)
                            for i, (dtype, shape) in enumerate(out_types)]

    @property
    def stateful(self) -> bool:
        """Never folded or merged: effects, and reads of mutable state."""
        return self.effect or self.op.stateful or bool(self.subgraphs) and any(
            g.has_stateful() for g in self.subgraphs.values())

    def value_name(self, index: int) -> str:
        base = self.label if self.label else str(self.id)
        return f"%{base}" if len(self.outputs) == 1 else f"%{base}.{index}"

    def reference(self) -> str:
        """How messages name this node: its first value, or ``%id`` when it has no outputs."""
        return self.value_name(0) if self.outputs else f"%{self.id}"

    def location_text(self) -> str:
        return str(self.location) if self.location else "an unknown location"

    def __repr__(self) -> str:
        return f"<Node {self.value_name(0)} = {self.op.name}>"


class Graph:
    """A function body: parameters, nodes in program order, outputs."""

    def __init__(self, name: str, parent: "Graph | None" = None):
        self.name = name
        self.parent = parent
        self.inputs: list[SymbolicTensor] = []
        self.nodes: list[Node] = []
        self.outputs: list[SymbolicTensor] = []
        self.captures: list[tuple[Any, SymbolicTensor]] = []
        self._captured: dict[int, SymbolicTensor] = {}
        self._constants: dict[int, tuple[Any, SymbolicTensor]] = {}
        self.last_effect: Node | None = None
        # While a top-level graph is traced: the objects its call received (see outside_objects).
        self.received: tuple | None = None

    # -- building ---------------------------------------------------------------------------

    def add_placeholder(self, dtype: np.dtype, shape: Shape | None, name: str) -> SymbolicTensor:
        node = Node(self, PLACEHOLDER, (), {}, [(dtype, shape)], None, None, label=name)
        self.inputs.append(node.outputs[0])
        return node.outputs[0]

    def add_node(self, op, inputs: Sequence[SymbolicTensor], attrs: dict, out_types: Sequence[tuple],
                 subgraphs: dict | None = None, location: Location | None = None) -> Node:
        node = Node(self, op, inputs, attrs, out_types, subgraphs, location)
        if node.effect or op.stateful or subgraphs and node.stateful:
            # Effects and state reads (control flow that reads included) keep program order:
            # chain them explicitly.
            if self.last_effect is not None:
                node.control_inputs.append(self.last_effect)
            if node.effect:
                self.last_effect = node
        self.nodes.append(node)
        return node

    def capture(self, tensor: SymbolicTensor) -> SymbolicTensor:
        """The value of an enclosing graph's tensor inside this graph (a new parameter)."""
        if tensor.graph is self:
            return tensor
        placeholder = self._captured.get(id(tensor))
        if placeholder is not None:
            return placeholder
        if self.parent is None:
            raise ValueError(
                f"the tensor {tensor.name} belongs to another graph ({tensor.graph.name}) and "
                f"cannot be used in {self.name}. A symbolic tensor escaped from the function that "
                f"traced it (kept in a global, a list or an attribute); return it instead.")
        outer = self.parent.capture(tensor)
        placeholder = self.add_placeholder(tensor.dtype, tensor.shape, f"capture{len(self.captures)}")
        self.captures.append((outer, placeholder))
        self._captured[id(tensor)] = placeholder
        return placeholder

    def constant_for(self, key_object, make) -> SymbolicTensor:
        """One const node per captured eager value (kept alive so its id stays unique)."""
        entry = self._constants.get(id(key_object))
        if entry is None:
            entry = (key_object, make())
            self._constants[id(key_object)] = entry
        return entry[1]

    # -- rewriting (used by the passes) -------------------------------------------------------

    def make_constant(self, array: np.ndarray, location: Location | None) -> Node:
        """A const node holding ``array`` (made read-only), not yet placed in ``nodes``."""
        frozen = array if not array.flags.writeable else array.copy()
        frozen.flags.writeable = False
        return Node(self, CONST, (), {"value": frozen}, [(frozen.dtype, frozen.shape)], None,
                    location)

    def copy(self, parent: "Graph | None" = None, values: dict | None = None,
             keep_ids: bool = True) -> "Graph":
        """A deep copy with new values (subgraphs, attributes, locations, control inputs and
        captures included) and the same node ids, so the graph as traced can still be printed
        and run after the passes rewrote the original. ``values`` maps outer values already
        copied to their copies. With ``keep_ids=False`` the nodes get new ids (a copy that
        lives next to the original in one graph)."""
        values = {} if values is None else values
        clone = Graph(self.name, parent)
        for placeholder in self.inputs:
            new = clone.add_placeholder(placeholder.dtype, placeholder.shape, placeholder.node.label)
            if keep_ids:
                new.node.id = placeholder.node.id
            new.weak = placeholder.weak
            values[id(placeholder)] = new
        nodes: dict[int, Node] = {}
        for node in self.nodes:
            subgraphs = {key: sub.copy(clone, values, keep_ids) for key, sub in node.subgraphs.items()}
            new = Node(clone, node.op, [values[id(v)] for v in node.inputs], dict(node.attrs),
                       [(v.dtype, v.shape) for v in node.outputs], subgraphs, node.location,
                       node.label)
            if keep_ids:
                new.id = node.id
            new.control_inputs = [nodes[id(c)] for c in node.control_inputs]
            nodes[id(node)] = new
            clone.nodes.append(new)
            for old, copied in zip(node.outputs, new.outputs):
                copied.weak = old.weak
                values[id(old)] = copied
        clone.outputs = [values[id(v)] for v in self.outputs]
        clone.captures = [(values.get(id(outer), outer), values[id(inner)])
                          for outer, inner in self.captures]
        return clone

    # -- queries ----------------------------------------------------------------------------

    def has_effects(self) -> bool:
        return any(node.effect for node in self.nodes)

    def has_stateful(self) -> bool:
        return any(node.stateful for node in self.nodes)

    def walk(self):
        """Every node of this graph and of its subgraphs, depth first."""
        for node in self.nodes:
            yield node
            for sub in node.subgraphs.values():
                yield from sub.walk()

    def __str__(self) -> str:
        from runtime.printing import format_graph
        return format_graph(self)

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.nodes)} nodes>"

    # -- invariants -------------------------------------------------------------------------

    def lint(self) -> None:
        """Checks structural invariants; raises AssertionError naming the broken one."""
        defined = {id(t) for t in self.inputs}
        seen_nodes: set[int] = set()
        for node in self.nodes:
            if node.graph is not self:
                raise AssertionError(f"{node!r} is listed in {self.name} but owned by {node.graph.name}")
            for position, value in enumerate(node.inputs):
                if id(value) not in defined:
                    raise AssertionError(
                        f"input {position} ({value.name}) of {node!r} in {self.name} is used before it "
                        f"is defined, or comes from another graph without being captured")
            for control in node.control_inputs:
                if id(control) not in seen_nodes:
                    raise AssertionError(f"control input {control!r} of {node!r} is not an earlier node")
            for name, sub in node.subgraphs.items():
                try:
                    sub.lint()
                except AssertionError as error:
                    raise AssertionError(f"in subgraph {name!r} of {node!r}: {error}") from None
            _check_types(node)
            seen_nodes.add(id(node))
            defined.update(id(out) for out in node.outputs)
        for value in self.outputs:
            if id(value) not in defined:
                raise AssertionError(f"output {value.name} of {self.name} is not defined in it")
        for outer, placeholder in self.captures:
            if id(placeholder) not in {id(t) for t in self.inputs}:
                raise AssertionError(f"capture placeholder {placeholder.name} is not a graph input")


def _check_types(node: Node) -> None:
    for out in node.outputs:
        if not isinstance(out.dtype, np.dtype):
            raise AssertionError(f"{node!r} has an output without a dtype")
        if out.shape is not None and not all(d is None or (isinstance(d, int) and d >= 0)
                                             for d in out.shape):
            raise AssertionError(f"{node!r} has an invalid output shape {out.shape}")


def value_type(value: SymbolicTensor) -> str:
    return format_type(value.dtype, value.shape)
