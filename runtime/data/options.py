"""``tf.data.Options`` and ``Dataset.with_options``: accepted, recorded, and without effect.

TensorFlow's options tune how a pipeline runs (threads, autotuning, fusions, sharding across
workers, whether parallel work may reorder elements). This runtime computes elements one by
one, in order, on one thread, so every option is already satisfied or has nothing to tune:
``with_options`` keeps them (``ds.options()`` reads them back) and changes no element. Only
TensorFlow's option names can be set, so a misspelled one fails as it does there.
"""

from __future__ import annotations

import enum
from typing import Any

from runtime.data.node import Node
from runtime.data.transformations import Passthrough


class AutoShardPolicy(enum.IntEnum):
    """``tf.data.experimental.AutoShardPolicy`` (for ``experimental_distribute``)."""

    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _Group:
    """A set of options with fixed names, each ``None`` (TensorFlow's default) until set."""

    _names: tuple[str, ...] = ()
    _groups: dict[str, type] = {}
    _aliases: dict[str, str] = {}

    def __init__(self):
        for name in self._names:
            object.__setattr__(self, name, None)
        for name, group in self._groups.items():
            object.__setattr__(self, name, group())

    def _name(self, name: str) -> str:
        return self._aliases.get(name, name)

    def __getattr__(self, name: str) -> Any:
        if name in self._aliases:
            return getattr(self, self._aliases[name])
        raise AttributeError(f"{type(self).__name__} has no option {name!r}.")

    def __setattr__(self, name: str, value) -> None:
        name = self._name(name)
        if name not in self._names and name not in self._groups:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}: "
                                 f"TensorFlow has no such option (its options are "
                                 f"{', '.join(sorted(self._names + tuple(self._groups)))}).")
        object.__setattr__(self, name, value)

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and vars(self) == vars(other)

    def __repr__(self) -> str:
        set_ = {k: v for k, v in vars(self).items() if v is not None and not isinstance(v, _Group)}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in set_.items())})"


class AutotuneOptions(_Group):
    _names = ("autotune_algorithm", "cpu_budget", "enabled", "initial_parallelism",
              "min_parallelism", "ram_budget")


class DistributeOptions(_Group):
    _names = ("auto_shard_policy", "num_devices")


class OptimizationOptions(_Group):
    _names = ("apply_default_optimizations", "filter_fusion", "filter_parallelization",
              "inject_prefetch", "map_and_batch_fusion", "map_and_filter_fusion", "map_fusion",
              "map_parallelization", "noop_elimination", "parallel_batch",
              "seq_interleave_prefetch", "shuffle_and_repeat_fusion")


class ThreadingOptions(_Group):
    _names = ("max_intra_op_parallelism", "private_threadpool_size")


class Options(_Group):
    """``tf.data.Options``: set attributes, pass to ``Dataset.with_options``; no effect here
    (see the module's docstring)."""

    _names = ("dataset_name", "deterministic", "experimental_external_state_policy",
              "experimental_service", "experimental_slack", "experimental_symbolic_checkpoint",
              "experimental_warm_start", "framework_type")
    _groups = {"autotune": AutotuneOptions, "experimental_distribute": DistributeOptions,
               "experimental_optimization": OptimizationOptions, "threading": ThreadingOptions}
    _aliases = {"experimental_deterministic": "deterministic",
                "experimental_threading": "threading"}


def merged(first: _Group, second: _Group) -> _Group:
    """``first`` with the options ``second`` sets (later ``with_options`` calls win)."""
    result = type(first)()
    for name, value in vars(first).items():
        theirs = vars(second)[name]
        if isinstance(value, _Group):
            value = merged(value, theirs)
        elif theirs is not None:
            value = theirs
        object.__setattr__(result, name, value)
    return result


class WithOptions(Passthrough):
    """``with_options(options)``: the same elements, the options recorded for ``options()``."""

    def __init__(self, parent: Node, options: Options):
        if not isinstance(options, Options):
            raise TypeError(f"Dataset.with_options takes a tf.data.Options, got "
                            f"{type(options).__name__}.")
        super().__init__(parent, "with_options")
        self.options = options


def options_of(node: Node) -> Options:
    """The options of every ``with_options`` in the pipeline, the later ones winning."""
    result = Options()
    for parent in node.inputs:
        result = merged(result, options_of(parent))
    return merged(result, node.options) if isinstance(node, WithOptions) else result
