"""Readable text for graphs: one typed node per line, subgraphs indented under their node.

    graph my_function(%x: f32[2]) -> (f32[2])
      %3: f32[] = reduce_sum(%x)                               # example.py:5
      %4: bool[] = less_equal(%3, 1.0)                         # example.py:5
      %7: f32[2] = cond(%4, %x)                                # example.py:5
        then(%capture0: f32[2]):
          %5: f32[2] = multiply(%capture0, %capture0)          # example.py:6
          return (%5)
        ...
      return (%7)
"""

from __future__ import annotations

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.io_ops import PRINT
from runtime.ops.registry import CONST
from runtime.tensor import format_type

_COMMENT_COLUMN = 64


def _value_text(value) -> str:
    node = value.node
    if node.op is CONST and node.attrs["value"].size <= 1 and node.attrs["value"].ndim == 0:
        return repr(node.attrs["value"][()].item())
    return value.name


def _attr_text(value) -> str:
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, np.ndarray):  # on one line, abbreviated past a few elements
        return " ".join(np.array2string(value, threshold=6, separator=", ").split())
    if hasattr(value, "_read_value_for_op"):
        return getattr(value, "name", "variable")
    if isinstance(value, tuple) and value and all(isinstance(v, (slice, int, type(None), type(Ellipsis)))
                                                  or type(v).__name__ == "_Input" for v in value):
        return "[" + ", ".join(_index_text(v) for v in value) + "]"
    return repr(value)


def _index_text(item) -> str:
    if item is Ellipsis:
        return "..."
    if item is None:
        return "None"
    if isinstance(item, slice):
        parts = ["" if p is None else repr(p) for p in (item.start, item.stop, item.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if parts[2] else "")
    return repr(item)


def _node_text(node: Node) -> str:
    if node.op is CONST:
        return f"const {_attr_text(node.attrs['value'])}"
    args = [_value_text(v) for v in node.inputs]
    args += [f"{key}={_attr_text(value)}" for key, value in node.attrs.items()
             if _shown(node, key, value)]
    return f"{node.op.name}({', '.join(args)})"


def _shown(node: Node, key: str, value) -> bool:
    """Attributes at their defaults (None, False, the usual print separators) are left out."""
    if value is None or value is False or key == "num_vars":
        return False
    return not (node.op is PRINT and key in ("sep", "end") and value in (" ", "\n"))


def _targets(node: Node) -> str:
    if not node.outputs:
        return ""
    return ", ".join(f"{v.name}: {format_type(v.dtype, v.shape)}" for v in node.outputs) + " = "


def _with_comment(text: str, node: Node, indent: str) -> str:
    notes = []
    if node.location is not None:
        notes.append(str(node.location))
    if node.effect:
        notes.append("effect")
    if not notes:
        return indent + text
    line = indent + text
    return line.ljust(_COMMENT_COLUMN) + "  # " + ", ".join(notes)


def _params(graph: Graph) -> str:
    return ", ".join(f"{v.name}: {format_type(v.dtype, v.shape)}" for v in graph.inputs)


def _block(graph: Graph, indent: str, lines: list[str]) -> None:
    for node in graph.nodes:
        if node.op is CONST and node.attrs["value"].ndim == 0:
            continue  # scalars are shown inline where they are used
        lines.append(_with_comment(_targets(node) + _node_text(node), node, indent))
        for key, sub in node.subgraphs.items():
            lines.append(f"{indent}  {key}({_params(sub)}):")
            _block(sub, indent + "    ", lines)
            lines.append(f"{indent}    return ({', '.join(_value_text(v) for v in sub.outputs)})")


def format_graph(graph: Graph) -> str:
    outputs = ", ".join(format_type(v.dtype, v.shape) for v in graph.outputs)
    lines = [f"graph {graph.name}({_params(graph)}) -> ({outputs})"]
    _block(graph, "  ", lines)
    lines.append(f"  return ({', '.join(_value_text(v) for v in graph.outputs)})")
    return "\n".join(lines)


def format_table(graph: Graph) -> str:
    """One row per node: name, op, inputs, type, source location (for wide terminals)."""
    rows = [("value", "op", "inputs", "type", "created at")]
    for node in graph.walk():
        rows.append((", ".join(v.name for v in node.outputs) or "-", node.op.name,
                     ", ".join(_value_text(v) for v in node.inputs),
                     ", ".join(format_type(v.dtype, v.shape) for v in node.outputs) or "-",
                     str(node.location) if node.location else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)
