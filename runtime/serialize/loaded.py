"""The function ``rt.load`` returns: a ConcreteFunction with no Python function behind it.

Without the original Python signature, arguments are bound by the saved parameter names, and
there is no polymorphic function to fall back on when they do not fit; so each argument is
checked against the saved key with a message naming the parameter. Parameters traced with
Python values may be left out (the saved value is the only one that fits), and Python numbers
are accepted for tensor parameters when they convert exactly, as with an input_signature.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from runtime import dtypes
from runtime.autodiff import recording
from runtime.backends import NUMPY
from runtime.concrete_function import ConcreteFunction, record_call
from runtime.executor import LoopLimit, Plan
from runtime.graph import Graph
from runtime.serialize.signature import NO_VALUE, key_value
from runtime.tensor import Tensor
from runtime.trace_keys import describe, encode, is_container_key, is_tensor_key, matches
from runtime.variables import Variable

_KINDS = "biufc"


class LoadedFunction(ConcreteFunction):
    """A saved function, callable like the ConcreteFunction it was saved from; ``variables``
    are its own ``rt.Variable`` objects, created with the saved values."""

    def __init__(self, name: str, graph: Graph, key: tuple, param_names: Sequence[str],
                 output_structure: Any, variables: list[Variable],
                 loop_limit: LoopLimit | None = None):
        """``loop_limit``: bounds every call's loops. The function then stays on the NumPy
        plan, which checks them: the compiled tier's kernels could not."""
        backend, jit_compile = NUMPY, None
        if loop_limit is not None:
            backend, jit_compile = _LimitedPlanBackend(loop_limit), False
        super().__init__(name, graph, key, param_names, output_structure, self._bind_arguments, [],
                         backend=backend, jit_compile=jit_compile)
        self.variables = list(variables)
        self._saved_values = {param: key_value(part) for param, part in zip(param_names, key)}

    def __call__(self, *args, **kwargs):
        values = self._bind_arguments(args, kwargs)
        leaves: list = []
        for name, value, expected in zip(self.param_names, values, self.key):
            part = encode(_converted(value, expected), leaves)
            if not matches(_base_kinds(part), expected):
                raise TypeError(
                    f"{self.name}() argument '{name}' must be {describe(expected)}, but got "
                    f"{describe(part)}. The function was saved for {self.signature}; pass "
                    f"arguments of those dtypes and shapes.")
        result = self._call_flat(leaves)
        if recording.active:
            record_call(self, values, result)
        return result

    def _bind_arguments(self, args: tuple, kwargs: dict) -> tuple:
        params = self.param_names
        if len(args) > len(params):
            raise TypeError(f"{self.name}() takes {len(params)} arguments ({', '.join(params)}) "
                            f"but {len(args)} were given.")
        unexpected = [name for name in kwargs if name not in params[len(args):]]
        if unexpected:
            raise TypeError(f"{self.name}() got an unexpected or repeated argument "
                            f"'{unexpected[0]}'; its parameters are ({', '.join(params)}).")
        values = list(args)
        for name in params[len(args):]:
            if name in kwargs:
                values.append(kwargs[name])
            elif self._saved_values[name] is not NO_VALUE:
                values.append(self._saved_values[name])
            else:
                raise TypeError(f"{self.name}() is missing the argument '{name}'.")
        return tuple(values)


class _LimitedPlanBackend:
    """The NumPy plan with loop limits."""

    name = "numpy"

    def __init__(self, loop_limit: LoopLimit):
        self.loop_limit = loop_limit

    def compile(self, graph: Graph, name: str) -> Plan:
        return Plan(graph, name, self.loop_limit)


def _converted(value, expected):
    """Python numbers (and lists of them) for a tensor parameter, as an array of its dtype
    when that changes neither their kind nor their value; anything else as it is."""
    if not is_tensor_key(expected) or isinstance(value, (Tensor, np.ndarray, np.generic)) \
            or not dtypes.is_weak(value) or expected[0].kind not in _KINDS:
        return value
    try:
        natural = dtypes.to_array(value)
        array = np.asarray(value, dtype=expected[0])
    except (TypeError, ValueError, OverflowError):
        return value
    if _KINDS.index(natural.dtype.kind) <= _KINDS.index(array.dtype.kind) \
            and np.array_equal(array, natural):
        return array
    return value


def _base_kinds(part):
    """A key with namedtuples and other container subclasses as the plain kinds that are saved."""
    if not is_container_key(part):
        return part
    kind = next(base for base in (dict, list, tuple) if issubclass(part[0], base))
    if kind is dict:
        return dict, tuple((key, _base_kinds(sub)) for key, sub in part[1])
    return kind, tuple(_base_kinds(sub) for sub in part[1])
