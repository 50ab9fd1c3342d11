"""The Python objects a trace received from outside: its arguments, closure and globals.

A symbolic tensor stored in such an object outlives the trace that made it: the next call
reuses the graph and never updates the object, so Python and the graph would disagree.
Converted control flow asks ``is_from_outside`` before leaving a graph value in an
attribute or item, and refuses when the object came from outside (objects the traced code
created itself die with the call, so graph values in them are fine).
"""

from __future__ import annotations

import types
from typing import Any, Callable

import numpy as np

from runtime import tracing
from runtime.tensor import Tensor

# How far from the arguments an object may sit (``self.model.layers[0]`` is 3 steps) and how
# many objects one search may visit: the search runs once per refused-or-allowed write while
# tracing, never when a graph runs.
_MAX_DEPTH = 4
_MAX_VISITS = 20_000

# Leaves of the search: they hold no user objects that converted code could change.
_OPAQUE = (str, bytes, int, float, complex, bool, type(None), Tensor, np.ndarray, np.generic,
           types.ModuleType, type, types.BuiltinFunctionType)


def roots_of_call(function: Callable, arguments: tuple) -> tuple:
    """What a call of ``function`` with ``arguments`` can reach without creating anything."""
    roots: list[Any] = list(arguments)
    bound_self = getattr(function, "__self__", None)
    if bound_self is not None:
        roots.append(bound_self)
    function = getattr(function, "__func__", function)
    for cell in getattr(function, "__closure__", None) or ():
        try:
            roots.append(cell.cell_contents)
        except ValueError:  # an empty cell
            pass
    return tuple(roots)


def is_from_outside(obj: Any) -> bool:
    """Whether ``obj`` is reachable from the arguments or closure of the function being traced.

    Outside any trace (or in a trace that recorded no roots) every object counts as outside:
    refusing is the safe answer."""
    graph = tracing.current_graph()
    while graph is not None and graph.parent is not None:
        graph = graph.parent
    roots = getattr(graph, "received", None)
    if roots is None:
        return True
    return _reachable(obj, roots)


def _reachable(target: Any, roots: tuple) -> bool:
    seen: set[int] = set()
    frontier = list(roots)
    for _ in range(_MAX_DEPTH + 1):
        following = []
        for obj in frontier:
            if obj is target:
                return True
            if id(obj) in seen or isinstance(obj, _OPAQUE):
                continue
            seen.add(id(obj))
            if len(seen) > _MAX_VISITS:
                return True  # too big to search: assume the worst
            following.extend(_children(obj))
        frontier = following
    return False


def _children(obj: Any) -> list:
    if isinstance(obj, dict):
        return list(obj.values())
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)
    if isinstance(obj, types.FunctionType):
        return [cell.cell_contents for cell in obj.__closure__ or () if _filled(cell)]
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    attributes = getattr(obj, "__dict__", None)
    return list(attributes.values()) if isinstance(attributes, dict) else []


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True
