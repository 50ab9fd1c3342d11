"""``rt.is_tensor`` and ``rt.executing_eagerly``: what user code asks about the values it
handles and the mode it runs in."""

from __future__ import annotations

from runtime import tracing
from runtime.tensor import Tensor


def is_tensor(x) -> bool:
    """Whether ``x`` is a tensor (eager or symbolic); variables, arrays and Python numbers
    are not."""
    return isinstance(x, Tensor)


def executing_eagerly() -> bool:
    """False while a function is being traced into a graph, True otherwise (including inside
    functions run eagerly with ``rt.config.run_functions_eagerly(True)``)."""
    return tracing.current_graph() is None
