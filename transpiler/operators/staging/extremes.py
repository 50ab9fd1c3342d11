"""``min`` and ``max`` of traced values, with Python's meaning, for the engines' builtins.

Python compares the values and keeps the earlier one unless a later one is strictly better
(NaN included); on traced values each comparison is a select of the engine. One array argument
means its elements (a vector is reduced; anything else is refused, as Python would compare rows
whose truth is ambiguous). Python gives back the winning value as it is, so values of types
one traced value cannot join (an int tensor and a Python float, two dtypes) are refused, as
branches giving them are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

import runtime as rt
from transpiler.operators import control_flow as cf

_KIND_RANK = {"b": 0, "i": 1, "f": 2, "c": 3}


class Typed(NamedTuple):
    """A value's type as ``min``/``max`` join it: its kind (``"b"``, ``"i"``, ``"f"``,
    ``"c"``), dtype, whether it stands for a Python number (weak), and how messages name it."""

    kind: str
    dtype: object
    weak: bool
    text: str


@dataclass(frozen=True)
class Engine:
    """What ``extreme`` needs of an engine: its name in messages (``"a JAX tracer"``), its
    module's name (``"jnp"``), how it reduces a vector and how it selects."""

    value_name: str
    module: str
    reduce: Callable[[str, object], object]  # ("min" or "max", vector) -> scalar
    select: Callable[[object, object, object], object]  # (condition, new, old)
    typed: Callable[[object], Typed]
    conversion: str  # how a value is given another dtype: ".astype(...)"


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
        _check_joinable(engine, name, result, value)
        better = value < result if name == "min" else value > result
        result = engine.select(better, value, result)
    return result


def _check_joinable(engine: Engine, name: str, a, b) -> None:
    """Raises unless one traced value can be what Python gives, ``a`` or ``b``: the same
    dtype, Python numbers of one kind, or a Python number of a kind the other's dtype holds
    (``min(x.sum(), 10)`` of a float ``x``: the 10 becomes the sum's dtype, as in arithmetic)."""
    ta, tb = engine.typed(a), engine.typed(b)
    if ta.dtype == tb.dtype or (ta.weak and tb.weak and ta.kind == tb.kind):
        return
    if ta.weak != tb.weak:
        weak, strong = (ta, tb) if ta.weak else (tb, ta)
        if _KIND_RANK[weak.kind] <= _KIND_RANK[strong.kind]:
            return
    raise rt.errors.GraphTypeError(
        f"{name}() of {ta.text} and {tb.text} on {engine.value_name}{cf._where()}: Python gives "
        f"back one of them as it is, so the result's type would depend on the values, which "
        f"one traced value cannot. Give both the same type first (a Python number of the "
        f"other's kind, 0 rather than 0.5, or one converted with {engine.conversion}).")
