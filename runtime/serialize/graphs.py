"""Graphs to JSON and back: nodes by op name, values as ``[node id, output index]``.

Node ids are kept, so a loaded graph prints like the saved one. The executor writes node ids
and loop attributes into the Python source of its plans, so decoding checks that every id is
a distinct non-negative int and that control-flow nodes have the attributes and subgraphs
their op requires before any plan is compiled: a crafted file cannot inject code, and ops come
only from the runtime's registry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP, OpDef, get_op
from runtime.serialize.attributes import check_attributes
from runtime.serialize.limits import MAX_NESTING
from runtime.serialize.typecheck import check_node
from runtime.serialize.values import (Reader, Writer, decode_attr, decode_shape, encode_attr,
                                      index, text)
from runtime.source_location import Location
from runtime.tensor import SymbolicTensor


def encode_graph(graph: Graph, writer: Writer) -> dict:
    return {"name": graph.name,
            "inputs": [{"id": value.node.id, "label": value.node.label, "type": _type(value)}
                       for value in graph.inputs],
            "nodes": [_encode_node(node, writer) for node in graph.nodes],
            "outputs": [_reference(value) for value in graph.outputs]}


def _encode_node(node: Node, writer: Writer) -> dict:
    attrs = {}
    for name, value in node.attrs.items():
        try:
            attrs[name] = encode_attr(value, writer)
        except TypeError as error:
            raise TypeError(f"cannot save the attribute {name!r} of the {node.op.name} op created "
                            f"at {node.location_text()}: {error}.") from None
    location = node.location
    return {"id": node.id, "op": node.op.name, "label": node.label,
            "inputs": [_reference(value) for value in node.inputs],
            "control": [control.id for control in node.control_inputs],
            "attrs": attrs, "types": [_type(value) for value in node.outputs],
            "location": None if location is None else [location.filename, location.lineno,
                                                       location.function_name],
            "subgraphs": {name: encode_graph(sub, writer) for name, sub in node.subgraphs.items()}}


def _reference(value: SymbolicTensor) -> list:
    return [value.node.id, value.index]


def _type(value: SymbolicTensor) -> list:
    return [value.dtype.str, None if value.shape is None else list(value.shape)]


class GraphDecoder:
    """Rebuilds a graph and its subgraphs; values are looked up by ``(node id, output index)``."""

    def __init__(self, reader: Reader, max_array_bytes: int):
        self.reader = reader
        self.max_array_bytes = max_array_bytes
        self.values: dict[tuple[int, int], SymbolicTensor] = {}
        self.ids: set[int] = set()

    def graph(self, data: dict, parent: Graph | None, depth: int = 0) -> Graph:
        """``depth``: how many cond branches and loop bodies enclose the graph."""
        if depth > MAX_NESTING:
            raise self.reader.error(
                f"nests control flow (cond branches and while_loop bodies) more than "
                f"{MAX_NESTING} levels deep; rt.load accepts at most {MAX_NESTING}, as the plan "
                f"compiler writes each level as a nested Python block.")
        graph = Graph(text(data["name"]), parent)
        for spec in data["inputs"]:
            placeholder = graph.add_placeholder(*self.type(spec["type"]), _label(spec["label"]))
            self.define(placeholder.node, spec["id"])
        earlier: dict[int, Node] = {}
        for spec in data["nodes"]:
            node = self.node(spec, graph, earlier, depth)
            earlier[node.id] = node
            graph.nodes.append(node)
        graph.outputs = [self.value(reference) for reference in data["outputs"]]
        return graph

    def node(self, spec: dict, graph: Graph, earlier: dict[int, Node], depth: int) -> Node:
        op = self.op(spec["op"])
        subgraphs = {text(name): self.graph(sub, graph, depth + 1)
                     for name, sub in spec["subgraphs"].items()}
        attrs = {text(name): decode_attr(value, self.reader) for name, value in spec["attrs"].items()}
        check_attributes(attrs)
        node = Node(graph, op, [self.value(reference) for reference in spec["inputs"]], attrs,
                    [self.type(data) for data in spec["types"]], subgraphs,
                    _location(spec["location"]), _label(spec["label"]))
        node.control_inputs = [earlier[index(control)] for control in spec["control"]]
        self.define(node, spec["id"])
        _check_node(node)
        _restore_captures(node)
        check_node(node, self.max_array_bytes)
        return node

    def define(self, node: Node, node_id: Any) -> None:
        node.id = index(node_id)
        if node.id in self.ids:
            raise ValueError(f"two nodes have the id {node.id}")
        self.ids.add(node.id)
        for value in node.outputs:
            self.values[(node.id, value.index)] = value

    def value(self, reference: Any) -> SymbolicTensor:
        node_id, position = reference
        value = self.values.get((index(node_id), index(position)))
        if value is None:
            raise ValueError(f"the value {reference} is used before it is defined")
        return value

    def op(self, name: Any) -> OpDef:
        try:
            op = get_op(text(name))
        except KeyError:
            op = None
        if op is None or op is PLACEHOLDER:
            raise self.reader.error(f"uses the op {name!r}, which this eager2graph does not have; "
                                    f"the file may come from a newer eager2graph, so upgrade "
                                    f"eager2graph to load it.")
        return op

    def type(self, data: Any) -> tuple:
        dtype, shape = data
        return self.reader.dtype(dtype), decode_shape(shape)


def _label(value) -> str | None:
    return None if value is None else text(value)


def _location(data) -> Location | None:
    if data is None:
        return None
    filename, lineno, function_name = data
    # Data, never a file to read: the source line of a loaded location is not looked up.
    return Location(text(filename), index(lineno), text(function_name), readable=False)


def _check_node(node: Node) -> None:
    """What the executor relies on beyond types: it writes these into generated source."""
    op, attrs, subgraphs = node.op, node.attrs, node.subgraphs
    if op is CONST:
        value = attrs.get("value")
        valid = list(attrs) == ["value"] and isinstance(value, np.ndarray) and not node.inputs and \
            [(v.dtype, v.shape) for v in node.outputs] == [(value.dtype, value.shape)]
    elif op is COND:
        valid = not attrs and sorted(subgraphs) == ["else", "then"] and len(node.inputs) >= 1 and all(
            len(sub.inputs) == len(node.inputs) - 1 and len(sub.outputs) == len(node.outputs)
            for sub in subgraphs.values())
    elif op is WHILE_LOOP:
        valid = _valid_loop(node)
    else:
        valid = not subgraphs and (op.kernel is not None or op.bind is not None) and \
            len(node.outputs) == op.num_outputs
    if not valid:
        raise ValueError(f"the {op.name} node {node.id} does not have the inputs, outputs, "
                         f"attributes or subgraphs its op requires")


def _valid_loop(node: Node) -> bool:
    attrs, subgraphs = node.attrs, node.subgraphs
    num_vars, limit = attrs.get("num_vars"), attrs.get("maximum_iterations")
    valid_limit = limit is None or type(limit) is int or limit == "input"
    if sorted(attrs) != ["maximum_iterations", "num_vars"] or sorted(subgraphs) != ["body", "cond"] \
            or type(num_vars) is not int or not valid_limit:
        return False
    extra = 1 if limit == "input" else 0
    cond, body = subgraphs["cond"], subgraphs["body"]
    return (0 <= num_vars and num_vars + extra <= len(node.inputs) and len(node.outputs) == num_vars
            and len(cond.inputs) == len(body.inputs) == len(node.inputs) - extra
            and len(cond.outputs) == 1 and len(body.outputs) == num_vars)


def _restore_captures(node: Node) -> None:
    """A subgraph's captures pair the node's trailing inputs with the subgraph's parameters;
    they are implied by the node, so the file does not repeat them."""
    if node.op is COND:
        for sub in node.subgraphs.values():
            sub.captures = list(zip(node.inputs[1:], sub.inputs))
    elif node.op is WHILE_LOOP:
        num_vars = node.attrs["num_vars"]
        first = num_vars + (1 if node.attrs["maximum_iterations"] == "input" else 0)
        for sub in node.subgraphs.values():
            sub.captures = list(zip(node.inputs[first:], sub.inputs[num_vars:]))
