"""The op registry and the single entry point that runs an op eagerly or adds it to a graph.

An ``OpDef`` declares everything about an op in one place: the NumPy kernel that computes it,
the rule that infers output dtypes and shapes while tracing, and whether it is an effect (runs
on every call in program order, never pruned) or stateful (reads mutable state: never folded
or merged, but pruned when unused). ``apply_op`` is the only function that executes kernels
eagerly; the executor binds the same kernels into compiled plans, so eager and graph results
cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.source_location import user_location
from runtime.tensor import EagerTensor, SymbolicTensor, format_shape
from runtime import tracing

Kernel = Callable[..., Any]


@dataclass(frozen=True, eq=False)
class OpDef:
    """Everything the runtime knows about one op."""

    name: str
    kernel: Kernel | None
    infer: Callable[..., Any] | None
    effect: bool = False          # print, assert, variable writes, random draws
    stateful: bool = False        # variable reads: ordered, never folded or merged
    promote_scalars: bool = False  # Python scalars among the inputs are weakly typed
    num_outputs: int = 1
    # Optional: ``bind(attrs, input_types) -> callable(*arrays)`` for a specialized kernel.
    bind: Callable[..., Callable] | None = None
    doc: str = field(default="", repr=False)

    def bound_kernel(self, attrs: dict, input_types: Sequence[tuple]) -> Callable:
        """The kernel with its attributes fixed, as the executor calls it."""
        if self.bind is not None:
            return self.bind(attrs, input_types)
        if not attrs:
            return self.kernel
        kernel, frozen = self.kernel, dict(attrs)
        return lambda *arrays: kernel(*arrays, **frozen)


_REGISTRY: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    if op.name in _REGISTRY:
        raise ValueError(f"op {op.name!r} is registered twice")
    _REGISTRY[op.name] = op
    return op


def get_op(name: str) -> OpDef:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise KeyError(f"unknown op {name!r}") from None


def all_ops() -> dict[str, OpDef]:
    return dict(_REGISTRY)


PLACEHOLDER = register(OpDef("placeholder", None, None))
CONST = register(OpDef("const", None, None))


# -- converting inputs ---------------------------------------------------------------------


def _convert_eager(value, op: OpDef, weak_dtype) -> np.ndarray:
    if type(value) is EagerTensor:
        return value._value
    if isinstance(value, np.ndarray):
        return value
    if weak_dtype is not None:
        return np.asarray(value, dtype=weak_dtype)
    read = getattr(value, "_read_value_for_op", None)  # variables
    if read is not None:
        return read()._value
    try:
        return dtypes.to_array(value)
    except (TypeError, ValueError, OverflowError) as error:
        raise TypeError(f"{op.name}: cannot use {type(value).__name__} {value!r} as a tensor "
                        f"input ({error}).") from None


def constant_in_graph(graph, array: np.ndarray, key_object=None) -> SymbolicTensor:
    """A const node holding ``array`` (deduplicated per captured eager object)."""
    def make():
        frozen = array if not array.flags.writeable else array.copy()
        frozen.flags.writeable = False
        node = graph.add_node(CONST, (), {"value": frozen}, [(frozen.dtype, frozen.shape)],
                              location=user_location())
        return node.outputs[0]
    if key_object is None:
        return make()
    return graph.constant_for(key_object, make)


def _convert_symbolic(value, graph, op: OpDef, weak_dtype) -> SymbolicTensor:
    if type(value) is SymbolicTensor:
        value = value if value.graph is graph else graph.capture(value)
        if weak_dtype is not None and weak_dtype != value.dtype:
            from runtime.ops.array_ops import CAST  # array_ops builds on this module
            value = graph.add_node(CAST, [value], {"dtype": weak_dtype},
                                   [(weak_dtype, value.shape)], location=user_location()).outputs[0]
        return value
    if type(value) is EagerTensor:
        return constant_in_graph(graph, value._value, key_object=value)
    read = getattr(value, "_read_value_for_op", None)
    if read is not None:
        return read()
    return constant_in_graph(graph, _convert_eager(value, op, weak_dtype))


def _weak_dtypes(op: OpDef, inputs) -> list:
    """Per input, the dtype a weak Python value takes (None for tensors and strong values)."""
    if not op.promote_scalars:
        return [None] * len(inputs)
    weak = [dtypes.is_weak(value) for value in inputs]
    if not any(weak):
        return [None] * len(inputs)
    strong = [value.dtype for value, is_weak in zip(inputs, weak)
              if not is_weak and hasattr(value, "dtype")]
    resolved = iter(dtypes.weak_dtypes([v for v, w in zip(inputs, weak) if w], strong))
    return [next(resolved) if is_weak else None for is_weak in weak]


# -- applying ------------------------------------------------------------------------------


def apply_op(op: OpDef, inputs: Sequence = (), attrs: dict | None = None):
    """Runs ``op`` now (eager inputs, no trace active) or adds it to the current graph."""
    attrs = attrs or {}
    graph = tracing.current_graph()
    weak = _weak_dtypes(op, inputs)
    if graph is None:
        for value in inputs:
            if type(value) is SymbolicTensor:
                raise ValueError(
                    f"{op.name}: the symbolic tensor {value.name} is used outside the function "
                    f"that traced it. Symbolic tensors only exist while tracing; return it from "
                    f"the function instead of storing it.")
        arrays = [_convert_eager(value, op, dtype) for value, dtype in zip(inputs, weak)]
        return run_eagerly(op, arrays, attrs)
    symbols = [_convert_symbolic(value, graph, op, dtype) for value, dtype in zip(inputs, weak)]
    out_types = infer_types(op, symbols, attrs)
    node = graph.add_node(op, symbols, attrs, out_types, location=user_location())
    return node.outputs[0] if op.num_outputs == 1 else tuple(node.outputs)


def infer_types(op: OpDef, symbols: Sequence[SymbolicTensor], attrs: dict) -> list[tuple]:
    result = op.infer(*symbols, **attrs)
    return [result] if op.num_outputs == 1 else list(result)


def run_eagerly(op: OpDef, arrays: Sequence[np.ndarray], attrs: dict):
    try:
        result = op.kernel(*arrays, **attrs)
    except InvalidArgumentError:
        raise
    except Exception as error:  # a kernel failure becomes one error type, eager and graph alike
        shapes = ", ".join(f"{format_shape(a.shape)} {a.dtype.name}" for a in arrays)
        raise InvalidArgumentError(f"{op.name} failed on inputs [{shapes}]: {error}") from error
    if op.num_outputs == 1:
        return EagerTensor(np.asarray(result))
    if op.num_outputs == 0:
        return None
    return tuple(EagerTensor(np.asarray(r)) for r in result)


def constant_value(value) -> np.ndarray | None:
    """The value of ``value`` if it is known while tracing (a const node or an eager tensor)."""
    if type(value) is EagerTensor:
        return value._value
    if type(value) is SymbolicTensor and value.node.op is CONST:
        return value.node.attrs["value"]
    if isinstance(value, (np.ndarray, np.generic)):
        return np.asarray(value)
    if isinstance(value, dtypes.PYTHON_SCALARS):
        return np.asarray(value)
    return None
