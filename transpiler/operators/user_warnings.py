"""Warnings raised by converted code while it traces, shown at the user's own line.

``warnings.warn`` with a stack level would point at the generated module; these warnings go
through the source map instead, so they name the user's file and line. Each line warns once
per category, however often the function traces again.
"""

from __future__ import annotations

import threading
import warnings

from runtime import tracing
from runtime.source_location import user_location
from transpiler import trace_events
from transpiler.errors import UnrollWarning

_warned: set[tuple[str, int, type]] = set()
_lock = threading.Lock()

# An unrolled loop warns when it added this many graph nodes (each one is traced, optimized
# and planned on every trace), or ran this many iterations that each added a node: a bound
# that large usually grows with the data.
UNROLL_NODE_THRESHOLD = 5_000
UNROLL_ITERATION_THRESHOLD = 1_000


def warn_at_user_line(message: str, category: type[Warning], location=None) -> None:
    """Issues ``message`` at the user's line (the innermost frame outside eager2graph, mapped
    back from generated code), once per line and category."""
    location = location or user_location()
    if location is None:
        warnings.warn(message, category, stacklevel=2)
        return
    with _lock:
        key = (location.filename, location.lineno, category)
        if key in _warned:
            return
        _warned.add(key)
    warnings.warn_explicit(message, category, location.filename, location.lineno,
                           module=location.function_name or None)


class unroll_watch:
    """Counts the iterations of a Python loop that runs while tracing; on leaving, warns once
    if the loop added ``UNROLL_NODE_THRESHOLD`` nodes to the graph, or ran
    ``UNROLL_ITERATION_THRESHOLD`` iterations adding at least one node each."""

    __slots__ = ("construct", "graph", "start", "iterations", "location")

    def __init__(self, construct: str):
        self.construct = construct
        self.graph = tracing.current_graph()
        self.start = len(self.graph.nodes) if self.graph is not None else 0
        self.iterations = 0
        self.location = user_location() if self.graph is not None else None

    def __enter__(self) -> "unroll_watch":
        return self

    def __exit__(self, kind, error, traceback) -> None:
        if kind is not None or self.graph is None:
            return
        added = len(self.graph.nodes) - self.start
        trace_events.record_loop(self.location, self.construct, self.iterations, added)
        if added < UNROLL_NODE_THRESHOLD and not (
                UNROLL_ITERATION_THRESHOLD <= self.iterations <= added):
            return
        warn_at_user_line(
            f"This {self.construct} ran {self.iterations:,} times in Python while tracing and "
            f"added {added:,} nodes to the graph: its bound is a Python value, so the loop was "
            f"unrolled, which is slow to trace and to optimize. {_FIXES[self.construct]}",
            UnrollWarning, self.location)


_FIXES = {
    "for loop": "Make the bound a tensor to get one graph loop instead, e.g. "
                "`for i in rt.range(n)` or `for i in range(rt.constant(n))`, or loop over a "
                "tensor instead of a Python list.",
    "while loop": "Make the loop's condition a tensor (e.g. compare a tensor counter, "
                  "`i = rt.constant(0)`) to get one graph loop instead.",
}
