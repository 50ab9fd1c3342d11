"""One trace of a function: its graph, its executable, and how to call and describe it."""

from __future__ import annotations

import functools
import threading
from typing import Any, Callable, Sequence

import numpy as np

from runtime import config, nest
from runtime.autodiff import recording
from runtime.backends import NUMPY, Backend
from runtime.backends.jit import INSTALL_HINT as JIT_INSTALL_HINT
from runtime.backends.jit import JIT
from runtime.backends.jit import available as jit_available
from runtime.errors import GradientError
from runtime.fast_call import make_entry
from runtime.graph import Graph
from runtime.source_location import user_traceback
from runtime.ops.registry import OpDef, register
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, format_shape
from runtime.traced_graph import GraphRecord
from runtime.tiering import BackgroundCompile
from runtime.trace_keys import (describe, encode, is_literal_key, is_tensor_key, literal_value,
                                matches, spec_of)

_asarray = np.asarray
_ndarray = np.ndarray


class ConcreteFunction:
    """A graph specialized to one input signature; calling it runs the graph compiled by
    ``backend`` (by default the NumPy plan, ``runtime.backends.NUMPY``)."""

    def __init__(self, name: str, graph: Graph, key: tuple, param_names: Sequence[str],
                 output_structure: Any, bind: Callable, pass_records: list, *,
                 backend: Backend = NUMPY, traced: GraphRecord | None = None,
                 jit_compile: bool | None = None):
        """``traced``: the graph before the passes, for ``unoptimized_graph``.
        ``jit_compile``: True runs the compiled tier from the first call, False never, None
        moves to it in the background once the function is called often (when installed)."""
        self.name = name
        self.graph = graph
        self.key = key
        self.param_names = list(param_names)
        self.pass_records = pass_records
        self._traced = traced
        self._unoptimized: Graph | None = None
        self._unoptimized_lock = threading.Lock()
        self._bind = bind
        self.jit_compile = jit_compile
        if jit_compile:
            backend = JIT
        self.backend = backend
        self.executable = backend.compile(graph, name)
        self._run = self.executable.run
        self._background: BackgroundCompile | None = None
        if jit_compile is None and backend is NUMPY and jit_available():
            self._background = BackgroundCompile(graph, name, self._run, self._install)
            self._run = self._background.run
        self._pack = _make_packer(output_structure)
        self.structured_outputs = output_structure

    # -- calling ----------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        try:
            return self._call(args, kwargs)
        except Exception as error:
            if not config._traceback_filtering:  # rt.config.set_traceback_filtering
                raise
            raise error.with_traceback(user_traceback(error))

    def _call(self, args: tuple, kwargs: dict):
        values = self._bind(args, self._with_traced_literals(args, kwargs))
        leaves: list = []
        key = tuple([encode(value, leaves) for value in values])
        if not all(matches(part, expected) for part, expected in zip(key, self.key)) \
                or len(key) != len(self.key):
            raise TypeError(
                f"this concrete function of {self.name} was traced for {self.signature} and "
                f"cannot be called with ({', '.join(describe(p) for p in key)}). Call the "
                f"polymorphic function instead, which traces a new graph when needed.")
        result = self._call_flat(leaves)
        if recording.active:
            record_call(self, values, result)
        return result

    def _with_traced_literals(self, args: tuple, kwargs: dict) -> dict:
        """``kwargs`` with the Python values this function was traced with for the parameters
        the call leaves out, as TensorFlow's concrete functions take them
        (``power.get_concrete_function(spec, 3)(x)``)."""
        if len(args) + len(kwargs) >= len(self.param_names) or \
                len(self.param_names) != len(self.key):
            return kwargs  # every parameter given (the common call), or *args in the way
        given = set(self.param_names[:len(args)]) | set(kwargs)
        missing = {name: part for name, part in zip(self.param_names, self.key)
                   if name not in given}
        if not missing or not all(is_literal_key(part) for part in missing.values()):
            return kwargs
        return {**kwargs, **{name: literal_value(part) for name, part in missing.items()}}

    def _call_flat(self, arrays):
        try:
            results = self._run(*arrays)
        except Exception as error:
            raise self.executable.translate_error(error) from error
        return self._pack(results)

    @functools.cached_property
    def fast_entry(self) -> Callable | None:
        """``entry(args)`` for calls matching this signature exactly (see ``fast_call``)."""
        return make_entry(self.key, self._run, self._pack, self.executable.translate_error)

    def _install(self, executable) -> None:
        """Runs ``executable`` from the next call on (None: the plan, without counting)."""
        if executable is not None:
            self.executable = executable
        self._run = self.executable.run
        entry = self.__dict__.get("fast_entry")
        if entry is not None:  # its globals are read on every call: the swap is immediate
            entry.__globals__["run"] = self._run
            entry.__globals__["translate"] = self.executable.translate_error

    def wait_for_jit(self, timeout: float | None = None) -> bool:
        """Waits for a background compile started by ``jit_compile=None`` (starting it now if
        it has not started); True when it has finished, whatever its outcome."""
        if self._background is None:
            return True
        return self._background.wait(timeout)

    @property
    def jit_report(self) -> str:
        """What runs compiled and what stays on the NumPy plan, and why."""
        report = getattr(self.executable, "report", None)
        if report is not None:
            return report
        if self._background is not None:
            return self._background.describe()
        if self.jit_compile is False:
            return "runs on the NumPy plan (jit_compile=False)."
        return (f"runs on the NumPy plan: the compiled tier is not installed (it needs a C "
                f"compiler with Python's headers, or Numba: {JIT_INSTALL_HINT}).")

    # -- describing -------------------------------------------------------------------------

    @property
    def unoptimized_graph(self) -> Graph | None:
        """The graph as traced, before the passes (rebuilt from its record when first asked
        for: most functions never need it). None for a loaded function."""
        with self._unoptimized_lock:
            if self._unoptimized is None and self._traced is not None:
                self._unoptimized, self._traced = self._traced.rebuild(), None
            return self._unoptimized

    @property
    def signature(self) -> str:
        return "(" + ", ".join(f"{n}: {describe(p)}" for n, p in zip(self.param_names, self.key)) + ")"

    @property
    def inputs(self) -> list:
        """The graph's parameters (symbolic tensors), as TensorFlow's ``ConcreteFunction.inputs``."""
        return list(self.graph.inputs)

    @property
    def outputs(self) -> list:
        """The graph's results, flattened in the order of ``structured_outputs`` (symbolic
        tensors: their dtypes and static shapes), as TensorFlow's ``ConcreteFunction.outputs``."""
        return list(self.graph.outputs)

    @property
    def structured_input_signature(self) -> tuple:
        """Specs for tensor arguments, the Python values for the others."""
        return tuple(_spec_structure(part) for part in self.key)

    @property
    def plan_source(self) -> str:
        """What the backend compiled the graph into (the NumPy plan: its Python code)."""
        return self.executable.source

    def pretty_printed_signature(self) -> str:
        lines = [f"{self.name}({', '.join(self.param_names)})", "  Args:"]
        for name, part in zip(self.param_names, self.key):
            lines.append(f"    {name}: {_describe_arg(part)}")
        lines.append("  Returns:")
        lines.extend(f"    {text}" for text in _describe_outputs(self.structured_outputs))
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.name}{self.signature}>"


def _no_gradient_through_a_call(node, *output_grads):
    function = node.attrs["function"]
    raise GradientError(
        f"the gradient cannot flow back through a call of the concrete function "
        f"{function.name}: a gradient tape sees only its results, not the ops inside. Call the "
        f"function it came from (rt.function or transpiler.function) under the tape, which runs "
        f"its Python so the tape records every op, or compute the gradient inside the function.")


# What an eager gradient tape records for a call of a concrete (or loaded) function.
CALL = register(OpDef("concrete_function_call", None, None, gradient=_no_gradient_through_a_call))


def record_call(function: ConcreteFunction, arguments: tuple, result) -> None:
    """Offers a call to the eager tapes, so a gradient through it is a clear error."""
    inputs = [leaf for leaf in nest.flatten(arguments) if isinstance(leaf, Tensor)]
    outputs = tuple(leaf for leaf in nest.flatten(result) if isinstance(leaf, Tensor))
    recording.record(CALL, inputs, {"function": function}, outputs)


def _spec_structure(part):
    if is_tensor_key(part):
        return spec_of(part)
    if type(part) is tuple and len(part) == 2 and isinstance(part[0], type):
        if issubclass(part[0], dict):
            return {key: _spec_structure(sub) for key, sub in part[1]}
        if issubclass(part[0], (tuple, list)):
            return part[0](_spec_structure(sub) for sub in part[1]) if part[0] in (tuple, list) \
                else tuple(_spec_structure(sub) for sub in part[1])
        return literal_value(part)
    return part


def _describe_arg(part) -> str:
    if is_tensor_key(part):
        return f"{part[0].name} Tensor, shape={format_shape(part[1])}"
    return describe(part)


def _describe_outputs(structure) -> list[str]:
    leaves = nest.flatten(structure)
    if len(leaves) == 1 and not nest.is_nested(structure):
        return [_describe_leaf(structure)]
    lines = [nest.describe_structure(structure).replace("*", "<>")]
    numbered = lines[0]
    for index in range(len(leaves)):
        numbered = numbered.replace("<>", f"<{index + 1}>", 1)
    lines = [numbered] + [f"<{i + 1}>: {_describe_leaf(leaf)}" for i, leaf in enumerate(leaves)]
    return lines


def _describe_leaf(leaf) -> str:
    if isinstance(leaf, SymbolicTensor):
        return f"{leaf.dtype.name} Tensor, shape={format_shape(leaf.shape)}"
    return repr(leaf)


def _make_packer(structure) -> Callable:
    """A function turning the plan's output arrays into the user's result structure.

    The graph's outputs are the structure's tensor leaves in flatten order, one each, so
    slots are positions (not identities: passes may replace or merge the output values)."""
    if isinstance(structure, SymbolicTensor):
        def pack_single(results):
            value = results[0]
            return EagerTensor(value if type(value) is _ndarray else _asarray(value))
        return pack_single
    leaves = nest.flatten(structure)
    slots, position = [], 0
    for leaf in leaves:
        slots.append(position if isinstance(leaf, SymbolicTensor) else None)
        position += isinstance(leaf, SymbolicTensor)

    def pack(results):
        tensors = [EagerTensor(r if type(r) is _ndarray else _asarray(r)) for r in results]
        return nest.pack_like(structure, [leaf if slot is None else tensors[slot]
                                          for leaf, slot in zip(leaves, slots)])
    return pack
