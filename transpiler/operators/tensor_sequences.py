"""``enumerate`` and ``zip`` of tensors an engine stages, in converted code.

``enumerate(x)``, ``zip(x, y)`` and any nesting of them (``enumerate(zip(x, y))``,
``zip(enumerate(x), y)``) over tensors of one engine make one sequence, which that engine's
loop iterates with one index: its length is its shortest tensor's (as ``zip`` stops at the
shortest), and its item at an index is the tensors' rows at that index, nested in tuples
exactly as Python's ``enumerate`` and ``zip`` nest them. Where an engine runs the loop as
Python instead (a length known while tracing), the sequence iterates as Python's ``enumerate``
and ``zip`` do.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence


class TensorEnumerate:
    """``enumerate(tensor)`` inside converted code (``tensor`` may itself be a zip or an
    enumerate of tensors): iterated by a staged loop."""

    def __init__(self, tensor, start: int = 0):
        self.tensor, self.start = tensor, start

    def __iter__(self):
        return iter(python_iterable(self))


class TensorZip:
    """``zip(tensor, ...)`` inside converted code (each member a tensor, or a zip or an enumerate
    of tensors): iterated by a staged loop."""

    def __init__(self, tensors: Sequence):
        self.tensors = list(tensors)

    def __iter__(self):
        return iter(python_iterable(self))


def is_sequence(value) -> bool:
    """Whether ``value`` is an ``enumerate`` or ``zip`` of staged tensors."""
    return isinstance(value, (TensorEnumerate, TensorZip))


def tensors_of(iterable) -> list:
    """The tensors a sequence iterates over, in order (their engine stages the loop)."""
    if isinstance(iterable, TensorEnumerate):
        return tensors_of(iterable.tensor)
    if isinstance(iterable, TensorZip):
        return [tensor for member in iterable.tensors for tensor in tensors_of(member)]
    return [iterable]


def length_of(iterable, length: Callable, minimum: Callable):
    """How many items the sequence has: ``length(tensor)`` of its one tensor, or the
    ``minimum`` of its members' lengths (an engine's own, for lengths known only when the
    program runs)."""
    if isinstance(iterable, TensorEnumerate):
        return length_of(iterable.tensor, length, minimum)
    if isinstance(iterable, TensorZip):
        return functools.reduce(minimum, [length_of(member, length, minimum)
                                          for member in iterable.tensors])
    return length(iterable)


def item_at(iterable, index, counter: Callable):
    """The sequence's item at ``index``: ``counter(index + start)`` for an enumerate's count
    (the engine's way to make it stand for a Python int), each tensor's row at ``index``."""
    if isinstance(iterable, TensorEnumerate):
        return counter(index + iterable.start), item_at(iterable.tensor, index, counter)
    if isinstance(iterable, TensorZip):
        return tuple(item_at(member, index, counter) for member in iterable.tensors)
    return iterable[index]


def python_iterable(iterable):
    """What ``for x in iterable`` iterates as Python does (an engine's loop over the rows of a
    tensor whose length is known while tracing, unrolled)."""
    if isinstance(iterable, TensorEnumerate):
        return enumerate(python_iterable(iterable.tensor), iterable.start)
    if isinstance(iterable, TensorZip):
        return zip(*(python_iterable(member) for member in iterable.tensors))
    return iterable
