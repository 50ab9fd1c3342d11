"""Python's cyclic garbage collector paused while a function is converted or traced.

A trace makes many objects that live on (nodes, tensors, their lists and records), so the
collector's young generation fills again and again, and each collection walks what the trace
has made so far; in a process with large libraries loaded, now and then a full collection walks
everything. That was 10-20% of a training step's first call. Objects freed by reference
counting still go at once; cycles made meanwhile are collected by the first collection after.

The collector has one switch for the whole process, so the pause is shared: nested and
concurrent traces keep it until the last one ends, and a collector the program had disabled
stays disabled. It lasts one conversion or trace, never a call of a traced function.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

_lock = threading.Lock()
_holders = 0  # conversions and traces running now
_restore = False  # whether the collector was on when the first of them began


@contextlib.contextmanager
def paused_collection() -> Iterator[None]:
    """The cyclic collector off for the ``with`` block (see the module's docstring)."""
    global _holders, _restore
    with _lock:
        if _holders == 0:
            _restore = gc.isenabled()
            gc.disable()
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _restore:
                gc.enable()
