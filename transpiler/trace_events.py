"""What converted code decided in Python while it traced, for ``transpiler.explain``.

The graph shows what was staged; it cannot show what ran in Python and left no node: an
``if`` on a Python value that picked one branch, a loop unrolled over a Python range, a
``print`` that printed once while tracing. The operators report those decisions here. Nothing
is kept unless a recording is active in the current thread, so ordinary tracing pays one
attribute read per decision.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from runtime.source_location import Location, user_location


@dataclass(frozen=True)
class PythonBranch:
    """An ``if`` (or conditional expression) whose condition was a Python value."""

    location: Location
    construct: str  # "if statement" or "conditional expression"
    taken: bool


@dataclass(frozen=True)
class PythonLoop:
    """A loop that ran in Python while tracing: its body was traced once per iteration."""

    location: Location
    construct: str  # "for loop" or "while loop"
    iterations: int
    nodes_added: int


@dataclass(frozen=True)
class TracePrint:
    """A ``print`` of Python values that printed while tracing, and will not print again."""

    location: Location
    text: str


Event = PythonBranch | PythonLoop | TracePrint


class _Recording(threading.local):
    def __init__(self):
        self.events: list[Event] | None = None


_recording = _Recording()


@contextmanager
def recording() -> Iterator[list[Event]]:
    """Collects the events of the current thread for the duration of the block."""
    saved, _recording.events = _recording.events, []
    try:
        yield _recording.events
    finally:
        _recording.events = saved


def active() -> bool:
    return _recording.events is not None


def record_branch(construct: str, taken: bool) -> None:
    events = _recording.events
    if events is not None:
        location = user_location()
        if location is not None:
            events.append(PythonBranch(location, construct, taken))


def record_loop(location: Location | None, construct: str, iterations: int,
                nodes_added: int) -> None:
    events = _recording.events
    if events is not None and location is not None:
        events.append(PythonLoop(location, construct, iterations, nodes_added))


def record_print(text: str) -> None:
    events = _recording.events
    if events is not None:
        location = user_location()
        if location is not None:
            events.append(TracePrint(location, text))
