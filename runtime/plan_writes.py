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
"""

from __future__ import annotations

from typing import Callable

import numpy as np

_UPDATES = {"add": np.add, "sub": np.subtract}


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
