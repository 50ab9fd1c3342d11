"""``rt.Variable``: mutable state that graphs read and write by reference.

A graph does not copy a variable's value when it is traced; it records reads and writes of the
variable object itself, so an assignment made between two calls is seen by the next call
without retracing. Reads and writes keep program order (they are chained in the graph).

Across threads each ``assign``, ``assign_add`` and ``assign_sub`` is atomic, eagerly and in
graphs: a lock per variable covers its read-modify-write, so concurrent adds never lose an
update. A sequence of operations (a read followed by an assign, a whole training step) is not
a transaction; callers that need one hold their own lock around it.
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from runtime import dtypes, tracing
from runtime.ops.array_ops import constant, convert_to_tensor
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import OpDef, register
from runtime.tensor import ShapeTuple, Tensor, format_shape

_variable_ids = itertools.count()


def _read_kernel(variable):
    return variable._value


def _assign_kernel(value, variable, mode):
    variable._store(value, mode)


READ = register(OpDef("read_variable", _read_kernel, lambda variable: (variable.dtype, variable.shape),
                      stateful=True, reads_variable=True,
                      bind=lambda attrs, _types: _reader(attrs["variable"])))
ASSIGN = register(OpDef("assign_variable", _assign_kernel, lambda value, variable, mode: (),
                        effect=True, num_outputs=0,
                        bind=lambda attrs, _types: _assigner(attrs["variable"], attrs["mode"])))


def _reader(variable):
    return lambda: variable._value


def _assigner(variable, mode: str):
    store = variable._store
    return lambda value: store(value, mode)


class Variable:
    """A named, mutable tensor of fixed dtype and shape, created outside traced functions."""

    def __init__(self, initial_value, dtype=None, name: str | None = None, trainable: bool = True):
        if tracing.is_tracing():
            raise ValueError(
                "rt.Variable was created inside a function being traced. A variable must outlive "
                "one call: create it once outside the function (for example at module level or "
                "in __init__) and use it inside.")
        value = constant(initial_value, dtype).numpy().copy()
        value.flags.writeable = False  # reads hand this array out; it changes only by assignment
        self._value = value
        self.dtype = value.dtype
        self.shape = ShapeTuple(value.shape)  # a tuple that answers as_list(), rank, ...
        self.name = name or f"Variable{next(_variable_ids)}"
        self.trainable = trainable
        self._lock = threading.Lock()  # makes each update atomic across threads

    def value(self) -> Tensor:
        """The current value: a snapshot eagerly, a read node while tracing."""
        return apply_op(READ, (), {"variable": self})

    read_value = value
    _read_value_for_op = value

    def numpy(self) -> np.ndarray:
        return self.value().numpy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value().numpy(), dtype=dtype)

    def assign(self, value) -> "Variable":
        return self._assign(value, "assign")

    def assign_add(self, delta) -> "Variable":
        return self._assign(delta, "add")

    def assign_sub(self, delta) -> "Variable":
        return self._assign(delta, "sub")

    def _assign(self, value, mode: str) -> "Variable":
        if not isinstance(value, Tensor):
            value = convert_to_tensor(value, self.dtype if isinstance(value, dtypes.PYTHON_SCALARS) else None)
        self._check_compatible(value)
        apply_op(ASSIGN, (value,), {"variable": self, "mode": mode})
        return self

    def _check_compatible(self, value: Tensor) -> None:
        if value.dtype != self.dtype:
            raise TypeError(f"cannot assign a {value.dtype.name} value to variable {self.name!r} "
                            f"of dtype {self.dtype.name}; use rt.cast.")
        if value.shape is not None and len(value.shape) == len(self.shape) and all(
                a is None or a == b for a, b in zip(value.shape, self.shape)):
            return
        raise ValueError(f"cannot assign a value of shape {format_shape(value.shape)} to variable "
                         f"{self.name!r} of shape {format_shape(self.shape)}.")

    def _store(self, array: np.ndarray, mode: str) -> None:
        if array.shape != self.shape:
            raise ValueError(f"cannot assign a value of shape {format_shape(array.shape)} to "
                             f"variable {self.name!r} of shape {format_shape(self.shape)}")
        if mode == "assign":
            if type(array) is np.ndarray:
                # A copy: a graph hands over the caller's own array, which they may change later.
                stored = array.astype(self.dtype)
            else:
                stored = np.array(array, dtype=self.dtype)
            # Read-only, as tensors that earlier reads returned may share it. (setflags costs a
            # fifth of assigning to ``flags.writeable``: training steps assign many variables.)
            stored.setflags(write=False)
        # The lock keeps an add's read and write together, and an assign out of the middle of
        # one. (acquire/release: a third of what ``with`` costs, per update of a training step.)
        lock = self._lock
        lock.acquire()
        try:
            if mode != "assign":
                new = np.asarray(self._value + array if mode == "add" else self._value - array)
                stored = new if new.dtype == self.dtype else new.astype(self.dtype)
                stored.setflags(write=False)
            self._value = stored
        finally:
            lock.release()

    def __repr__(self) -> str:
        return (f"<rt.Variable {self.name!r} shape={format_shape(self.shape)} dtype={self.dtype.name}, "
                f"numpy={np.array2string(self._value)}>")
