"""The graph-building context: which graph ops go into, per thread.

While a function is traced, ``current_graph()`` is its graph; inside a ``cond`` branch or a loop
body it is the subgraph. Outside any trace it is ``None`` and ops run eagerly.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

from runtime.graph import Graph


class _TraceStack(threading.local):
    def __init__(self):
        self.graphs: list[Graph] = []


_stack = _TraceStack()
# Graphs being built in any thread: while nonzero, Function calls skip their fast path (the
# general path then decides per thread whether the call joins a trace).
active_traces = 0
_count_lock = threading.Lock()


def current_graph() -> Graph | None:
    graphs = _stack.graphs
    return graphs[-1] if graphs else None


def is_tracing() -> bool:
    return bool(_stack.graphs)


@contextmanager
def building(graph: Graph):
    """Makes ``graph`` the target of new ops for the duration of the block."""
    global active_traces
    _stack.graphs.append(graph)
    with _count_lock:
        active_traces += 1
    try:
        yield graph
    finally:
        with _count_lock:
            active_traces -= 1
        _stack.graphs.pop()


@contextmanager
def eager_scope():
    """Runs ops eagerly even inside a trace (used to evaluate trace-time constants)."""
    saved = _stack.graphs
    _stack.graphs = []
    try:
        yield
    finally:
        _stack.graphs = saved
