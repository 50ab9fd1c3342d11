"""Warns once when a function keeps being traced, and says which argument caused it.

A trace costs milliseconds; a function traced on most calls is slower than plain Python. The
detector is shared by every Function wrapping the same Python code, so a function wrapped anew
inside a loop is caught too.
"""

from __future__ import annotations

import threading
import warnings
import weakref
from collections import deque

from runtime.errors import RetracingWarning
from runtime.source_location import user_stacklevel
from runtime.trace_keys import describe

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
    warnings.warn(
        f"{function_name} was traced {traces} times in its last {len(detector.history)} calls. "
        f"Tracing is slow, so calls that trace are much slower than calls that reuse a graph. "
        f"{cause} To trace less: pass tensors instead of Python numbers for values that change; "
        f"give input_signature with None for dimensions that vary (or use reduce_retracing=True); "
        f"and create the function once, outside any loop.",
        RetracingWarning, stacklevel=user_stacklevel())


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


def reset() -> None:
    """Forgets all history (for tests)."""
    with _lock:
        _detectors.clear()
