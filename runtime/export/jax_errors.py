"""How the JAX exporter's errors name a node.

``rt.errors.ExportError`` (shared with the ONNX exporter) says that a graph, or one op of it,
cannot become a JAX function with the graph's exact results; the message names the op, the
user's line that created it and what to do instead.
"""

from __future__ import annotations

from runtime.errors import ExportError


def where(node) -> str:
    """How a message names a node: its op, its value and the user's line."""
    return f"{node.op.name} ({node.reference()}, created at {node.location_text()})"


def refuse(node, reason: str) -> ExportError:
    """The error for ``node``: ``reason`` is one or more full sentences saying why and how to
    fix it."""
    error = ExportError(f"rt.export.jax cannot export {where(node)}: {reason}")
    error.node = node
    return error
