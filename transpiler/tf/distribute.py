"""``tf.distribute`` on one device: the strategies programs create to train on several
devices, each with one replica here (eager2graph computes on this machine's CPU), as
TensorFlow's have on a machine with one device.

``strategy.run(fn, args)`` calls ``fn`` once (converted, as AutoGraph converts it, inside a
traced function); ``reduce`` combines the one replica's value, over ``axis`` too when given;
a distributed dataset is the dataset itself, and a model made in ``strategy.scope()`` an
ordinary one. So a distributed training loop gives the numbers TensorFlow gives with one
replica.
"""

from __future__ import annotations

import contextlib
import enum
import threading
from typing import Any, Callable

import runtime as _rt
from runtime import conversion as _conversion, tracing as _tracing
from transpiler.tf._names import missing as _missing


class ReduceOp(enum.Enum):
    """How ``Strategy.reduce`` and ``ReplicaContext.all_reduce`` combine replicas' values."""

    SUM = "SUM"
    MEAN = "MEAN"


class _Context(threading.local):
    def __init__(self):
        self.scopes: list = []  # the strategies whose scope() is entered, innermost last
        self.replicas = 0  # how many strategy.run calls are running


_context = _Context()


class InputContext:
    """What ``distribute_datasets_from_function`` tells the function making the dataset."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0,
                 num_replicas_in_sync: int = 1):
        self.num_input_pipelines, self.input_pipeline_id = num_input_pipelines, input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The global batch size ({global_batch_size}) must be a multiple "
                             f"of the number of replicas ({self.num_replicas_in_sync}).")
        return global_batch_size // self.num_replicas_in_sync


class Strategy:
    """The one-replica strategy (TensorFlow's default one); the named strategies are it."""

    num_replicas_in_sync = 1

    @contextlib.contextmanager
    def scope(self):
        """Makes this the strategy ``get_strategy`` gives; changes nothing else here."""
        _context.scopes.append(self)
        try:
            yield self
        finally:
            _context.scopes.pop()

    def run(self, fn: Callable, args=(), kwargs=None, options=None) -> Any:
        """``fn(*args, **kwargs)`` on the one replica."""
        if _tracing.is_tracing():
            fn = _conversion.converted(fn)
        _context.replicas += 1
        try:
            return fn(*args, **(kwargs or {}))
        finally:
            _context.replicas -= 1

    def reduce(self, reduce_op, value, axis=None):
        """The replicas' values combined (one replica: its value), then reduced over
        ``axis`` when it is given."""
        op = _reduce_op(reduce_op)
        if axis is None:
            return _rt.convert_to_tensor(value)
        return (_rt.reduce_sum if op is ReduceOp.SUM else _rt.reduce_mean)(value, axis=axis)

    def experimental_distribute_dataset(self, dataset, options=None):
        """The dataset itself: its batches go to the one replica whole."""
        return dataset

    def distribute_datasets_from_function(self, dataset_fn: Callable, options=None):
        return dataset_fn(InputContext())

    def experimental_local_results(self, value) -> tuple:
        return (value,)

    def gather(self, value, axis):
        return value


class MirroredStrategy(Strategy):
    def __init__(self, devices=None, cross_device_ops=None):
        self.devices = tuple(devices) if devices else ("/job:localhost/replica:0/task:0/"
                                                       "device:CPU:0",)


class OneDeviceStrategy(Strategy):
    def __init__(self, device: str):
        self.devices = (device,)


class ReplicaContext:
    """What code running on a replica (in ``strategy.run``, or outside any scope) sees."""

    num_replicas_in_sync = 1
    replica_id_in_sync_group = 0

    def __init__(self, strategy: Strategy):
        self.strategy = strategy

    def all_reduce(self, reduce_op, value):
        """The replicas' values combined: the one replica's value, for a sum and a mean."""
        _reduce_op(reduce_op)
        return value


def _reduce_op(reduce_op) -> ReduceOp:
    """``reduce_op`` as a ReduceOp (programs also give its name, ``"SUM"``)."""
    if isinstance(reduce_op, ReduceOp):
        return reduce_op
    try:
        return ReduceOp(reduce_op)
    except ValueError:
        raise ValueError(f"expected tf.distribute.ReduceOp.SUM or ReduceOp.MEAN (or \"SUM\" "
                         f"or \"MEAN\"), got {reduce_op!r}.") from None


_DEFAULT = Strategy()


def get_strategy() -> Strategy:
    """The strategy whose ``scope()`` is entered, else the default one."""
    return _context.scopes[-1] if _context.scopes else _DEFAULT


def has_strategy() -> bool:
    return bool(_context.scopes)


def in_cross_replica_context() -> bool:
    """In a strategy's scope and not inside its ``run``."""
    return bool(_context.scopes) and not _context.replicas


def get_replica_context() -> ReplicaContext | None:
    """None in a strategy's scope (outside ``run``), else the one replica's context."""
    return None if in_cross_replica_context() else ReplicaContext(get_strategy())


__getattr__ = _missing("tf.distribute")
