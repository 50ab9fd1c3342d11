"""How a plan writes a variable: ``assign_variable`` specialized for the value's static type.

``Variable._store`` checks everything at run time (initialized, shape, dtype, mode) because an
eager caller may hand it anything. In a plan, the value's dtype and shape are known when the
plan is compiled: when they are the variable's own (fully known), a write only
needs the variable's lock around its read-modify-write. And when the value is an intermediate
array of the plan that dies at the write (``owned``), it becomes the new value itself: an add
writes its sum into it, an assign stores it without the copy that protects a caller's array.
The bits are those of ``_store``: the same ufunc on the same operands, in the variable's dtype.

A variable not initialized yet (created by a first trace whose graph has not run) goes through
``_store``, which raises its error.

``store_update[variable, mode](new, old, delta)`` is an op of plans only (never registered: no
trace, saved graph or gradient sees it). The compiled tier makes it of an ``assign_add`` or
``assign_sub`` (``runtime.backends.jit.state``) so that a kernel computes the stored value
``new = old + delta`` (or ``-``) in the loop that computes ``delta``: the write then only
stores it, instead of a NumPy call over the elements again (an optimizer's step writes every
variable and two slots per variable).
"""

from __future__ import annotations

import sys
from typing import Callable

import numpy as np

from runtime.ops.registry import OpDef

_UPDATES = {"add": np.add, "sub": np.subtract}
_count = sys.getrefcount


def _not_run(*_):
    raise RuntimeError("store_update runs only as a plan writes it (runtime.plan_writes).")


STORE_UPDATE = OpDef("store_update", _not_run, None, effect=True)


def variable_writer(variable, mode: str, value_type: tuple, owned: bool) -> Callable:
    """``write(value)`` storing ``value`` into ``variable`` by ``mode`` ("assign", "add",
    "sub" or "initialize"); ``value_type`` is the value's static (dtype, shape); ``owned``:
    nothing else holds the value, so it may be written into and kept."""
    dtype, shape = value_type
    store = variable._store
    exact = dtype == variable.dtype and shape is not None and None not in shape \
        and tuple(shape) == tuple(variable.shape)
    if not exact or (mode == "assign" and not owned) or mode not in ("assign", *_UPDATES):
        return lambda value: store(value, mode)
    lock = variable._lock
    if mode == "assign":
        def assign(value):
            if variable._value is None:
                return store(value, mode)  # raises: not initialized
            value.setflags(write=False)  # reads hand it out; it changes only by assignment
            lock.acquire()
            variable._value = value
            lock.release()
        return assign
    update, asarray = _UPDATES[mode], np.asarray

    def write(value):
        lock.acquire()
        try:
            old = variable._value
            if old is not None:
                # (asarray: a scalar's sum is a NumPy scalar; the variable holds a 0-d array)
                new = update(old, value, value) if owned else asarray(update(old, value))
                new.setflags(write=False)
                variable._value = new
                return
        finally:
            lock.release()
        store(value, mode)  # raises: not initialized
    return write


def update_writer(variable, mode: str, owned: bool) -> Callable:
    """``write(new, old, delta)`` for ``store_update``: stores ``new`` when the variable
    still holds ``old`` (the value ``new`` was computed from) and nothing else holds ``new``
    (``owned``, an array of its own that only the plan's name for it refers to); otherwise
    adds or subtracts ``delta`` to what the variable holds, as ``assign_add`` and
    ``assign_sub`` do. Under the variable's lock either way: the update stays atomic (another
    thread's write in between is kept), with the same bits (the same operation on the same
    elements)."""
    update, store, lock, asarray = _UPDATES[mode], variable._store, variable._lock, np.asarray

    def write(new, old, delta):
        lock.acquire()
        try:
            current = variable._value
            if current is not None:
                if not (owned and current is old and new.base is None
                        and _count(new) <= _ALONE):
                    new = asarray(update(current, delta))
                new.setflags(write=False)
                variable._value = new
                return
        finally:
            lock.release()
        store(delta, mode)  # raises: not initialized
    return write


def _references_when_alone() -> int:
    """How many references ``write`` counts to a value that only the plan's local name for
    it and the call hold (the interpreter's own count, measured here once). Where frames
    are evaluated by a hook (PyTorch's Dynamo, some debuggers), a call holds one more: the
    writer then makes the update again, with the same bits."""
    counted = []

    def write(new, old, delta):
        counted.append(_count(new))

    def plan():
        value = np.zeros(1)
        write(value, None, None)
    plan()
    return counted[0]


_ALONE = _references_when_alone()
