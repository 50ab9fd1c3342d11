"""Compiles a graph into a Python function: straight-line code, no per-call graph walking.

``Plan(graph, name)`` writes the graph as the source of one Python function
(``runtime.plan_emitter``: one line per node, kernels and constants bound as globals, control
flow as ``if`` and ``while``), compiles it, and runs it on NumPy arrays. The source is
registered with ``linecache`` so tracebacks show it (``runtime.plan_source``: plans of the same
text share one entry, which goes with the last of them; ``runtime.code_cache`` compiles a text
once per machine), and every line maps back to its node,
so a failing kernel is reported with the op and the user's line that created it. A plan may be
given a ``LoopLimit`` (``runtime.plan_control_flow``) for graphs from untrusted files.
"""

from __future__ import annotations

from types import TracebackType
from typing import Callable

from runtime import code_cache, numpy_warnings
from runtime.errors import (AssertionFailedError, IntegerDivisionByZeroError,
                            InvalidArgumentError, LoopLimitError, OutOfRangeError)
from runtime.graph import Graph, Node
from runtime.plan_control_flow import LoopLimit
from runtime.plan_emitter import Emitter
from runtime.plan_source import function_name, shared_source

__all__ = ["LoopLimit", "Plan"]


class Plan:
    """An executable form of a graph: ``plan(*input_arrays) -> tuple of output arrays``."""

    def __init__(self, graph: Graph, name: str, loop_limit: LoopLimit | None = None):
        self.graph = graph
        emitter = Emitter(loop_limit)
        self.source = emitter.function_source(graph, name)
        self._line_nodes = emitter.line_nodes
        source = shared_source(name, self.source)
        self.filename = source.filename
        self._namespace = namespace = dict(emitter.globals)
        # The linecache entry lives as long as the plan's functions (their globals hold it),
        # so tracebacks show the source while they can point at it, and no longer.
        namespace["__eager2graph_source__"] = source
        # NumPy's warnings from a line of the plan are issued at the user's line of its node.
        namespace[numpy_warnings.PLAN_LINES] = self._line_nodes
        exec(code_cache.compiled(self.source, self.filename), namespace)
        self.run: Callable = numpy_warnings.reporting(namespace[function_name(name)])

    def node_for_traceback(self, traceback: TracebackType | None) -> Node | None:
        """The node whose line of generated code was executing when an error was raised."""
        node = None
        while traceback is not None:
            if traceback.tb_frame.f_globals is self._namespace:
                node = self._line_nodes.get(traceback.tb_lineno, node)
            traceback = traceback.tb_next
        return node

    def translate_error(self, error: BaseException) -> BaseException:
        """A kernel error rewritten to say which op failed and where the user created it."""
        node = self.node_for_traceback(error.__traceback__)
        if node is None or isinstance(error, LoopLimitError):  # it names the loop itself
            return error
        where = node.location.describe() if node.location else "an unknown location"
        if isinstance(error, (AssertionFailedError, OutOfRangeError)):
            translated = type(error)(f"{error}\n  Assertion created at {where}")
        else:
            # A kernel of the compiled tier raises Python's ZeroDivisionError.
            kind = IntegerDivisionByZeroError if isinstance(error, ZeroDivisionError) \
                else InvalidArgumentError
            translated = kind(
                f"{node.op.name} (node {node.value_name(0) if node.outputs else '%' + str(node.id)}) "
                f"failed while running the graph: {error}\n  The op was created at {where}")
        translated.node = node
        return translated
