"""``min`` and ``max`` of traced values, with Python's meaning, for the engines' builtins.

Python compares the values and keeps the earlier one unless a later one is strictly better
(NaN included); on traced values each comparison is a select of the engine. One array argument
means its elements (a vector is reduced; anything else is refused, as Python would compare rows
whose truth is ambiguous).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from transpiler.operators import control_flow as cf


@dataclass(frozen=True)
class Engine:
    """What ``extreme`` needs of an engine: its name in messages (``"a JAX tracer"``), its
    module's name (``"jnp"``), how it reduces a vector and how it selects."""

    value_name: str
    module: str
    reduce: Callable[[str, object], object]  # ("min" or "max", vector) -> scalar
    select: Callable[[object, object, object], object]  # (condition, new, old)


def extreme(engine: Engine, name: str, args: tuple, kwargs: dict):
    """``min(*args, **kwargs)`` (``name == "min"``) or ``max``."""
    if kwargs:
        raise TypeError(
            f"{name}() with {', '.join(kwargs)} on {engine.value_name}{cf._where()} would "
            f"compare traced values in Python. Compute the key as an array and use "
            f"{engine.module}.argmin/argmax.")
    if len(args) == 1:
        (items,) = args
        if isinstance(items, (list, tuple)):
            args = tuple(items)
        elif np.ndim(items) == 1:
            return engine.reduce(name, items)
        else:
            raise TypeError(
                f"{name}() of an array of shape {tuple(np.shape(items))}{cf._where()}: Python "
                f"compares its rows, whose truth is ambiguous (or a scalar, which is not "
                f"iterable). Reduce it with {engine.module}.{name}.")
        if not args:
            raise ValueError(f"{name}() arg is an empty sequence")
    result = args[0]
    for value in args[1:]:
        better = value < result if name == "min" else value > result
        result = engine.select(better, value, result)
    return result
