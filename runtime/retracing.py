"""Warns once when a function keeps being traced, and says which argument caused it.

A trace costs milliseconds; a function traced on most calls is slower than plain Python. The
detector is shared by every Function wrapping the same Python code, so a function wrapped anew
inside a loop is caught too.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque

from runtime.errors import RetracingWarning
from runtime.source_location import warn_at_user_code
from runtime.trace_keys import describe, is_container_key, is_tensor_key

WINDOW = 10
THRESHOLD = 5


class _Detector:
    __slots__ = ("history", "warned", "last_key")

    def __init__(self):
        self.history: deque[bool] = deque(maxlen=WINDOW)
        self.warned = False
        self.last_key = None


# Keyed by the code object, weakly: the history of a function goes when its code does (a
# notebook cell run again and again must not grow this).
_detectors: "weakref.WeakKeyDictionary[object, _Detector]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def record_trace(code_key, calls_without_trace: int, key, param_names, function_name: str) -> None:
    """Records a traced call after ``calls_without_trace`` cached ones; warns the first time
    ``THRESHOLD`` of the last ``WINDOW`` calls traced."""
    with _lock:
        try:
            detector = _detectors.get(code_key)
            if detector is None:
                detector = _detectors[code_key] = _Detector()
        except TypeError:  # a callable without code and without weak references: not tracked
            return
        previous, detector.last_key = detector.last_key, key
        detector.history.extend([False] * min(calls_without_trace, WINDOW))
        detector.history.append(True)
        traces = sum(detector.history)
        if detector.warned or traces < THRESHOLD:
            return
        detector.warned = True
    cause = _changed_arguments(previous, key, param_names)
    warn_at_user_code(
        f"{function_name} was traced {traces} times in its last {len(detector.history)} calls. "
        f"Tracing is slow, so calls that trace are much slower than calls that reuse a graph. "
        f"{cause} To trace less: pass tensors instead of Python numbers for values that change; "
        f"give input_signature with None for dimensions that vary (or use reduce_retracing=True); "
        f"and create the function once, outside any loop. Its .explain_retraces() lists every "
        f"trace and what changed.",
        RetracingWarning)


def _changed_arguments(previous, key, param_names) -> str:
    if previous is None or previous == key:
        return "The function object itself was created again (a new trace cache)."
    changes = []
    for name, old, new in zip(param_names, previous, key):
        if old != new:
            changes.append(f"argument '{name}' changed from {describe(old)} to {describe(new)}")
    if not changes:
        return "The arguments changed in number or keywords."
    return "This time " + "; ".join(changes) + "."


class RetraceReport:
    """Each trace of a function: its argument signature and what changed from the trace before.

    ``str(report)`` is the readable form; ``traces`` holds, per trace, a list of
    ``(argument, description)`` pairs and ``changes`` a list of ``(argument, old, new)``
    triples, for tools.
    """

    def __init__(self, function_name: str, param_names: list[str], keys: list[tuple]):
        self.function_name = function_name
        self.traces = [[(name, describe(part)) for name, part in zip(param_names, key)]
                       for key in keys]
        self.changes = [[]] + [_differences(param_names, old, new)
                               for old, new in zip(keys, keys[1:])]
        self._kinds = {kind for step in (_change_kinds(param_names, old, new)
                                         for old, new in zip(keys, keys[1:])) for kind in step}

    def __str__(self) -> str:
        count = len(self.traces)
        lines = [f"{self.function_name} was traced {count} time{'s' if count != 1 else ''}."]
        for number, (signature, changes) in enumerate(zip(self.traces, self.changes), 1):
            arguments = ", ".join(f"{name}={text}" for name, text in signature)
            lines.append(f"Trace {number}: {self.function_name}({arguments})")
            for name, old, new in changes:
                lines.append(f"  changed: argument '{name}' from {old} to {new}")
            if number > 1 and not changes:
                lines.append("  changed: the number of arguments or their keywords")
        lines.extend(_FIXES[kind] for kind in _FIX_ORDER if kind in self._kinds)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<RetraceReport of {self.function_name}: {len(self.traces)} traces>"


_FIX_ORDER = ("value", "shape", "dtype", "object")
_FIXES = {
    "value": "Fix: a Python number or string that changes between calls is part of the trace "
             "key; pass it as a tensor (rt.constant(value)) so one graph serves every value.",
    "shape": "Fix: a tensor shape that changes between calls makes a new trace; give "
             "input_signature=[rt.TensorSpec([None], ...)] with None for the varying dimension, "
             "or pass reduce_retracing=True.",
    "dtype": "Fix: a tensor dtype that changes between calls makes a new trace; cast the "
             "argument to one dtype before the call (rt.cast(x, rt.float32)).",
    "object": "Fix: an object argument is keyed by identity; pass the same object each time, "
              "or pass the tensors it holds instead.",
}


def _differences(param_names, old: tuple, new: tuple) -> list[tuple[str, str, str]]:
    return [(path, describe(a), describe(b)) for path, a, b, _ in _walk(param_names, old, new)]


def _change_kinds(param_names, old: tuple, new: tuple) -> list[str]:
    return [kind for *_, kind in _walk(param_names, old, new)]


def _walk(param_names, old: tuple, new: tuple):
    """(argument path, old part, new part, kind of change) for every part that differs, going
    into lists, tuples and dicts of the same layout so the path names the element."""
    if len(old) != len(new):
        return
    for name, a, b in zip(param_names, old, new):
        yield from _walk_part(name, a, b)


def _walk_part(path: str, a, b):
    if a == b:
        return
    if is_container_key(a) and is_container_key(b) and a[0] is b[0] and len(a[1]) == len(b[1]):
        if issubclass(a[0], dict):
            if [k for k, _ in a[1]] == [k for k, _ in b[1]]:
                for (key, x), (_, y) in zip(a[1], b[1]):
                    yield from _walk_part(f"{path}[{key!r}]", x, y)
                return
        else:
            for index, (x, y) in enumerate(zip(a[1], b[1])):
                yield from _walk_part(f"{path}[{index}]", x, y)
            return
    yield path, a, b, _kind(a, b)


def _kind(a, b) -> str:
    if is_tensor_key(a) and is_tensor_key(b):
        return "dtype" if a[0] != b[0] else "shape"
    if is_tensor_key(a) or is_tensor_key(b):
        return "value"
    if type(a) is tuple and type(b) is tuple:
        return "value"
    return "object"


def reset() -> None:
    """Forgets all history (for tests)."""
    with _lock:
        _detectors.clear()
