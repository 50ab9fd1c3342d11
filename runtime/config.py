"""Global switches (one place, no environment variables read elsewhere)."""

from __future__ import annotations

_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, ``rt.function``s call their Python body every time instead of a graph.

    Use it to debug: Python ``print`` and breakpoints then run on every call.
    """
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    return _run_functions_eagerly
