"""Runs a graph on JAX values: what the exported function does each time JAX traces it.

Nodes run in program order. An op whose inputs are all known (NumPy arrays) runs its own
NumPy kernel when its result is small (``jax_values.fold``): constants, shapes and whatever
depends only on them keep the graph's exact values and stay usable as shapes. Every other op
runs its rule from ``jax_table.LOWERINGS``; control flow, variable reads and effects are
handled here. A known op whose kernel raises becomes a call that raises when it runs (a
branch not taken never does).
"""

from __future__ import annotations

import numpy as np

import jax

from runtime.export import jax_control_flow
from runtime.export.jax_checks import check, failure, fails
from runtime.export.jax_math import truth
from runtime.export.jax_table import LOWERINGS
from runtime.export.jax_values import fold, foldable, is_known, require_x64, to_jax
from runtime.graph import Graph
from runtime.ops import io_ops
from runtime.ops.registry import COND, CONST, WHILE_LOOP
from runtime.passes.counted_loops import RANGE_FITS
from runtime.variables import READ


class Interpreter:
    """Evaluates graphs with variables read as the values ``snapshots`` holds
    (``id(variable) -> array``, taken at export)."""

    def __init__(self, snapshots: dict[int, np.ndarray]):
        self.snapshots = snapshots

    def run(self, graph: Graph, args) -> list:
        env = {id(p): v for p, v in zip(graph.inputs, args)}
        for node in graph.nodes:
            results = self.node(node, [env[id(v)] for v in node.inputs])
            env.update((id(out), value) for out, value in zip(node.outputs, results))
        return [env[id(v)] for v in graph.outputs]

    def node(self, node, values) -> list:
        op = node.op
        if op is CONST:
            return [node.attrs["value"]]
        if op is READ:
            return [self.snapshots[id(node.attrs["variable"])]]
        if op is COND:
            return jax_control_flow.cond(self.run, node, values)
        if op is WHILE_LOOP:
            return jax_control_flow.while_loop(self.run, node, values)
        if op is io_ops.PRINT:
            return _print(node, values)
        if op is io_ops.ASSERT:
            return _assert(node, values)
        if all(is_known(v) for v in values) and foldable(node):
            return _folded(node, values)
        if op is RANGE_FITS:
            return [_range_fits(node, *values)]
        result = LOWERINGS[op](node, *values)
        results = [result] if len(node.outputs) == 1 else list(result)
        for out, value in zip(node.outputs, results):
            if not is_known(value):  # known values (shapes) never reach JAX as they are
                require_x64(node, out.dtype)
        return results


def _folded(node, arrays) -> list:
    try:
        return fold(node, arrays)
    except Exception as error:  # noqa: BLE001 - the graph's kernel fails on these values
        types = [(out.dtype, out.shape) for out in node.outputs]
        if any(shape is None or None in shape for _, shape in types):
            raise failure(node, str(error)) from error
        return fails(node, str(error), types)


def _print(node, values) -> list:
    """Prints what the graph prints, in program order (an ordered host callback running the
    graph's own print kernel)."""
    attrs = dict(node.attrs)

    def emit(*arrays):
        io_ops._print_kernel(*(np.asarray(a) for a in arrays), **attrs)
    jax.debug.callback(emit, *(to_jax(v, v.dtype, node) for v in values), ordered=True)
    return []


def _assert(node, values) -> list:
    """Raises the graph's AssertionFailedError when the call runs and the condition fails."""
    condition, *data = values
    message = node.attrs["message"]
    check(node, truth(node, condition), lambda *arrays: _assert_text(message, arrays), *data)
    return []


def _assert_text(message: str, data) -> str:
    details = " ".join(io_ops.format_value(np.asarray(d)) for d in data)
    return message + (f" {details}" if details else "")


def _range_fits(node, start, bound):
    """Whether ``range(start, bound)`` has at most ``max_length`` elements and ``bound`` does
    not exceed ``counter_max``, computed without overflow."""
    start, bound = to_jax(start, start.dtype, node), to_jax(bound, bound.dtype, node)
    length, counter_max = node.attrs["max_length"], node.attrs["counter_max"]
    info = np.iinfo(bound.dtype)
    low = bound < info.min + length  # then start >= bound - length for every start
    reach = jax.numpy.where(low, jax.numpy.asarray(info.min, bound.dtype), bound - length)
    fits = low | (start.astype(np.result_type(start.dtype, bound.dtype))
                  >= reach.astype(np.result_type(start.dtype, bound.dtype)))
    if counter_max is not None and counter_max < info.max:
        fits = fits & (bound <= counter_max)
    return fits
