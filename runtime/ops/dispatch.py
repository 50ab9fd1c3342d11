"""The single entry point that runs an op eagerly or adds it to a graph, and the conversion
of its inputs (tensors, variables, Python values, nested lists) to tensors.

``apply_op`` is the only function that executes kernels eagerly; the executor binds the same
kernels into compiled plans, so eager and graph results cannot drift apart. Converting inputs
may itself add ops (a cast for promotion, a stack for a list of tensors): those come from
``runtime.ops.conversion_ops``, below this module, so no op module imports another in a cycle.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime import dtypes, tracing
from runtime.autodiff import recording
from runtime.autodiff.replay import substitute
from runtime.errors import InvalidArgumentError
from runtime.numpy_warnings import run_kernel
from runtime.ops.conversion_ops import CAST, CHECKED_CAST, STACK
from runtime.ops.registry import CONST, OpDef, Promotion
from runtime.source_location import user_location
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, format_shape


def constant(value, dtype=None) -> EagerTensor:
    """An eager tensor. Python int -> int32, float -> float32, bool -> bool; arrays keep dtype."""
    dtype = None if dtype is None else dtypes.as_dtype(dtype)
    if isinstance(value, Tensor):
        value = np.asarray(value.numpy())
    array = dtypes.to_array(value, dtype)
    if array is value or (isinstance(value, np.ndarray) and np.shares_memory(array, value)):
        array = array.copy()  # the tensor must not change when the caller's array does
    return EagerTensor(array)


def convert_to_tensor(value, dtype=None) -> Tensor:
    """``value`` as a tensor; tensors pass through (their dtype must match ``dtype`` if given)."""
    if isinstance(value, Tensor):
        if dtype is not None and value.dtype != dtypes.as_dtype(dtype):
            raise TypeError(f"expected a tensor of dtype {dtypes.as_dtype(dtype).name}, got "
                            f"{value.dtype.name}; use rt.cast to convert.")
        return value
    read = getattr(value, "_read_value_for_op", None)
    if read is not None:
        return read()
    packed = auto_packed(value)
    if isinstance(packed, Tensor):
        return packed if dtype is None else convert_to_tensor(packed, dtype)
    return constant(value, dtype)


def scalars_like(values: Sequence) -> list:
    """Python scalars in a list of values take the dtype of the tensors next to them, and so
    do NumPy floats next to a tensor (see ``_promotion``)."""
    tensors = [v.dtype for v in values if _is_strong_tensor(v)]
    adapting = [bool(tensors) and _is_numpy_float(v) for v in values]
    strong = [v.dtype for v, adapts in zip(values, adapting)
              if isinstance(v, (Tensor, np.ndarray)) and not adapts]
    return [convert_to_tensor(v, dtypes.promote_types(*tensors, _WEAK_FLOAT)[0] if adapts
                              else dtypes.weak_scalar_dtype(v, strong)
                              if isinstance(v, dtypes.PYTHON_SCALARS) else None)
            for v, adapts in zip(values, adapting)]


# -- converting inputs ---------------------------------------------------------------------

_UNKNOWN = object()  # a location not looked up yet
_SEQUENCES = (list, tuple)
_PYTHON_NUMBERS = frozenset({bool, int, float, complex})
_TENSOR_TYPES = (SymbolicTensor, EagerTensor)


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


def constant_in_graph(graph, array: np.ndarray, key_object=None, location=_UNKNOWN,
                      fresh: bool = False) -> SymbolicTensor:
    """A const node holding ``array`` (deduplicated per captured eager object). ``location``:
    the user's location when the caller knows it (else it is looked up); ``fresh``: the
    array was just made and nothing else holds it, so it is frozen without a copy."""
    def make():
        if fresh or not array.flags.writeable:
            frozen = array
        else:
            frozen = array.copy()
        frozen.flags.writeable = False
        node = graph.add_node(CONST, (), {"value": frozen}, [(frozen.dtype, frozen.shape)],
                              location=user_location() if location is _UNKNOWN else location)
        return node.outputs[0]
    if key_object is None:
        return make()
    return graph.constant_for(key_object, make)


def _convert_symbolic(value, graph, op: OpDef, dtype, location=_UNKNOWN) -> SymbolicTensor:
    """``value`` as a value of ``graph`` (cast to ``dtype`` when given); new nodes get
    ``location`` (looked up when not given)."""
    if type(value) is SymbolicTensor:
        symbol = value if value.graph is graph else graph.capture(substitute(value))
    elif type(value) is EagerTensor:
        symbol = constant_in_graph(graph, value._value, key_object=value, location=location)
    elif getattr(value, "_read_value_for_op", None) is not None:
        symbol = value._read_value_for_op()
    else:
        # A Python number becomes a new array, which the constant may keep without a copy.
        return constant_in_graph(graph, _convert_eager(value, op, dtype), location=location,
                                 fresh=type(value) in _PYTHON_NUMBERS)
    if dtype is None or symbol.dtype == dtype:
        return symbol
    # A weak tensor stands for a Python int, which would raise rather than wrap if it did not
    # fit: narrowing it is checked when the graph runs.
    checked = getattr(value, "weak", False) and symbol.dtype.kind in "iu" and dtype.kind in "iu" \
        and not np.can_cast(symbol.dtype, dtype, "safe")
    return graph.add_node(CHECKED_CAST if checked else CAST, [symbol], {"dtype": dtype},
                          [(dtype, symbol.shape)],
                          location=user_location() if location is _UNKNOWN else location
                          ).outputs[0]


def _promotion(op: OpDef, inputs: Sequence) -> tuple[list, bool]:
    """Per input, the dtype to convert it to (None: as it is), and whether the result is weak
    (stands for a Python number because a weak tensor and only weak values went in)."""
    if op.promotion is Promotion.NONE:
        return [None] * len(inputs), False
    lead, operands = op.unpromoted, list(inputs[op.unpromoted:])
    if op.promotion is Promotion.COMPARE:
        return [None] * lead + dtypes.comparison_dtypes(operands), False
    if operands and type(operands[0]) in _TENSOR_TYPES:
        # Tensors of one dtype, none standing for a Python number (most ops of a trace, a
        # captured weight among them): their dtype, as promote_types would give. Read as
        # NumPy's (an eager tensor's ``dtype`` may be TensorFlow's DType: runtime.tensor).
        first = operands[0]
        dtype = first._dtype if type(first) is SymbolicTensor else first._value.dtype
        for value in operands:
            kind = type(value)
            if kind is SymbolicTensor:
                if value.weak or value._dtype != dtype:
                    break
            elif kind is not EagerTensor or value._value.dtype != dtype:
                break
        else:
            return [None] * lead + [dtype] * len(operands), False
    types = [dtypes.operand_type(value) for value in operands]
    types = [t if t is not None else _python_value(v, op).dtype for v, t in zip(operands, types)]
    if any(map(_is_numpy_float, operands)) and any(map(_is_strong_tensor, operands)):
        # A NumPy float next to a tensor takes the tensor's float width, as TensorFlow
        # converts it and PyTorch treats NumPy scalars (``x - np.mean(data)`` stays float32).
        types = [_WEAK_FLOAT if _is_numpy_float(value) else t
                 for value, t in zip(operands, types)]
    dtype, weak = dtypes.promote_types(*types)
    weak = weak and any(getattr(value, "weak", False) for value in operands)
    return [None] * lead + [dtype] * len(operands), weak


_WEAK_FLOAT = dtypes.WeakType(dtypes.Weak.FLOAT, None)


def _is_numpy_float(value) -> bool:
    return isinstance(value, (np.ndarray, np.floating)) and value.dtype.kind == "f"


def _is_strong_tensor(value) -> bool:
    """A tensor or variable with a dtype of its own (not one standing for a Python number)."""
    if isinstance(value, Tensor):
        return not getattr(value, "weak", False)
    return hasattr(value, "_read_value_for_op")


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
    return apply_op(STACK, scalars_like([auto_packed(item) for item in value]), {"axis": 0})


# Functions called as ``check(op, inputs, outputs)`` after each op runs eagerly or joins a
# graph (``tf.debugging.enable_check_numerics`` installs one); while empty, one truth test.
output_checks: list = []


def _checked(op: OpDef, inputs: Sequence, result):
    outputs = () if result is None else (result,) if isinstance(result, Tensor) else result
    for check in output_checks:
        check(op, inputs, outputs)
    return result


def apply_op(op: OpDef, inputs: Sequence = (), attrs: dict | None = None):
    """Runs ``op`` now (eager inputs, no trace active) or adds it to the current graph."""
    attrs = attrs or {}
    for value in inputs:
        if type(value) in _SEQUENCES:
            inputs = [auto_packed(value) for value in inputs]
            break
    graph = tracing.current_graph()
    if graph is None and recording.active:
        # A tape needs the value a variable had as a tensor of its own (a recorded read).
        inputs = [_read_if_variable(value) for value in inputs]
    targets, weak = _promotion(op, inputs)
    if graph is None:
        for value in inputs:
            if type(value) is SymbolicTensor:
                raise ValueError(
                    f"{op.name}: the symbolic tensor {value.name} is used outside the function "
                    f"that traced it. Symbolic tensors only exist while tracing; return it from "
                    f"the function instead of storing it.")
        arrays = [_convert_eager(value, op, dtype) for value, dtype in zip(inputs, targets)]
        result = run_eagerly(op, arrays, attrs)
        if recording.active:
            recording.record(op, inputs, attrs, result)
        return _checked(op, inputs, result) if output_checks else result
    # One look-up of the user's line for the node and the constants and casts made for it.
    location = user_location()
    symbols = []
    for value, dtype in zip(inputs, targets):
        if type(value) is SymbolicTensor and value.graph is graph \
                and (dtype is None or value._dtype == dtype):
            symbols.append(value)  # most inputs: a value of this graph, of the right dtype
        else:
            symbols.append(_convert_symbolic(value, graph, op, dtype, location))
    result = op.infer(*symbols, **attrs)
    out_types = [result] if op.num_outputs == 1 else list(result)
    node = graph.add_node(op, symbols, attrs, out_types, location=location)
    if weak:
        for output in node.outputs:
            output.weak = True
    result = node.outputs[0] if op.num_outputs == 1 else tuple(node.outputs)
    return _checked(op, inputs, result) if output_checks else result


def _read_if_variable(value):
    read = getattr(value, "_read_value_for_op", None)
    return read() if read is not None and not isinstance(value, Tensor) else value


def infer_types(op: OpDef, symbols: Sequence[SymbolicTensor], attrs: dict) -> list[tuple]:
    result = op.infer(*symbols, **attrs)
    return [result] if op.num_outputs == 1 else list(result)


def run_eagerly(op: OpDef, arrays: Sequence[np.ndarray], attrs: dict):
    try:
        result = run_kernel(op.name, op.kernel, arrays, attrs)
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


def static_array(op_name: str, what: str, value) -> np.ndarray:
    """``value`` (a list, an array, or a tensor whose value is known while tracing) as an
    array: an argument an op needs while tracing (sizes, axes, paddings)."""
    if isinstance(value, Tensor):
        known = constant_value(value)
        if known is None:
            raise TypeError(f"{op_name}: {what} must be known while tracing (a list or a "
                            f"constant tensor), not computed from the function's inputs.")
        value = known
    return np.asarray(value)
