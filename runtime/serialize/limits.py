"""What ``rt.load`` accepts from a file, so that an untrusted file cannot exhaust memory, and
how long the loaded function may loop, so that a caller can stop a graph that never ends.

A saved graph is small on disk but may claim to be huge once inflated (a zip bomb) or once
its arrays and tensors are allocated. Every size is checked against these limits *before* the
bytes are inflated or the memory is allocated, and inflation itself stops at the limit (the
sizes a zip declares are not trusted alone). Callers who load big models they trust raise the
limits with the keyword arguments of ``rt.load``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from runtime.errors import SavedGraphError
from runtime.executor import LoopLimit

# The graph description is JSON; decoding it takes up to ~25 bytes of Python objects per byte
# (``[[],[],...]``), so 16 MiB of JSON (about 60,000 nodes) costs at most ~400 MiB.
DEFAULT_MAX_GRAPH_BYTES = 16 * 2**20
# The arrays (constants and variable values), inflated; also the largest tensor whose shape a
# loaded graph fixes (a ``fill`` or ``eye`` of a declared shape).
DEFAULT_MAX_ARRAY_BYTES = 2**30
# Control flow (``cond`` branches, ``while_loop`` bodies) nested deeper than this is refused:
# the plan compiler writes each level as a nested Python block, and CPython allows 20 nested
# loops and 100 levels of indentation.
MAX_NESTING = 16
# zipfile inflates as much as one read asks for before cutting at the size the zip declares,
# so members are read in pieces of this size: a size that lies cannot make a read inflate more.
_PIECE = 2**18


@dataclass(frozen=True)
class SizeLimits:
    """The byte limits of one ``rt.load`` call."""

    max_graph_bytes: int = DEFAULT_MAX_GRAPH_BYTES
    max_array_bytes: int = DEFAULT_MAX_ARRAY_BYTES

    def __post_init__(self):
        for name in ("max_graph_bytes", "max_array_bytes"):
            value = getattr(self, name)
            if type(value) is not int or value <= 0:
                raise ValueError(f"rt.load: {name} must be a positive number of bytes, got "
                                 f"{value!r}.")


def too_large(path: str, what: str, limit: int, option: str) -> SavedGraphError:
    """The error for a file of which ``what`` (a phrase saying how many bytes) exceeds
    ``limit``, the value of the ``rt.load`` keyword ``option``."""
    return SavedGraphError(f"{path} {what}, more than the {limit} bytes rt.load accepts "
                           f"({option}). If you trust the file, pass a larger {option} to rt.load.")


def read_at_most(stream, size: int) -> bytes:
    """Up to ``size`` bytes of a zip member, never inflating much more than it returns."""
    pieces = []
    while size > 0:
        piece = stream.read(min(_PIECE, size))
        if not piece:
            break
        pieces.append(piece)
        size -= len(piece)
    return b"".join(pieces)


def loop_limit(max_loop_iterations: int | None, loop_time_limit: float | None) -> LoopLimit | None:
    """The checked loop bounds of ``rt.load`` (None when both are off)."""
    if max_loop_iterations is not None and (type(max_loop_iterations) is not int
                                            or max_loop_iterations < 0):
        raise ValueError(f"rt.load: max_loop_iterations must be a non-negative int or None, got "
                         f"{max_loop_iterations!r}.")
    if loop_time_limit is not None and (type(loop_time_limit) not in (int, float)
                                        or not loop_time_limit > 0
                                        or not math.isfinite(loop_time_limit)):
        raise ValueError(f"rt.load: loop_time_limit must be a positive number of seconds or "
                         f"None, got {loop_time_limit!r}.")
    if max_loop_iterations is None and loop_time_limit is None:
        return None
    return LoopLimit(max_loop_iterations, loop_time_limit)
