"""The op registry and the single entry point that runs an op eagerly or adds it to a graph.

An ``OpDef`` declares everything about an op in one place: the NumPy kernel that computes it,
the rule that infers output dtypes and shapes while tracing, and whether it is an effect (runs
on every call in program order, never pruned) or stateful (reads mutable state: never folded
or merged, but pruned when unused). ``apply_op`` is the only function that executes kernels
eagerly; the executor binds the same kernels into compiled plans, so eager and graph results
cannot drift apart.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from runtime import dtypes
from runtime.errors import InvalidArgumentError
from runtime.source_location import user_location
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, format_shape
from runtime import tracing

Kernel = Callable[..., Any]


class Promotion(enum.Enum):
    """How an op's inputs of different dtypes (and Python numbers) are reconciled."""

    NONE = "inputs are used as given"
    COMMON = ("every input is cast to the dtype they promote to (dtypes.promote_types): the "
              "kernel sees one dtype, so eager, graph and inferred dtypes agree")
    COMPARE = ("Python numbers take NumPy's dtype next to the tensors, tensors stay as they "
               "are: the result is bool, and NumPy compares mixed dtypes exactly")


@dataclass(frozen=True, eq=False)
class OpDef:
    """Everything the runtime knows about one op."""

    name: str
    kernel: Kernel | None
    infer: Callable[..., Any] | None
    effect: bool = False          # print, assert, variable writes, random draws
    stateful: bool = False        # variable reads: ordered, never folded or merged
    promotion: Promotion = Promotion.NONE
    unpromoted: int = 0           # leading inputs promotion leaves alone (where's condition)
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
# The ops with subgraphs (runtime.control_flow builds them): defined here with the other ops
# the IR itself knows, so the executor and the passes need not import the user-facing API.
COND = register(OpDef("cond", None, None))
WHILE_LOOP = register(OpDef("while_loop", None, None))


# -- converting inputs ---------------------------------------------------------------------


def _convert_eager(value, op: OpDef, dtype) -> np.ndarray:
    """``value`` as an array (of ``dtype`` when given)."""
    if type(value) is EagerTensor:
        array = value._value
    elif isinstance(value, np.ndarray):
        array = value
    elif dtype is not None and dtypes.is_weak(value):
        return _python_number_as(value, op, dtype)
    else:
        read = getattr(value, "_read_value_for_op", None)  # variables
        array = read()._value if read is not None else _python_value(value, op)
    return array if dtype is None or array.dtype == dtype else array.astype(dtype)


def _python_value(value, op: OpDef) -> np.ndarray:
    try:
        return dtypes.to_array(value)
    except (TypeError, ValueError, OverflowError) as error:
        raise TypeError(f"{op.name}: cannot use {type(value).__name__} {value!r} as a tensor "
                        f"input ({error}).") from None


def _python_number_as(value, op: OpDef, dtype: np.dtype) -> np.ndarray:
    """A Python number (or list of them) in the dtype it takes next to tensors; one that does
    not fit raises, as in NumPy 2, instead of wrapping around."""
    try:
        return np.asarray(value, dtype=dtype)
    except OverflowError:
        raise OverflowError(
            f"{op.name}: the Python number {value!r} does not fit in {dtype.name}, the dtype it "
            f"takes next to the other inputs; it would wrap around. Cast the tensor to a wider "
            f"dtype first (e.g. rt.cast(x, rt.int64)).") from None


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


def _convert_symbolic(value, graph, op: OpDef, dtype) -> SymbolicTensor:
    """``value`` as a value of ``graph`` (cast to ``dtype`` when given)."""
    if type(value) is SymbolicTensor:
        symbol = value if value.graph is graph else graph.capture(value)
    elif type(value) is EagerTensor:
        symbol = constant_in_graph(graph, value._value, key_object=value)
    elif getattr(value, "_read_value_for_op", None) is not None:
        symbol = value._read_value_for_op()
    else:
        return constant_in_graph(graph, _convert_eager(value, op, dtype))
    if dtype is None or symbol.dtype == dtype:
        return symbol
    from runtime.ops.array_ops import CAST, CHECKED_CAST  # array_ops builds on this module
    # A weak tensor stands for a Python int, which would raise rather than wrap if it did not
    # fit: narrowing it is checked when the graph runs.
    checked = getattr(value, "weak", False) and symbol.dtype.kind in "iu" and dtype.kind in "iu" \
        and not np.can_cast(symbol.dtype, dtype, "safe")
    return graph.add_node(CHECKED_CAST if checked else CAST, [symbol], {"dtype": dtype},
                          [(dtype, symbol.shape)], location=user_location()).outputs[0]


def _promotion(op: OpDef, inputs: Sequence) -> tuple[list, bool]:
    """Per input, the dtype to convert it to (None: as it is), and whether the result is weak
    (stands for a Python number because a weak tensor and only weak values went in)."""
    if op.promotion is Promotion.NONE:
        return [None] * len(inputs), False
    lead, operands = op.unpromoted, list(inputs[op.unpromoted:])
    if op.promotion is Promotion.COMPARE:
        return [None] * lead + dtypes.comparison_dtypes(operands), False
    types = [dtypes.operand_type(value) for value in operands]
    types = [t if t is not None else _python_value(v, op).dtype for v, t in zip(operands, types)]
    dtype, weak = dtypes.promote_types(*types)
    weak = weak and any(getattr(value, "weak", False) for value in operands)
    return [None] * lead + [dtype] * len(operands), weak


# -- applying ------------------------------------------------------------------------------


def holds_tensor(value) -> bool:
    """Whether a (nested) list or tuple has a tensor (or variable) among its items."""
    return any(isinstance(item, Tensor) or hasattr(item, "_read_value_for_op")
               or (type(item) in (list, tuple) and holds_tensor(item)) for item in value)


def auto_packed(value):
    """A (nested) list that holds tensors, stacked into one tensor (as TensorFlow packs
    ``[x, 1]`` for an op's input); any other value as it is."""
    if type(value) not in (list, tuple) or not holds_tensor(value):
        return value
    from runtime.ops.array_ops import stack  # array_ops builds on this module
    return stack([auto_packed(item) for item in value])


def apply_op(op: OpDef, inputs: Sequence = (), attrs: dict | None = None):
    """Runs ``op`` now (eager inputs, no trace active) or adds it to the current graph."""
    attrs = attrs or {}
    if any(type(value) in (list, tuple) for value in inputs):
        inputs = [auto_packed(value) for value in inputs]
    graph = tracing.current_graph()
    targets, weak = _promotion(op, inputs)
    if graph is None:
        for value in inputs:
            if type(value) is SymbolicTensor:
                raise ValueError(
                    f"{op.name}: the symbolic tensor {value.name} is used outside the function "
                    f"that traced it. Symbolic tensors only exist while tracing; return it from "
                    f"the function instead of storing it.")
        arrays = [_convert_eager(value, op, dtype) for value, dtype in zip(inputs, targets)]
        return run_eagerly(op, arrays, attrs)
    symbols = [_convert_symbolic(value, graph, op, dtype) for value, dtype in zip(inputs, targets)]
    out_types = infer_types(op, symbols, attrs)
    node = graph.add_node(op, symbols, attrs, out_types, location=user_location())
    if weak:
        for output in node.outputs:
            output.weak = True
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
