"""Pictures of graphs: Graphviz DOT text, and SVG/PNG when the Graphviz ``dot`` program exists.

Nodes are labelled with op, dtype and shape; constants are grey notes, effects (print, assert,
variable writes, random draws) red boxes, parameters and results ellipses. A ``cond`` or
``while_loop`` node's subgraphs are drawn as clusters next to it, their parameters fed from the
node's inputs. Each node's tooltip is the user's source line that created it.

    print(rt.visualize.to_dot(f.get_concrete_function(x)))
    rt.visualize.render(f.get_concrete_function(x), "f.svg")
"""

from __future__ import annotations

import os
import shutil
import subprocess

from runtime.graph import Graph, Node
from runtime.ops.registry import COND, CONST
from runtime.printing import constant_text, display_names, format_table
from runtime.tensor import format_type

__all__ = ["to_dot", "render", "format_table", "GraphvizNotFoundError"]

_INSTALL_HINT = ("Install Graphviz (Debian/Ubuntu: `apt install graphviz`, macOS: `brew install "
                 "graphviz`, conda: `conda install graphviz`), or write the DOT text with "
                 "rt.visualize.to_dot(...) and render it elsewhere.")


class GraphvizNotFoundError(RuntimeError):
    """The ``dot`` program that turns DOT text into pictures is not installed."""


def to_dot(graph_or_function) -> str:
    """The graph of a ConcreteFunction (or a Graph) as Graphviz DOT text."""
    graph = getattr(graph_or_function, "graph", graph_or_function)
    writer = _DotWriter(display_names(graph))
    writer.lines += [f"digraph {_quote(graph.name)} {{", "  rankdir=TB;",
                     '  node [fontname="Helvetica", fontsize=10];',
                     '  edge [fontname="Helvetica", fontsize=9];']
    writer.graph(graph, "  ", outer=True)
    writer.lines.append("}")
    return "\n".join(writer.lines) + "\n"


def render(graph_or_function, path: str, format: str | None = None) -> str:  # noqa: A002
    """Writes a picture of the graph to ``path`` (format from the extension: svg, png, pdf)
    with Graphviz's ``dot``; returns ``path``."""
    executable = shutil.which("dot")
    if executable is None:
        raise GraphvizNotFoundError(f"Cannot render {path}: the Graphviz `dot` program is not "
                                    f"installed. {_INSTALL_HINT}")
    kind = format or os.path.splitext(path)[1].lstrip(".").lower() or "svg"
    completed = subprocess.run([executable, f"-T{kind}", "-o", path], input=to_dot(graph_or_function),
                               text=True, capture_output=True)
    if completed.returncode != 0:
        raise RuntimeError(f"Graphviz could not render {path}: {completed.stderr.strip()}")
    return path


class _DotWriter:
    def __init__(self, names: dict[int, str]):
        self.names = names  # capture parameters named by position, as the text printout does
        self.lines: list[str] = []
        self.ids: dict[int, str] = {}  # id(SymbolicTensor) -> DOT node id producing it
        self.clusters = 0
        self.results = 0  # numbers the result nodes of each (sub)graph

    def graph(self, graph: Graph, indent: str, outer: bool) -> None:
        for value in graph.inputs:
            node_id = f"in{value.node.id}"
            self.ids[id(value)] = node_id
            name = self.names.get(id(value), value.name)
            self.lines.append(f"{indent}{node_id} [shape=ellipse, label={_quote(_label(name, value))}];")
        for node in graph.nodes:
            self.node(node, indent)
        self.results += 1
        for position, value in enumerate(graph.outputs):
            out_id = f"out{self.results}_{position}"
            label = f"return {position}" if outer else f"result {position}"
            self.lines.append(f"{indent}{out_id} [shape=ellipse, style=dashed, label={_quote(label)}];")
            self.lines.append(f"{indent}{self.ids[id(value)]} -> {out_id};")

    def node(self, node: Node, indent: str) -> None:
        node_id = f"n{node.id}"
        for value in node.outputs:
            self.ids[id(value)] = node_id
        types = ", ".join(format_type(v.dtype, v.shape) for v in node.outputs)
        if node.op is CONST:
            text = f"const {types}\n{constant_text(node.attrs['value'])}"
            style = 'shape=note, style=filled, fillcolor="#eeeeee"'
        elif node.effect:
            text = f"{node.op.name}\n{types}" if types else node.op.name
            style = 'shape=box, style="filled,bold", color="#b22222", fillcolor="#fde0dc"'
        else:
            text = f"{node.op.name}\n{types}"
            style = "shape=box"
        tooltip = str(node.location) if node.location else "no source location"
        self.lines.append(f"{indent}{node_id} [{style}, label={_quote(text)}, tooltip={_quote(tooltip)}];")
        for position, value in enumerate(node.inputs):
            self.lines.append(f"{indent}{self.ids[id(value)]} -> {node_id} [label=\"{position}\"];")
        for key, sub in node.subgraphs.items():
            self.cluster(node, key, sub, indent)

    def cluster(self, node: Node, key: str, sub: Graph, indent: str) -> None:
        self.clusters += 1
        self.lines.append(f"{indent}subgraph cluster_{self.clusters} {{")
        inner = indent + "  "
        self.lines += [f"{inner}label={_quote(f'{node.op.name} n{node.id}: {key}')};",
                       f'{inner}style=rounded; color="#4169e1";']
        self.graph(sub, inner, outer=False)
        self.lines.append(f"{indent}}}")
        # The subgraph's parameters come from the node's inputs (after the predicate of a cond).
        feeding = node.inputs[1:] if node.op is COND else _loop_arguments(node)
        for argument, parameter in zip(feeding, sub.inputs):
            self.lines.append(f"{indent}{self.ids[id(argument)]} -> {self.ids[id(parameter)]} "
                              f"[style=dotted, arrowhead=none];")


def _loop_arguments(node: Node) -> list:
    arguments = list(node.inputs)
    if node.attrs.get("maximum_iterations") == "input":
        del arguments[node.attrs["num_vars"]]
    return arguments


def _label(name: str, value) -> str:
    return f"{name}\n{format_type(value.dtype, value.shape)}"


def _quote(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'
