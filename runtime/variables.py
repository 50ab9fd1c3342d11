"""``rt.Variable``: mutable state that graphs read and write by reference.

A graph does not copy a variable's value when it is traced; it records reads and writes of the
variable object itself, so an assignment made between two calls is seen by the next call
without retracing. Reads and writes keep program order (they are chained in the graph).

Across threads each ``assign``, ``assign_add`` and ``assign_sub`` is atomic, eagerly and in
graphs: a lock per variable covers its read-modify-write, so concurrent adds never lose an
update. A sequence of operations (a read followed by an assign, a whole training step) is not
a transaction; callers that need one hold their own lock around it.

Variables created while a function is traced follow TensorFlow 2's rule: only the first trace
of an ``rt.function`` may create them (``creating_variables``), and the variable is lifted out
of the graph: its initial value is computed at once when it does not depend on the
function's arguments, and by the graph of that first trace (which the function then runs
once) when it does. A trace that creates a variable again raises ``ValueError``.
"""

from __future__ import annotations

import enum
import itertools
import threading
from contextlib import contextmanager

import numpy as np

from runtime import display, tracing
from runtime.ops import program_order
from runtime.ops.array_ops import (cast, constant, convert_to_tensor, gather, getitem, reshape,
                                   shape as shape_of)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.math_ops import add, negative, subtract
from runtime.ops.scatter_ops import tensor_scatter_nd_add, tensor_scatter_nd_update
from runtime.introspection import get_static_value
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import OpDef, register
from runtime.tensor import ShapeTuple, Tensor, _shown_dtype, format_shape

_variable_ids = itertools.count()


def _read_kernel(variable):
    if variable._value is None:
        variable._store(None, "read")  # raises: not initialized yet
    return variable._value


def _assign_kernel(value, variable, mode):
    variable._store(value, mode)


class _Creation(threading.local):
    def __init__(self):
        self.policies: list = []


_creation = _Creation()

SINGLETON_MESSAGE = (
    "tf.function only supports singleton tf.Variables created on the first call. Make sure the "
    "tf.Variable is only created once or created outside tf.function: {where} creates "
    "variable {name!r} on a later trace. Create it in __init__, at module level, or under "
    "`if self.v is None:` so that only the first trace creates it.")
LATER_CALL_MESSAGE = (
    "Creating variables on a non-first call to a function decorated with tf.function: "
    "{where} created no variable on its first call and creates {name!r} on a later trace. "
    "Create it outside the function, or on the first call only.")


class CreationPolicy:
    """Whether the trace under way may create variables, and the ones it created."""

    def __init__(self, allowed: bool, where: str, message: str = SINGLETON_MESSAGE):
        self.allowed, self.where, self.message = allowed, where, message
        self.created: list["Variable"] = []


@contextmanager
def creating_variables(policy: CreationPolicy):
    """The block traces a function under ``policy`` (see the module docstring)."""
    _creation.policies.append(policy)
    try:
        yield policy
    finally:
        _creation.policies.pop()


def _creation_policy() -> CreationPolicy | None:
    """The policy of the innermost function trace, if the current graph belongs to it."""
    return _creation.policies[-1] if _creation.policies else None


READ = register(OpDef("read_variable", _read_kernel, lambda variable: (variable._dtype, variable.shape),
                      stateful=True, reads_variable=True,
                      bind=lambda attrs, _types: _reader(attrs["variable"])))
ASSIGN = register(OpDef("assign_variable", _assign_kernel, lambda value, variable, mode: (),
                        effect=True, num_outputs=0,
                        bind=lambda attrs, _types: _assigner(attrs["variable"], attrs["mode"])))


def _holds_tensors(value) -> bool:
    if isinstance(value, (list, tuple)):
        return any(_holds_tensors(item) for item in value)
    return isinstance(value, Tensor)


def _reader(variable):
    return lambda: variable._value


def _assigner(variable, mode: str):
    store = variable._store
    return lambda value: store(value, mode)


class VariableSynchronization(enum.Enum):
    """TensorFlow's choice of when a variable distributed over devices is synchronized.
    Recorded on the variable; with one device there is nothing to synchronize."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """TensorFlow's rule for combining the updates that replicas make to one variable.
    Recorded on the variable; with one replica there is nothing to combine."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


class Variable:
    """A named, mutable tensor of fixed dtype and shape, created outside traced functions.

    ``tensorflow_naming=False`` keeps the name as given when TensorFlow's style is on (see
    ``name``), and the dtype NumPy's (see ``dtype``): Keras' variables, which Keras 3 names
    ``kernel``, not ``dense/kernel:0``."""

    def __init__(self, initial_value, dtype=None, name: str | None = None, trainable: bool = True,
                 constraint=None,
                 synchronization: VariableSynchronization = VariableSynchronization.AUTO,
                 aggregation: VariableAggregation = VariableAggregation.NONE,
                 tensorflow_naming: bool = True, **ignored):
        # ``ignored``: TensorFlow's validate_shape, caching_device, ...
        self.synchronization = VariableSynchronization(synchronization)
        self.aggregation = VariableAggregation(aggregation)
        self._name = name or f"Variable{next(_variable_ids)}"
        self._named = bool(name)
        scope = program_order.get_current_name_scope()
        self._scope = f"{scope}/" if scope else ""
        self._tensorflow_naming = tensorflow_naming
        self.trainable = trainable
        self.constraint = _checked_constraint(constraint, self.name)
        self._lock = threading.Lock()  # makes each update atomic across threads
        if callable(initial_value):
            initial_value = initial_value()
        pending = None
        if tracing.is_tracing():
            pending = self._lifted_initial_value(initial_value, dtype)
            if pending is not None:
                self._value = None  # set by the first trace's graph when it runs
                self._dtype = pending.dtype
                self.shape = ShapeTuple(pending.shape)
                _creation_policy().created.append(self)
                self._assign(pending, "initialize")
                return
            initial_value = self._static_initial_value
        value = np.array(constant(initial_value, dtype).numpy())  # a copy of its own
        value.flags.writeable = False  # reads hand this array out; it changes only by assignment
        self._value = value
        self._dtype = value.dtype  # NumPy's, for the runtime's own use (see dtype)
        self.shape = ShapeTuple(value.shape)  # a tuple that answers as_list(), rank, ...
        if tracing.is_tracing():
            _creation_policy().created.append(self)

    def _lifted_initial_value(self, initial_value, dtype):
        """Checks that the function being traced may create this variable; returns None when
        its initial value is known now (kept in ``_static_initial_value``), else the symbolic
        initial value, which the graph assigns when it first runs."""
        policy = _creation_policy()
        if policy is None:
            raise ValueError(
                "rt.Variable was created inside a graph being built outside rt.function. A "
                "variable must outlive one call: create it once outside the function (for "
                "example at module level or in __init__) and use it inside.")
        if not policy.allowed:
            raise ValueError(policy.message.format(where=policy.where, name=self.name))
        if hasattr(initial_value, "_read_value_for_op") and not isinstance(initial_value, Tensor):
            initial_value = initial_value._read_value_for_op()  # another variable's value
        value = initial_value if isinstance(initial_value, Tensor) \
            else convert_to_tensor(initial_value) if _holds_tensors(initial_value) else None
        if value is None:  # Python numbers and arrays: computed now, as outside a trace
            self._static_initial_value = initial_value
            return None
        static = get_static_value(value)
        if static is not None:
            self._static_initial_value = np.asarray(static, value.dtype)
            return None
        if dtype is not None:
            value = cast(value, dtype)
        if value.shape is None or any(size is None for size in value.shape):
            raise ValueError(
                f"variable {self.name!r} is created from a value of shape "
                f"{format_shape(value.shape)}, known only when the graph runs: a variable's "
                f"shape must be fully known. Give the initial value a known shape, or create "
                f"the variable outside the function.")
        return value

    @property
    def dtype(self):
        """The NumPy dtype, or TensorFlow's DType in TensorFlow's style, as an eager tensor's
        (``runtime.tensor.show_dtypes_as``); a Keras variable's (``tensorflow_naming=False``)
        stays NumPy's, which prints ``float32`` as Keras 3's does."""
        return _shown_dtype(self._dtype) if self._tensorflow_naming else self._dtype

    def value(self) -> Tensor:
        """The current value: a snapshot eagerly, a read node while tracing."""
        return apply_op(READ, (), {"variable": self})

    read_value = value
    _read_value_for_op = value

    def numpy(self) -> np.ndarray:
        return self.value().numpy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value().numpy(), dtype=dtype)

    # float(optimizer.learning_rate), int(optimizer.iterations): a scalar variable converts
    # like its value (as tf.Variable does); while tracing, the value's error explains why not.
    def __float__(self) -> float:
        return float(self.value())

    def __int__(self) -> int:
        return int(self.value())

    def __getitem__(self, key) -> Tensor:
        """A slice of the value, which remembers where it came from: ``v[1:3].assign(x)``
        writes ``x`` into those elements of the variable, as in TensorFlow."""
        part = getitem(self.value(), key)
        part._sliced_from = (self, key)
        return part

    def _assign_slice(self, key, value, mode: str) -> "Variable":
        """Assigns (or adds or subtracts) ``value`` to the elements ``self[key]`` selects: the
        positions of those elements are taken from a tensor of flat positions sliced by the
        same key, so every key ``getitem`` takes works, tensors in it too."""
        positions = getitem(constant(np.arange(_size(self.shape), dtype=np.int64)
                                     .reshape(self.shape)), key)
        flat = reshape(self.value(), [-1])
        value = self._as_value(value)
        if value.dtype != self._dtype:
            raise TypeError(f"cannot assign a {value.dtype.name} value to a slice of variable "
                            f"{self.name!r} of dtype {self._dtype.name}; use rt.cast.")
        if mode != "assign":
            current = gather(flat, positions)
            value = add(current, value) if mode == "add" else subtract(current, value)
        updates = broadcast_to(value, shape_of(positions))
        new = tensor_scatter_nd_update(flat, reshape(positions, [-1, 1]), reshape(updates, [-1]))
        return self._assign(reshape(new, self.shape), "assign")

    def scatter_update(self, sparse_delta) -> "Variable":
        """The rows ``sparse_delta.indices`` (along the first axis) set to
        ``sparse_delta.values``, from an ``IndexedSlices``, as TensorFlow's."""
        return self.scatter_nd_update(*_row_scatter(sparse_delta, self.name, "scatter_update"))

    def scatter_add(self, sparse_delta) -> "Variable":
        """``sparse_delta.values`` added to the rows ``sparse_delta.indices`` (repeats add up)."""
        return self.scatter_nd_add(*_row_scatter(sparse_delta, self.name, "scatter_add"))

    def scatter_sub(self, sparse_delta) -> "Variable":
        """``sparse_delta.values`` subtracted from the rows ``sparse_delta.indices``."""
        return self.scatter_nd_sub(*_row_scatter(sparse_delta, self.name, "scatter_sub"))

    def scatter_nd_update(self, indices, updates) -> "Variable":
        """The elements at ``indices`` set to ``updates`` (``tensor_scatter_nd_update``)."""
        return self._assign(tensor_scatter_nd_update(self.value(), indices, updates), "assign")

    def scatter_nd_add(self, indices, updates) -> "Variable":
        return self._assign(tensor_scatter_nd_add(self.value(), indices, updates), "assign")

    def scatter_nd_sub(self, indices, updates) -> "Variable":
        updates = negative(updates if isinstance(updates, Tensor)
                           else convert_to_tensor(updates, self._dtype))  # x + (-u) is x - u
        return self._assign(tensor_scatter_nd_add(self.value(), indices, updates), "assign")

    def assign(self, value) -> "Variable":
        return self._assign(value, "assign")

    def assign_add(self, delta) -> "Variable":
        return self._assign(delta, "add")

    def assign_sub(self, delta) -> "Variable":
        return self._assign(delta, "sub")

    def _as_value(self, value) -> Tensor:
        """What is assigned, as a tensor. Python values and lists and NumPy arrays take the
        variable's dtype, as in TensorFlow (``v.assign([1, 2])`` on a float variable), except
        floats into an integer variable (that would truncate: rt.cast says so); a tensor
        keeps its own, which must be the variable's."""
        if isinstance(value, Tensor) or hasattr(value, "_read_value_for_op"):
            return value if isinstance(value, Tensor) else convert_to_tensor(value)
        if isinstance(value, (np.ndarray, np.generic)):
            if value.dtype.kind in "fc" and self._dtype.kind in "iub":
                raise TypeError(f"cannot assign a {value.dtype.name} array to variable "
                                f"{self.name!r} of dtype {self._dtype.name}: it would truncate; "
                                f"use rt.cast (or np.round) first.")
            return convert_to_tensor(np.asarray(value).astype(self._dtype))
        return convert_to_tensor(value, self._dtype)

    def _assign(self, value, mode: str) -> "Variable":
        value = self._as_value(value)
        self._check_compatible(value)
        apply_op(ASSIGN, (value,), {"variable": self, "mode": mode})
        return self

    def _check_compatible(self, value: Tensor) -> None:
        if value.dtype != self._dtype:
            raise TypeError(f"cannot assign a {value.dtype.name} value to variable {self.name!r} "
                            f"of dtype {self._dtype.name}; use rt.cast.")
        if value.shape is not None and len(value.shape) == len(self.shape) and all(
                a is None or a == b for a, b in zip(value.shape, self.shape)):
            return
        raise ValueError(f"cannot assign a value of shape {format_shape(value.shape)} to variable "
                         f"{self.name!r} of shape {format_shape(self.shape)}.")

    def _store(self, array: np.ndarray, mode: str) -> None:
        if mode == "initialize":  # the first run of the graph that created the variable
            if self._value is not None:
                return
            mode = "assign"
        elif self._value is None:
            raise ValueError(
                f"variable {self.name!r} is not initialized yet: its initial value depends on "
                f"the arguments of the function whose first trace created it, and that trace's "
                f"graph has not run. Call the function before using the variable elsewhere.")
        if array.shape != self.shape:
            raise ValueError(f"cannot assign a value of shape {format_shape(array.shape)} to "
                             f"variable {self.name!r} of shape {format_shape(self.shape)}")
        if mode == "assign":
            if type(array) is np.ndarray:
                # A copy: a graph hands over the caller's own array, which they may change later.
                stored = array.astype(self._dtype)
            else:
                stored = np.array(array, dtype=self._dtype)
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
                stored = new if new.dtype == self._dtype else new.astype(self._dtype)
                stored.setflags(write=False)
            self._value = stored
        finally:
            lock.release()

    @property
    def name(self) -> str:
        """The name given (else ``Variable<n>``, unique). With TensorFlow's style (``import
        transpiler.tf``), TensorFlow 2's name: the ``name_scope`` it was created in, the name
        given or ``Variable``, and ``:0`` (``"dense/w:0"``, ``"Variable:0"``)."""
        if not self._tensorflow_named():
            return self._name
        return f"{self._scope}{self._name if self._named else 'Variable'}:0"

    def _tensorflow_named(self) -> bool:
        return self._tensorflow_naming and display.style() == display.TENSORFLOW

    def __repr__(self) -> str:
        tensorflow = self._tensorflow_named()
        shown = self.name[:-len(":0")] if tensorflow else self._name
        return display.variable_repr(shown, self._named or tensorflow, self._value,
                                     format_shape(self.shape), self._dtype)


def _checked_constraint(constraint, name: str):
    """A constraint is applied by optimizers after each update (``v.assign(constraint(v))``),
    so it must be callable."""
    if constraint is not None and not callable(constraint):
        raise ValueError(f"the constraint of variable {name!r} must be a callable taking the "
                         f"variable and returning its constrained value, or None; got "
                         f"{type(constraint).__name__}.")
    return constraint


def _row_scatter(sparse_delta, name: str, method: str) -> tuple:
    """The ``(indices, updates)`` of ``scatter_nd_*`` for the rows of an ``IndexedSlices``."""
    if not (hasattr(sparse_delta, "values") and hasattr(sparse_delta, "indices")):
        raise TypeError(f"{name}.{method} takes an IndexedSlices (rows and their indices along "
                        f"the first axis), got {type(sparse_delta).__name__}; for elements at "
                        f"index tuples use scatter_nd_update / scatter_nd_add.")
    indices = convert_to_tensor(sparse_delta.indices)
    return reshape(indices, [-1, 1]), sparse_delta.values


def _size(shape) -> int:
    return int(np.prod(tuple(shape), dtype=np.int64))
