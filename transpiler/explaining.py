"""``transpiler.explain``: traces a function and says, line by line, what became of its code.

Three sources are combined:

* the graph as traced and as optimized (``ConcreteFunction.unoptimized_graph`` keeps node ids,
  so a node missing from the optimized graph was removed by a pass, whose change line names it);
* the decisions converted code made in Python (``trace_events``): branches picked, loops
  unrolled, prints that ran once;
* a line tracer on the function's own frames (generated code mapped back to the user's lines).
  It says which lines ran while tracing, and which line of the function was running when each
  node was made, so ops made inside a helper count at the line that called it.
"""

from __future__ import annotations

import functools
import inspect
import sys
import sysconfig
import types
from typing import Callable

import runtime as rt
from runtime import tracing
from runtime.graph import Graph, Node, node_id_mark
from runtime.passes.rewrite import change_subject
from runtime.source_location import (Location, generated_line_origin, is_generated_file,
                                     is_internal_file, user_traceback)
from transpiler import trace_events
from transpiler.api import function as converted_function
from transpiler.errors import SourceUnavailableError
from transpiler.explain_report import FOLDED, ExplainReport, NodeFact, Source


def explain(fn: Callable, *args, **kwargs) -> ExplainReport:
    """Traces ``fn`` for these arguments (values or ``rt.TensorSpec``s) and reports what each
    line of its source became: graph ops, graph control flow, Python that ran only while
    tracing, unrolled loops, constants folded, ops pruned, effects kept.

    ``fn`` is a plain function (converted as ``transpiler.function`` would) or a function
    already decorated; its own cache is left alone. ``str(report)`` is the readable listing."""
    target = _fresh_function(fn)
    source = _source_of(target.python_function, fn)
    try:
        with trace_events.recording() as events, _LineTracer(source) as lines:
            concrete = target.get_concrete_function(*args, **kwargs)
    except Exception as error:
        if not rt.config.traceback_filtering():
            raise
        raise error.with_traceback(user_traceback(error))
    traced = concrete.unoptimized_graph
    kept = {node.id for node in _walk(concrete.graph)}
    removals = _removal_reasons(concrete.pass_records)
    facts = [NodeFact(node, lines.line_of(node.id), enclosing, node.id in kept,
                      _removal_of(node, kept, removals, enclosing_removed))
             for node, enclosing, enclosing_removed in _walk_with_context(traced, kept, removals)]
    # Nodes the passes made (folded constants, rewritten loops) count at their location's line.
    traced_ids = {fact.node.id for fact in facts}
    facts += [NodeFact(node, _line_in(source, node.location), enclosing, True, None, added=True)
              for node, enclosing, _ in _walk_with_context(concrete.graph, kept, {})
              if node.id not in traced_ids]
    return ExplainReport(target.__name__, _signature(concrete), source, facts, list(events),
                         lines.ran, lines.staged)


def _signature(concrete) -> str:
    """``(x: float32[None, 3], steps=2)``: tensors by dtype and shape, Python values as such."""
    parts = []
    for name, value in zip(concrete.param_names, concrete.structured_input_signature):
        if isinstance(value, rt.TensorSpec):
            dims = "?" if value.shape is None else ", ".join(
                "None" if d is None else str(d) for d in value.shape)
            parts.append(f"{name}: {value.dtype.name}[{dims}]")
        else:
            text = repr(value)
            parts.append(f"{name}={text if len(text) <= 40 else text[:37] + '...'}")
    return "(" + ", ".join(parts) + ")"


def _fresh_function(fn: Callable) -> rt.Function:
    """A new Function tracing what ``fn`` traces, so the report's trace is not a cache hit
    and leaves ``fn``'s cache and trace count alone."""
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, rt.Function):
        fn = fn.__func__  # a decorated method reached through an instance
    if isinstance(fn, rt.Function):
        return rt.Function(fn.python_function, input_signature=fn.input_signature,
                           trace_function=fn.trace_function, jit_compile=False)
    if not callable(fn):
        raise TypeError(f"transpiler.explain needs a function, not {type(fn).__name__} "
                        f"{fn!r}.")
    return converted_function(fn, jit_compile=False)


def _source_of(python_function: Callable, shown: Callable) -> Source:
    function = python_function
    while isinstance(function, functools.partial):
        function = function.func
    if not isinstance(function, (types.FunctionType, types.MethodType)) and callable(function):
        function = type(function).__call__  # a layer or model object: its __call__ is traced
    function = inspect.unwrap(getattr(function, "__func__", function))
    try:
        lines, first = inspect.getsourcelines(function)
        filename = inspect.getsourcefile(function) or function.__code__.co_filename
    except (OSError, TypeError, AttributeError):
        raise SourceUnavailableError(
            f"transpiler.explain cannot read the source of {shown!r}, so it has nothing to list "
            f"line by line. Define the function in a .py file (not in an interactive shell or "
            f"with exec), or print the graph instead: "
            f"str(fn.get_concrete_function(...).graph).") from None
    return Source(filename, max(first, 1), [line.rstrip("\r\n") for line in lines])


def _line_in(source: Source, location: Location | None) -> int | None:
    return location.lineno if location is not None and source.contains(location) else None


# -- which line made each node --------------------------------------------------------------

_LIBRARY_PREFIXES = tuple({path for key in ("stdlib", "platstdlib", "purelib", "platlib")
                           if (path := sysconfig.get_paths().get(key))})


class _LineTracer:
    """Follows the frames of the explained function (and of the functions nested in its
    generated code) with ``sys.settrace``: which of its lines ran, and, as a sequence of node
    id marks, which of its lines was running when each node was made.

    Only those frames get a local tracer; every other call costs one check. The tracer of
    whoever traced before (a debugger, coverage) is put back on leaving."""

    def __init__(self, source: Source):
        self._source = source
        self._stack: list[int] = []  # the current line of each frame of the function
        self._marks: list[tuple[int, int | None]] = []  # (first node id, line) in order
        self.ran: set[int] = set()
        self.staged: set[int] = set()  # lines run while tracing a graph branch or loop body
        self._saved = None

    def __enter__(self) -> "_LineTracer":
        self._saved = sys.gettrace()
        sys.settrace(self._on_call)
        return self

    def __exit__(self, *exc) -> None:
        sys.settrace(self._saved)

    def _user_line(self, frame: types.FrameType) -> int | None:
        """The explained function's line that ``frame`` is at, or None if it is elsewhere."""
        filename = frame.f_code.co_filename
        if is_generated_file(filename):
            location = generated_line_origin(filename, frame.f_lineno)
        elif is_internal_file(filename) or filename.startswith(_LIBRARY_PREFIXES):
            return None
        else:
            location = Location(filename, frame.f_lineno)
        if location is None or not self._source.contains(location):
            return None
        return location.lineno

    def _on_call(self, frame: types.FrameType, event: str, arg):
        line = self._user_line(frame)
        if line is None:
            return None
        self._stack.append(line)
        self._mark()
        return self._on_event

    def _on_event(self, frame: types.FrameType, event: str, arg):
        if event == "line":
            line = self._user_line(frame)
            if line is not None and self._stack:
                self.ran.add(line)
                graph = tracing.current_graph()
                if graph is not None and graph.parent is not None:
                    self.staged.add(line)
                self._stack[-1] = line
                self._mark()
        elif event == "return" and self._stack:
            self._stack.pop()
            self._mark()
        return self._on_event

    def _mark(self) -> None:
        line = self._stack[-1] if self._stack else None
        if not self._marks or self._marks[-1][1] != line:
            self._marks.append((node_id_mark(), line))

    def line_of(self, node_id: int) -> int | None:
        """The function's line running when the node with this id was made (None: before
        the function started or after it returned, such as its parameters)."""
        line = None
        low, high = 0, len(self._marks)
        while low < high:  # the last mark at or below node_id
            middle = (low + high) // 2
            if self._marks[middle][0] <= node_id:
                low = middle + 1
            else:
                high = middle
        if low:
            line = self._marks[low - 1][1]
        return line


# -- what the passes did to each node --------------------------------------------------------

# The pipeline's pass names, as the report words what each did to a node it removed.
_REMOVED_BY = {
    "constant folding": FOLDED,
    "prune": "pruned as unused",
    "cse": "merged with identical ops",
    "simplify": "simplified away",
    "inline cond": "inlined (the condition was a constant)",
    "dead loops": "removed with a loop that never runs",
    "counted loops": "rewritten as array code (a counted loop)",
}


def _removal_reasons(pass_records) -> dict[str, str]:
    """The change subject of each node a pass removed -> why, in the report's words."""
    reasons: dict[str, str] = {}
    for record in pass_records:
        for change in record.changes:
            subject = change.split(": ", 1)[0]
            reasons.setdefault(subject, _REMOVED_BY.get(record.name, "optimized away"))
    return reasons


def _removal_of(node: Node, kept: set[int], reasons: dict[str, str],
                enclosing_removed: str | None) -> str | None:
    if node.id in kept:
        return None
    return reasons.get(change_subject(node)) or enclosing_removed or "optimized away"


def _walk(graph: Graph):
    for node in graph.nodes:
        yield node
        for sub in node.subgraphs.values():
            yield from _walk(sub)


def _walk_with_context(graph: Graph, kept: set[int], reasons: dict[str, str],
                       enclosing: str | None = None, enclosing_removed: str | None = None):
    """Every node with the control flow around it (``"cond"``, ``"while_loop"`` or None) and,
    for a node inside removed control flow, why that control flow went."""
    for node in graph.nodes:
        yield node, enclosing, enclosing_removed
        if node.subgraphs:
            removed = _removal_of(node, kept, reasons, enclosing_removed)
            for sub in node.subgraphs.values():
                yield from _walk_with_context(sub, kept, reasons, node.op.name, removed)
