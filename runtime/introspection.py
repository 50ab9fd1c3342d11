"""``rt.is_tensor``, ``rt.executing_eagerly`` and ``rt.get_static_value``: what user code asks about the values it
handles and the mode it runs in."""

from __future__ import annotations

from runtime import tracing
from runtime.ops.dispatch import constant_value
from runtime.tensor import Tensor


def is_tensor(x) -> bool:
    """Whether ``x`` is a tensor (eager or symbolic) or a variable (TensorFlow counts them:
    they stand for their value wherever a tensor goes); arrays and Python numbers are not."""
    return isinstance(x, Tensor) or getattr(x, "_read_value_for_op", None) is not None


def executing_eagerly() -> bool:
    """False while a function is being traced into a graph, True otherwise (including inside
    functions run eagerly with ``rt.config.run_functions_eagerly(True)``)."""
    return tracing.current_graph() is None


def get_static_value(tensor, partial: bool = False):
    """The value of ``tensor`` as a NumPy array when it is known now: an eager tensor's value,
    a constant's while tracing; None for a value only known when a graph runs (and for a
    variable, whose value can change). Values that are not tensors come back as they are, as
    in TensorFlow. ``partial`` is accepted and changes nothing."""
    if isinstance(tensor, Tensor):
        return constant_value(tensor)
    if hasattr(tensor, "_read_value_for_op"):  # a variable
        return None
    return tensor
