"""The staged form of a dataset: how a graph loop computes its elements from a counter.

A graph has no iterator to pull from, so a dataset staged inside a traced function is
described by arithmetic on a *driver index* ``i`` in ``[0, length)``:

* ``element_at(i)`` computes the element the in-memory sources give at step ``i`` (slicing,
  ``map``, ``zip``, ``batch``, ``repeat``, a seeded ``shuffle``'s permutation drawn before the
  loop): as long as nothing drops elements, element ``i`` is a function of ``i`` alone.
* ``stages`` is what follows the first ``filter``: each step's element either reaches the
  loop body or not, so ``take``/``skip``/``enumerate`` after it keep counters, and the loop
  body runs inside one ``rt.cond`` per filter. A ``take`` there also ends the loop.

``length`` is an int, an int64 scalar tensor, or ``None`` for an unbounded dataset (a
``repeat()``), which only ``take``, ``break`` or ``return`` end.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from runtime import dtypes
from runtime.control_flow import cond
from runtime.errors import GraphTypeError
from runtime.ops.array_ops import cast, constant
from runtime.ops.math_ops import floordiv, maximum, minimum, mod
from runtime.tensor import Tensor

# (stage states, user state) -> the same, after one element went through the rest
Continue = Callable[[Any, tuple], tuple]


class StagingError(GraphTypeError):
    """A dataset that a graph loop cannot iterate (its elements cannot be computed from a
    counter inside the graph)."""


def cannot_stage(what: str, fix: str) -> StagingError:
    return StagingError(f"A graph loop cannot iterate over this dataset: {what}. {fix}")


@dataclass
class Stage:
    """One step after a ``filter``: ``run(element, states, user, rest)`` returns the
    ``(states, user)`` after the element went on (``rest(element, states)``) or stopped here.
    ``initial`` is this stage's own counters (int64 scalars), ``more(own)`` whether it can
    still pass elements (a ``take``), ``None`` if always."""

    run: Callable[[Any, tuple, tuple, Continue, int], tuple]
    initial: tuple = ()
    more: Callable[[tuple], Tensor] | None = None


@dataclass
class Plan:
    length: Any
    element_at: Callable[[Tensor], Any]
    stages: tuple[Stage, ...] = ()
    # Elements [start, stop) as one batch, when a slice computes them (sources, zip, take...).
    slice_at: Callable[[Tensor, Tensor], Any] | None = None
    # A shuffle inside draws a new order each time the dataset is iterated.
    reshuffles: bool = False
    # Repeats forever: ``length`` is None, or a huge stand-in (a repeat of a dataset whose
    # length is a tensor: 0 if it is empty, else 2**62).
    unbounded: bool = False

    def __post_init__(self):
        if self.stages:
            self.slice_at = None  # a slice cannot skip what a filter drops
        if self.length is None:
            self.unbounded = True

    @property
    def indexed(self) -> bool:
        return not self.stages


# -- lengths: Python ints while they are known, int64 tensors when not --------------------


def derived(parent: Plan, **changes) -> Plan:
    """``parent`` with some fields changed (the flags it does not mention carry over)."""
    return replace(parent, **changes)


def index(value) -> Tensor:
    """An int64 scalar tensor for a count or an index."""
    if isinstance(value, Tensor):
        return value if value.dtype == dtypes.int64 else cast(value, dtypes.int64)
    return constant(np.int64(value))


def is_static(value) -> bool:
    return value is None or isinstance(value, (int, np.integer))


def length_min(a, b):
    """The shorter of two lengths (``None`` is unbounded)."""
    if a is None:
        return b
    if b is None:
        return a
    if is_static(a) and is_static(b):
        return min(int(a), int(b))
    return minimum(index(a), index(b))


def length_sum(a, b):
    if a is None or b is None:
        return None
    if is_static(a) and is_static(b):
        return int(a) + int(b)
    return index(a) + index(b)


def length_times(a, count: int):
    if a is None:
        return None
    return int(a) * count if is_static(a) else index(a) * count


def length_minus(a, count: int):
    """``max(a - count, 0)``."""
    if a is None:
        return None
    if is_static(a):
        return max(int(a) - count, 0)
    return maximum(index(a) - count, 0)


def length_batches(a, size: int, drop_remainder: bool):
    if a is None:
        return None
    if is_static(a):
        return int(a) // size if drop_remainder else -(-int(a) // size)
    a = index(a)
    return floordiv(a, size) if drop_remainder else floordiv(a + (size - 1), size)


def wrap(i: Tensor, length) -> Tensor:
    """``i mod length`` (the index within one repetition)."""
    return mod(i, length if is_static(length) else index(length))


# -- running the stages -------------------------------------------------------------------


def run_stages(stages: Sequence[Stage], element, states: tuple, user: tuple,
               body: Callable[[Any, tuple], tuple]) -> tuple:
    """``(states, user)`` after ``element`` went through ``stages`` and, if it got through,
    the loop body (``body(element, user) -> user``)."""

    def go(k: int, element, states: tuple) -> tuple:
        if k == len(stages):
            return states, tuple(body(element, user))
        return stages[k].run(element, states, user, lambda e, s: go(k + 1, e, s), k)

    return go(0, element, states)


def replace_state(states: tuple, k: int, own: tuple) -> tuple:
    return states[:k] + (own,) + states[k + 1:]


def when(predicate, passed: Callable[[], tuple], stopped: Callable[[], tuple]) -> tuple:
    return cond(predicate, passed, stopped)
