"""The interface between a traced function and whatever executes its graph.

A backend compiles a graph once into an executable; a call then runs the executable on the
input arrays. Everything a ``ConcreteFunction`` needs from execution goes through these two
protocols, so a compiled tier or an exporter plugs in without changing the function.
"""

from __future__ import annotations

from typing import Protocol

from runtime.graph import Graph


class Executable(Protocol):
    """A graph compiled for one backend."""

    source: str  # what the graph was compiled into, for reading (code, or a description)

    def run(self, *arrays) -> tuple:
        """The graph's outputs for these input arrays (one per graph input, in order)."""

    def translate_error(self, error: BaseException) -> BaseException:
        """An error raised by ``run``, rewritten to name the op and the user's line that
        created it (or ``error`` itself when it cannot say)."""


class Backend(Protocol):
    """Compiles graphs into executables."""

    name: str

    def compile(self, graph: Graph, name: str) -> Executable:
        """``graph`` (optimized, not changed afterwards) compiled; ``name`` is the function's,
        for tracebacks and generated code."""
