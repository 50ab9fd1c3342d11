"""Walks a graph and writes its ONNX nodes: the dispatch on ``OpDef``, effects, variables.

``env`` maps each value of the graph (by ``id``) to the name of the ONNX value holding it.
Subgraphs (``cond`` branches, loop bodies) are lowered with the same ``Lowering``: their
parameters map to the names of the values the control-flow node passes in, which ONNX
subgraphs read from the enclosing scope by name.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto

from runtime.errors import ExportError
from runtime.export import onnx_control_flow
from runtime.export.onnx_builder import Builder
from runtime.export.onnx_table import EFFECTS, NOT_EXPORTED, RULES
from runtime.graph import Graph, Node
from runtime.ops.io_ops import ASSERT
from runtime.ops.registry import COND, CONST, WHILE_LOOP
from runtime.variables import ASSIGN, READ

_SHARED_CONSTANT_SIZE = 16  # constants up to this many elements are shared by value


def describe(node: Node) -> str:
    return f"{node.op.name} ({node.reference()}, created at {node.location_text()})"


class Lowering:
    """Lowers the nodes of a graph and of its subgraphs into a ``Builder``."""

    def __init__(self, builder: Builder, drop_effects: bool):
        self.builder = builder
        self.drop_effects = drop_effects
        self.depth = 0  # > 0 inside a branch or a loop body
        self._variables: dict[int, str] = {}
        self._assigned_in_control_flow: dict[int, Node] = {}
        self.checks: list[tuple[str, str]] = []  # (bool scalar, message) of top-level asserts

    def graph(self, graph: Graph, env: dict) -> None:
        for node in graph.nodes:
            self.node(node, env)

    def nested(self, graph: Graph, env: dict) -> None:
        """Lowers a subgraph (into the builder's current scope)."""
        self.depth += 1
        try:
            self.graph(graph, env)
        finally:
            self.depth -= 1

    def node(self, node: Node, env: dict) -> None:
        b, op = self.builder, node.op
        if op is CONST:
            value = node.attrs["value"]
            name = None if value.size <= _SHARED_CONSTANT_SIZE else f"const_{node.id}"
            env[id(node.outputs[0])] = b.constant(value, name=name)
            return
        inputs = [env[id(value)] for value in node.inputs]
        with b.lowering(f"{op.name}_{node.id}"):
            if op is COND:
                outputs = onnx_control_flow.lower_cond(self, node, inputs)
            elif op is WHILE_LOOP:
                outputs = onnx_control_flow.lower_while(self, node, inputs)
            elif op is READ:
                outputs = [self._read(node)]
            elif op in EFFECTS:
                self._effect(node, inputs)
                return
            else:
                outputs = self._rule(node, inputs)
        for value, name in zip(node.outputs, outputs):
            env[id(value)] = name

    def _rule(self, node: Node, inputs: list[str]) -> list[str]:
        rule = RULES.get(node.op)
        if rule is None:
            reason = NOT_EXPORTED.get(node.op, "the exporter has no rule for it")
            raise ExportError(f"{describe(node)} cannot be exported to ONNX: {reason}.")
        try:
            return rule(self.builder, node, inputs)
        except ExportError as error:
            raise ExportError(f"{describe(node)} cannot be exported to ONNX: {error}") from None

    # -- effects and variables ----------------------------------------------------------------

    def _effect(self, node: Node, inputs: list[str]) -> None:
        if node.op is ASSERT and not self.depth:
            self._assert(node, inputs[0])
            return
        if node.op is ASSERT and not self.drop_effects:
            raise ExportError(
                f"{describe(node)} cannot be exported to ONNX: an assertion inside a conditional "
                f"or loop body has no ONNX form (one at the top of the function does). Move it "
                f"out, or pass drop_effects=True to export the model without it.")
        if not self.drop_effects:
            raise ExportError(
                f"{describe(node)} cannot be exported to ONNX: {NOT_EXPORTED[node.op]} Remove "
                f"it from the function, or pass drop_effects=True to export the model without it.")
        if node.op is ASSIGN:
            self._assign(node, inputs[0])

    def _assert(self, node: Node, condition: str) -> None:
        """Keeps the condition: ``guard_outputs`` makes every output depend on it."""
        b = self.builder
        truth = b.cast(condition, node.inputs[0].dtype, np.bool_)
        misses = b.emit("Cast", [b.emit("Not", [truth])], to=TensorProto.INT64)
        ok = b.emit("Equal", [b.emit("ReduceSum", [misses], keepdims=0), b.scalar(0, np.int64)])
        self.checks.append((ok, f"{node.attrs['message']} (assertion at {node.location_text()})"))

    def guard_outputs(self, names: list[str]) -> list[str]:
        """``names``, each failing when one of the function's assertions does."""
        for ok, message in self.checks:
            with self.builder.lowering("assert"):
                names = [self.builder.check(name, ok, message) for name in names]
        return names

    def _assign(self, node: Node, value: str) -> None:
        """With effects dropped, later reads in the same call still see the assigned value."""
        variable, b = node.attrs["variable"], self.builder
        if self.depth:
            self._assigned_in_control_flow[id(variable)] = node
            return
        mode = node.attrs["mode"]
        if mode != "assign":
            current = self._current_value(variable)
            value = b.emit("Add" if mode == "add" else "Sub", [current, value])
        self._variables[id(variable)] = value

    def _read(self, node: Node) -> str:
        variable = node.attrs["variable"]
        assigned = self._assigned_in_control_flow.get(id(variable))
        if assigned is not None:
            raise ExportError(
                f"{describe(node)} reads the variable {variable.name!r}, which "
                f"{describe(assigned)} assigns inside a conditional or loop; with "
                f"drop_effects=True the model cannot follow that assignment. Return the new "
                f"value from the function instead of assigning it.")
        return self._current_value(variable)

    def _current_value(self, variable) -> str:
        name = self._variables.get(id(variable))
        if name is None:
            name = self.builder.constant(variable.numpy(), name=variable.name)
            self._variables[id(variable)] = name
        return name
