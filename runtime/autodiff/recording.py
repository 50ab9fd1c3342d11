"""Which gradient tapes record the ops that run eagerly, per thread.

``runtime.ops.dispatch`` asks ``active`` before anything else on every eager op, so a program
without a tape pays one global read. Tapes inside a trace record nothing here: the graph being
built is their record (see ``runtime.autodiff.tape``).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

# Eager tapes recording in any thread; the per-thread list says which ones are this thread's.
active = 0
_count_lock = threading.Lock()


class _Tapes(threading.local):
    def __init__(self):
        self.recording: list = []


_tapes = _Tapes()


def start(tape) -> None:
    global active
    with _count_lock:
        active += 1
    _tapes.recording.append(tape)


def stop(tape) -> None:
    global active
    _tapes.recording.remove(tape)
    with _count_lock:
        active -= 1


def recording_here() -> bool:
    """Whether an eager tape records in this thread (a graph function then runs its Python,
    so the tape sees every op)."""
    return bool(active and _tapes.recording)


def record(op, inputs, attrs: dict, result) -> None:
    """Offers one eager op to this thread's tapes (each keeps it if it depends on what the
    tape watches)."""
    for tape in _tapes.recording:
        tape._record(op, inputs, attrs, result)


@contextmanager
def paused():
    """No eager op is recorded in this thread for the duration of the block."""
    saved = _tapes.recording
    _tapes.recording = []
    try:
        yield
    finally:
        _tapes.recording = saved
