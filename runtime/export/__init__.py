"""Hand a traced graph to an engine people already deploy: ONNX Runtime, or JAX.

Each exporter lives in its own module and imports its engine only when called, so
``import runtime`` works without the optional extras (``pip install "eager2graph[onnx]"``,
``"eager2graph[jax]"``).
"""

from __future__ import annotations

from typing import Callable


def onnx(concrete_function, path, opset: int | None = None, *, drop_effects: bool = False):
    """Writes ``concrete_function``'s graph to ``path`` as an ONNX model that ONNX Runtime runs
    with the graph's results (``cond`` as ``If``, ``while_loop`` as ``Loop``); returns the model.
    Effects ONNX cannot express (``print``, variable assignments) are refused, or left out with
    ``drop_effects=True``."""
    import runtime.export.onnx_export as onnx_export
    return onnx_export.export(concrete_function, path, opset=opset, drop_effects=drop_effects)


def jax(concrete_function) -> Callable:
    """``concrete_function``'s graph as a pure function on JAX arrays, which ``jax.jit``
    compiles for whatever devices JAX has."""
    import runtime.export.jax_export as jax_export
    return jax_export.export(concrete_function)


__all__ = ["onnx", "jax"]
