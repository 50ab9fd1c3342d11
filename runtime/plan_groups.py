"""Many arrays of one dtype as one flat array, at run time: what a plan runs for the lanes of
``runtime.plan_lanes`` (an optimizer's same update of many variables, computed once).

Three ops, made only by that rewrite and never registered (no trace, saved graph or gradient
sees them):

    gather_lanes(a, b, ...)     concatenate((a, b, ...), None)          a new flat array
    read_lanes[group]           the group's variables' values, flat
    write_lanes[group, mode](flat)
                                each variable of the group assigned, or added or subtracted,
                                its part of ``flat``

A group write stores views of one flat array as the variables' new values and remembers it.
A group read whose variables all still hold those views (compared by identity) returns that
array without copying anything; otherwise (a variable assigned since, by anyone) it
concatenates the values they hold now. So a step that writes a group and a later step that
reads it, as optimizer slots are, pay one check per variable instead of a copy. And when
nothing but the variables holds that array or its views (references are counted) and no other
thread runs, the next write goes into it in place. Values stay read-only and change only by
assignment, as ``Variable._store`` keeps them: a value handed out earlier never changes.

Otherwise a group write takes its variables' locks (in one order for every group, so two group
writes never wait for each other in a cycle), and an addition reads the old values under them:
each variable's update is atomic, as a write of one variable is. The bits are those of the
variables' own writes: the same ufunc on the same elements, in the variables' dtype.
"""

from __future__ import annotations

import _thread
import itertools
import math
import sys
import threading
from typing import Callable

import numpy as np

from runtime.ops.registry import OpDef

_UPDATES = {"add": np.add, "sub": np.subtract}
_count = sys.getrefcount
# Threads started by Python besides the main one (a C function: ``threading.active_count``
# takes a lock and costs ten times as much).
_other_threads = _thread._count


def _not_run(*_):
    raise RuntimeError("lane ops run only as the plan writes them (runtime.plan_lowering).")


GATHER_LANES = OpDef("gather_lanes", _not_run, None)
READ_LANES = OpDef("read_lanes", _not_run, None, stateful=True)
WRITE_LANES = OpDef("write_lanes", _not_run, None, effect=True)


class VariableGroup:
    """Variables of one dtype whose values a plan reads and writes as one flat array."""

    def __init__(self, variables):
        self.variables = tuple(variables)
        self.dtype = self.variables[0].dtype
        ends = list(itertools.accumulate(math.prod(v.shape) for v in self.variables))
        self.size = ends[-1]
        # How each variable's view is cut from the flat array (1-d ones need no reshape).
        self._parts = tuple((slice(start, end), tuple(v.shape) if len(v.shape) != 1 else None)
                            for start, end, v in zip([0, *ends], ends, self.variables))
        # Every group takes its locks in one order (of their ids: the variables live as long
        # as the plan that holds this group).
        self._locks = tuple(sorted({id(v._lock): v._lock for v in self.variables}.values(), key=id))
        self._written: tuple = (None, ())  # (the flat array last written, its views)

    def read(self) -> np.ndarray:
        """The variables' current values, flat (do not write into it: it may be theirs)."""
        flat, views = self._written
        if flat is not None:
            for variable, view in zip(self.variables, views):
                if variable._value is not view:
                    break
            else:
                return flat
        values = [variable._value for variable in self.variables]
        for variable, value in zip(self.variables, values):
            if value is None:
                variable._store(None, "read")  # raises: not initialized yet
        return np.concatenate(values, None)

    def writer(self, mode: str, owned: bool) -> Callable:
        """``write(flat)`` storing ``flat`` into the variables by ``mode`` ("assign", "add" or
        "sub"); ``owned``: nothing else holds ``flat``, so it may be written into and kept."""
        locks, variables, parts = self._locks, self.variables, self._parts
        update, copyto = _UPDATES.get(mode), np.copyto

        def write(value):
            if self._unshared():  # (no other thread runs: none can wait for the locks)
                flat = self._written[0]
                if update is not None:
                    update(flat, value, flat)
                else:
                    copyto(flat, value)
                return
            for lock in locks:
                lock.acquire()
            try:
                if update is not None:
                    old = self.read()
                    new = update(old, value, value) if owned else update(old, value)
                else:
                    new = value if owned and value.base is None else value.copy()
                new.setflags(write=False)  # the views cut from it are read-only ...
                views = tuple(new[part] if shape is None else new[part].reshape(shape)
                              for part, shape in parts)
                new.setflags(write=True)  # ... and it, never handed out, is written next time
                for variable, view in zip(variables, views):
                    variable._value = view
                self._written = (new, views)
            finally:
                for lock in locks:
                    lock.release()
        return write

    def _unshared(self) -> bool:
        """Whether the variables still hold the views of the flat array this group wrote last
        and nothing else holds that array or a view of it: no value handed out can then see
        it change, and the next write may go into it. (References are counted; with another
        thread running, one could take a value between the count and the write, so it is
        never done then.)"""
        views = self._written[1]  # (not the flat array: a name for it would count)
        if not views or _other_threads():
            return False
        variables = self.variables
        for index in range(len(views)):
            if variables[index]._value is not views[index]:
                return False
        flat, per_view = self._references()
        return flat == _UNSHARED[0] and per_view == _UNSHARED[1] * len(views)

    def _references(self) -> tuple[int, int]:
        """(references to the flat array last written besides its views', references to its
        views), as counted from here."""
        flat, views = self._written
        return _count(flat) - len(views), sum(map(_count, views))


class _Probe:
    """Stands for a variable in ``_calibrated``."""

    def __init__(self):
        self.dtype, self.shape = np.dtype(np.float64), (1,)
        self._lock, self._value = threading.Lock(), np.zeros(1)


def _calibrated() -> tuple[int, int]:
    """``VariableGroup._references`` of a group nothing else holds, per view: what this
    interpreter counts for the group's own references (interpreters count borrowed ones
    differently)."""
    group = VariableGroup([_Probe(), _Probe()])
    group.writer("assign", True)(np.zeros(2))
    flat, views = group._references()
    return flat, views // 2


_UNSHARED = _calibrated()
