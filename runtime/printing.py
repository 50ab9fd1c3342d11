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


def display_names(graph: Graph) -> dict[int, str]:
    """Names of the capture parameters of every subgraph, by position: a capture is named
    when first read, so the branches of one ``cond`` would otherwise list the same values
    under different names (``then(%capture0, %capture1)``, ``else(%capture1, %capture0)``)."""
    names: dict[int, str] = {}
    for node in graph.walk():
        for sub in node.subgraphs.values():
            for position, (_, placeholder) in enumerate(sub.captures):
                names[id(placeholder)] = f"%capture{position}"
    return names


def _name(value, names: dict[int, str]) -> str:
    return names.get(id(value), value.name)


def _value_text(value, names: dict[int, str]) -> str:
    node = value.node
    if node.op is CONST and node.attrs["value"].size <= 1 and node.attrs["value"].ndim == 0:
        return repr(node.attrs["value"][()].item())
    return _name(value, names)


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


# Constants of at most this many elements are shown in full in pictures; larger ones as
# their shape and a summary, so a weight matrix does not fill the drawing.
_FULL_CONSTANT_SIZE = 16


def constant_text(value: np.ndarray) -> str:
    """A constant's value for a picture: all of it when small, else its shape and summary."""
    if value.size <= _FULL_CONSTANT_SIZE:
        return " ".join(np.array2string(value, separator=", ", threshold=_FULL_CONSTANT_SIZE)
                        .split())
    count = f"{value.size:,} values"
    if value.dtype == np.bool_:
        return f"{count}: {int(np.count_nonzero(value)):,} true"
    if value.dtype.kind not in "iuf":
        return count
    low, high = value.min(), value.max()
    mean = value.mean(dtype=np.float64)
    return f"{count}: min {low:.4g}, max {high:.4g}, mean {mean:.4g}"


def _index_text(item) -> str:
    if item is Ellipsis:
        return "..."
    if item is None:
        return "None"
    if isinstance(item, slice):
        parts = ["" if p is None else repr(p) for p in (item.start, item.stop, item.step)]
        return ":".join(parts[:2]) + (f":{parts[2]}" if parts[2] else "")
    return repr(item)


def _node_text(node: Node, names: dict[int, str]) -> str:
    if node.op is CONST:
        return f"const {_attr_text(node.attrs['value'])}"
    args = [_value_text(v, names) for v in node.inputs]
    args += [f"{key}={_attr_text(value)}" for key, value in node.attrs.items()
             if _shown(node, key, value)]
    return f"{node.op.name}({', '.join(args)})"


def _shown(node: Node, key: str, value) -> bool:
    """Attributes at their defaults (None, False, the usual print separators) are left out."""
    if value is None or value is False or key == "num_vars":
        return False
    return not (node.op is PRINT and key in ("sep", "end") and value in (" ", "\n"))


def _targets(node: Node, names: dict[int, str]) -> str:
    if not node.outputs:
        return ""
    return ", ".join(f"{_name(v, names)}: {format_type(v.dtype, v.shape)}"
                     for v in node.outputs) + " = "


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


def _params(graph: Graph, names: dict[int, str]) -> str:
    return ", ".join(f"{_name(v, names)}: {format_type(v.dtype, v.shape)}" for v in graph.inputs)


def _block(graph: Graph, indent: str, lines: list[str], names: dict[int, str]) -> None:
    for node in graph.nodes:
        if node.op is CONST and node.attrs["value"].ndim == 0:
            continue  # scalars are shown inline where they are used
        lines.append(_with_comment(_targets(node, names) + _node_text(node, names), node, indent))
        for key, sub in node.subgraphs.items():
            lines.append(f"{indent}  {key}({_params(sub, names)}):")
            _block(sub, indent + "    ", lines, names)
            results = ", ".join(_value_text(v, names) for v in sub.outputs)
            lines.append(f"{indent}    return ({results})")


def format_graph(graph: Graph) -> str:
    names = display_names(graph)
    outputs = ", ".join(format_type(v.dtype, v.shape) for v in graph.outputs)
    lines = [f"graph {graph.name}({_params(graph, names)}) -> ({outputs})"]
    _block(graph, "  ", lines, names)
    lines.append(f"  return ({', '.join(_value_text(v, names) for v in graph.outputs)})")
    return "\n".join(lines)


def format_table(graph: Graph) -> str:
    """One row per node: name, op, inputs, type, source location (for wide terminals)."""
    names = display_names(graph)
    rows = [("value", "op", "inputs", "type", "created at")]
    for node in graph.walk():
        rows.append((", ".join(_name(v, names) for v in node.outputs) or "-", node.op.name,
                     ", ".join(_value_text(v, names) for v in node.inputs),
                     ", ".join(format_type(v.dtype, v.shape) for v in node.outputs) or "-",
                     str(node.location) if node.location else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows)
