"""Global switches (one place, no environment variables read elsewhere)."""

from __future__ import annotations

import os

_run_functions_eagerly = False


def run_functions_eagerly(run_eagerly: bool) -> None:
    """When True, ``rt.function``s call their Python body every time instead of a graph.

    Use it to debug: Python ``print`` and breakpoints then run on every call.
    """
    global _run_functions_eagerly
    _run_functions_eagerly = bool(run_eagerly)


def functions_run_eagerly() -> bool:
    """Whether traced functions run their Python eagerly (``run_functions_eagerly``)."""
    return _run_functions_eagerly


_jit_cache_directory: str | None = None


def set_jit_cache_directory(path: str | None) -> None:
    """Where the compiled tier keeps kernels across processes (None: the default,
    ``$XDG_CACHE_HOME/eager2graph/kernels`` or ``~/.cache/eager2graph/kernels``)."""
    global _jit_cache_directory
    _jit_cache_directory = None if path is None else str(path)


def jit_cache_directory() -> str:
    """Where the compiled tier keeps its compiled kernels between runs."""
    if _jit_cache_directory is not None:
        return _jit_cache_directory
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "eager2graph", "kernels")


AUTO = "auto"
JIT_COMPILERS = ("auto", "c", "numba")
_jit_compiler = AUTO


def set_jit_compiler(name: str) -> None:
    """Which compiler builds the compiled tier's kernels. ``"auto"`` (the default): the
    machine's C compiler when it has one with Python's headers (a kernel builds in a fraction
    of a second, in a child process), else Numba; kernels C cannot take go to Numba. ``"c"``
    or ``"numba"``: only that one (a kernel it cannot take stays on the NumPy plan)."""
    global _jit_compiler
    if name not in JIT_COMPILERS:
        raise ValueError(f"the compiled tier's compiler must be one of {', '.join(JIT_COMPILERS)}; "
                         f"got {name!r}.")
    _jit_compiler = name


def jit_compiler() -> str:
    """The compiler of the compiled tier's kernels: ``"auto"``, ``"c"`` or ``"numba"``."""
    return _jit_compiler


_jit_auto_compile_after: int | str | None = AUTO


def set_jit_auto_compile(after_calls: int | str | None) -> None:
    """When a concrete function of ``jit_compile=None`` (the default) starts compiling the
    compiled tier in the background. ``"auto"`` (the default): once the time it has spent on
    the NumPy plan is twenty times what the switch is expected to cost (importing Numba,
    compiling or loading kernels), so that a short script never pays for a switch it cannot
    earn back. An int: after that many calls. None: never (a service that must not spawn
    threads)."""
    global _jit_auto_compile_after
    if after_calls != AUTO and after_calls is not None and (
            not isinstance(after_calls, int) or isinstance(after_calls, bool) or after_calls < 1):
        raise ValueError(f"after_calls must be a positive int, 'auto' or None, got "
                         f"{after_calls!r}.")
    _jit_auto_compile_after = after_calls


def jit_auto_compile_after() -> int | str | None:
    """When functions move to the compiled tier: ``"auto"``, after a number of calls, or
    None (never automatically)."""
    return _jit_auto_compile_after


# Off with EAGER2GRAPH_TRACEBACK_FILTERING=0 in the environment, or set_traceback_filtering(False).
_traceback_filtering = os.environ.get("EAGER2GRAPH_TRACEBACK_FILTERING", "1").strip().lower() \
    not in ("0", "false", "no", "off")


def set_traceback_filtering(enabled: bool) -> None:
    """When True (the default), an exception leaving a traced or converted function shows only
    the user's frames, generated code mapped back to the user's lines. False shows every frame
    of eager2graph and of the generated code, for debugging eager2graph itself."""
    global _traceback_filtering
    _traceback_filtering = bool(enabled)


def traceback_filtering() -> bool:
    """Whether errors leaving traced functions show only the user's frames."""
    return _traceback_filtering
