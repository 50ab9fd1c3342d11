"""ONNX for the ops that create, reshape, combine, select and convert tensors.

Static attributes (shapes, axes, permutations) become constants; a shape given as a tensor
stays an input, so dimensions unknown while tracing stay symbolic in the model.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, numpy_helper

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder, compute_dtype, onnx_type
from runtime.ops import array_ops as a
from runtime.ops import broadcast_ops, conversion_ops, ensure_shape_ops, gradient_ops, linalg_ops
from runtime.ops.registry import CONST
from runtime.passes import counted_loops

_INT64_MAX = np.iinfo(np.int64).max


def _shape_operand(b: Builder, node, ins, first: int) -> str:
    """The target shape of fill/broadcast_to/sum_to_shape: the attribute, or the input."""
    shape = node.attrs.get("shape")
    if shape is not None:
        return b.int64s(shape)
    return b.cast(ins[first], node.inputs[first].dtype, np.int64)


def _reshape(b: Builder, node, ins):
    shape = node.attrs["shape"]
    # allowzero: a 0 in the shape is a size-0 dimension (NumPy), not "copy this dimension".
    return [b.emit("Reshape", [ins[0], b.int64s(shape)], allowzero=1 if 0 in shape else None)]


def _dynamic_reshape(b: Builder, node, ins):
    return [b.emit("Reshape", [ins[0], b.cast(ins[1], node.inputs[1].dtype, np.int64)])]


def _transpose(b: Builder, node, ins):
    perm = node.attrs["perm"]
    return [b.emit("Transpose", ins[:1], perm=None if perm is None else list(perm))]


def _concat(b: Builder, node, ins):
    return [b.emit("Concat", ins, axis=node.attrs["axis"])]


def _stack(b: Builder, node, ins):
    axis = b.int64s([node.attrs["axis"]])
    return [b.emit("Concat", [b.emit("Unsqueeze", [name, axis]) for name in ins],
                   axis=node.attrs["axis"])]


def _unstack(b: Builder, node, ins):
    return [b.emit("Gather", [ins[0], b.scalar(node.attrs["index"], np.int64)],
                   axis=node.attrs["axis"])]


def _squeeze(b: Builder, node, ins):
    axis = node.attrs["axis"]
    return [b.emit("Squeeze", ins[:1] + ([] if axis is None else [b.int64s(axis)]))]


def _expand_dims(b: Builder, node, ins):
    return [b.emit("Unsqueeze", [ins[0], b.int64s([node.attrs["axis"]])])]


def _gather(b: Builder, node, ins):
    indices = node.inputs[1]
    if indices.dtype.kind not in "iu":
        raise ExportError(f"gather indices must be integers, got {indices.dtype.name}.")
    indices64 = b.cast(ins[1], indices.dtype, np.int64)
    if not (indices.node.op is CONST and np.all(indices.node.attrs["value"] >= 0)):
        # ONNX's Gather counts a negative index from the end; the graph's gather rejects it
        # (as TensorFlow does). One too large fails in ONNX Runtime's Gather itself.
        negative = b.emit("Cast", [b.emit("Less", [indices64, b.scalar(0, np.int64)])],
                          to=TensorProto.INT64)
        ok = b.emit("Equal", [b.emit("ReduceSum", [negative], keepdims=0), b.scalar(0, np.int64)])
        indices64 = b.check(indices64, ok, "gather: an index is negative; indices must be in "
                                           "[0, size) (they do not count from the end)")
    return [b.emit("Gather", [ins[0], indices64], axis=node.attrs["axis"])]


def _fill(b: Builder, node, ins):
    return [b.emit("Expand", [ins[0], _shape_operand(b, node, ins, 1)])]


def _eye(b: Builder, node, ins):
    attrs = node.attrs
    return [b.emit("Identity", [b.constant(np.eye(attrs["n"], attrs["m"], dtype=attrs["dtype"]))])]


def _range(b: Builder, node, ins):
    """Integers count in int64 (an unsigned range may step down with an int64 step), floats
    in float64 (NumPy computes ``start + i * delta`` in double precision)."""
    dtype = node.outputs[0].dtype
    work = np.dtype(np.float64) if dtype.kind == "f" else np.dtype(np.int64)
    bounds = [b.cast(name, value.dtype, work) for name, value in zip(ins, node.inputs)]
    return [b.cast(b.emit("Range", bounds), work, dtype)]


def _where(b: Builder, node, ins):
    condition = b.cast(ins[0], node.inputs[0].dtype, np.bool_)
    return [b.emit("Where", [condition, ins[1], ins[2]])]


def _argwhere(b: Builder, node, ins):
    condition = b.cast(ins[0], node.inputs[0].dtype, np.bool_)
    return [b.emit("Transpose", [b.emit("NonZero", [condition])], perm=[1, 0])]


def _clip(b: Builder, node, ins):
    dtype = node.outputs[0].dtype
    work = np.dtype(np.int32) if dtype == np.bool_ else compute_dtype(dtype)
    t, low, high = (b.cast(name, value.dtype, work) for name, value in zip(ins, node.inputs))
    return [b.cast(b.emit("Min", [b.emit("Max", [t, low]), high]), work, dtype)]


def _identity(b: Builder, node, ins):
    return [b.emit("Identity", [ins[0]])]


def _custom_gradient(b: Builder, node, ins):
    """Forward, a custom gradient passes the function's results through."""
    return [b.emit("Identity", [name]) for name in ins[:node.attrs["num_outputs"]]]


def _shape(b: Builder, node, ins):
    return [b.cast(b.emit("Shape", ins[:1]), np.int64, node.attrs["out_type"])]


def _size(b: Builder, node, ins):
    return [b.cast(b.emit("Size", ins[:1]), np.int64, node.attrs["out_type"])]


def _rank(b: Builder, node, ins):
    return [b.cast(b.emit("Size", [b.emit("Shape", ins[:1])]), np.int64, np.int32)]


def _cast(b: Builder, node, ins):
    return [b.emit("Cast", ins[:1], to=onnx_type(node.attrs["dtype"]))]


def _checked_cast(b: Builder, node, ins):
    """A cast that fails when a value does not fit in the integer dtype (it stands for a
    Python int, which never wraps around): the check is in the model."""
    source, target = node.inputs[0].dtype, np.dtype(node.attrs["dtype"])
    result = b.emit("Cast", ins[:1], to=onnx_type(target))
    if source.kind == "f":
        wide = b.cast(ins[0], source, np.float64)
        whole = b.emit("Where", [b.emit("Less", [wide, b.scalar(0, np.float64)]),
                                 b.emit("Ceil", [wide]), b.emit("Floor", [wide])])
        info = np.iinfo(target)
        low, high = b.scalar(float(info.min), np.float64), b.scalar(float(info.max) + 1, np.float64)
        fits = b.emit("And", [b.emit("GreaterOrEqual", [whole, low]),
                              b.emit("Less", [whole, high])])
    else:
        fits = b.emit("Equal", [b.emit("Cast", [result], to=onnx_type(source)), ins[0]])
    unfit = b.emit("ReduceSum", [b.emit("Cast", [b.emit("Not", [fits])], to=TensorProto.INT64)],
                   keepdims=0)
    ok = b.emit("Equal", [unfit, b.scalar(0, np.int64)])
    return [b.check(result, ok, f"a value does not fit in {target.name} (it stands for a Python "
                                f"int, which would not wrap around)")]


def _ensure_shape(b: Builder, node, ins):
    """``x``; the model fails when it runs with a rank or a size the shape does not allow
    (sizes known while tracing were checked then)."""
    expected, static = node.attrs["shape"], node.inputs[0].shape
    checked = [(axis, size) for axis, size in enumerate(expected)
               if size is not None and (static is None or static[axis] is None)]
    if static is not None and not checked:
        return [b.emit("Identity", ins[:1])]
    sizes = b.emit("Shape", ins[:1])
    conditions = []
    if static is None:
        rank = b.emit("Size", [sizes])
        conditions.append(b.emit("Equal", [rank, b.scalar(len(expected), np.int64)]))
    if checked:
        axes, wanted = zip(*checked)
        same = b.emit("Equal", [b.emit("Gather", [sizes, b.int64s(axes)]), b.int64s(wanted)])
        different = b.emit("Cast", [b.emit("Not", [same])], to=TensorProto.INT64)
        count = b.emit("ReduceSum", [different], keepdims=0)
        conditions.append(b.emit("Equal", [count, b.scalar(0, np.int64)]))
    ok = conditions[0] if len(conditions) == 1 else b.emit("And", conditions)
    return [b.check(b.emit("Identity", ins[:1]), ok,
                    f"ensure_shape: the tensor's shape is not compatible with the expected shape "
                    f"{tuple(expected)}")]


def _broadcast_to(b: Builder, node, ins):
    return [b.emit("Expand", [ins[0], _shape_operand(b, node, ins, 1)])]


def _sum_to_shape(b: Builder, node, ins):
    """``x`` summed over the axes along which the target shape broadcasts to ``x``'s."""
    x, target_shape = node.inputs[0], node.attrs.get("shape")
    if target_shape is not None and x.shape is not None and None not in x.shape:
        axes = _summed_axes(x.shape, tuple(target_shape))
        summed = b.emit("ReduceSum", [ins[0], b.int64s(axes)], keepdims=1) if axes else ins[0]
        return [b.emit("Reshape", [summed, b.int64s(target_shape)])]
    # Known only when the graph runs: the axes are computed in the model.
    target = _shape_operand(b, node, ins, 1)
    from_shape = b.emit("Shape", ins[:1])
    lead = b.emit("Sub", [b.emit("Size", [from_shape]), b.emit("Size", [target])])
    padded = b.emit("Concat", [b.emit("ConstantOfShape", [b.emit("Reshape", [lead, b.int64s([1])])],
                                      value=_int64_tensor(1)), target], axis=0)
    positions = b.emit("Range", [b.scalar(0, np.int64), b.emit("Size", [from_shape]),
                                 b.scalar(1, np.int64)])
    one = b.scalar(1, np.int64)
    stretched = b.emit("And", [b.emit("Equal", [padded, one]),
                               b.emit("Not", [b.emit("Equal", [from_shape, one])])])
    summed_axes = b.emit("Or", [b.emit("Less", [positions, lead]), stretched])
    axes = b.emit("Reshape", [b.emit("NonZero", [summed_axes]), b.int64s([-1])])
    summed = b.emit("ReduceSum", [ins[0], axes], keepdims=1, noop_with_empty_axes=1)
    return [b.emit("Reshape", [summed, target])]


def _int64_tensor(value: int):
    return numpy_helper.from_array(np.array([value], np.int64))


def _summed_axes(from_shape: tuple, to_shape: tuple) -> list[int]:
    """The axes of ``from_shape`` that broadcasting ``to_shape`` to it stretched."""
    lead = len(from_shape) - len(to_shape)
    return list(range(lead)) + [lead + i for i, d in enumerate(to_shape)
                                if d == 1 and from_shape[lead + i] != 1]


def _matmul(b: Builder, node, ins):
    dtype = node.outputs[0].dtype
    work = np.dtype(np.int32) if dtype.kind == "b" or dtype.itemsize < 4 and dtype.kind in "iu" \
        else compute_dtype(dtype)
    operands = [b.cast(name, value.dtype, work) for name, value in zip(ins, node.inputs)]
    return [b.cast(b.emit("MatMul", operands), work, dtype)]


def _range_fits(b: Builder, node, ins):
    """The guard of a counted loop rewritten as array code: ``bound - start <= max_length``
    (without overflow: ``start + max_length`` is clipped to int64's range) and, when given,
    ``bound <= counter_max``."""
    start, bound = (b.cast(name, value.dtype, np.int64) for name, value in zip(ins, node.inputs))
    length = node.attrs["max_length"]
    top = b.emit("Add", [b.emit("Min", [start, b.scalar(_INT64_MAX - length, np.int64)]),
                         b.scalar(length, np.int64)])
    fits = b.emit("LessOrEqual", [bound, top])
    if node.attrs["counter_max"] is not None:
        reachable = b.emit("LessOrEqual", [bound, b.scalar(node.attrs["counter_max"], np.int64)])
        fits = b.emit("And", [fits, reachable])
    return [fits]


RULES = {
    a.RESHAPE: _reshape,
    a.DYNAMIC_RESHAPE: _dynamic_reshape,
    a.TRANSPOSE: _transpose,
    a.CONCAT: _concat,
    conversion_ops.STACK: _stack,
    a.UNSTACK: _unstack,
    a.SQUEEZE: _squeeze,
    a.EXPAND_DIMS: _expand_dims,
    a.GATHER: _gather,
    a.FILL: _fill,
    a.EYE: _eye,
    a.RANGE: _range,
    a.WHERE: _where,
    a.ARGWHERE: _argwhere,
    a.CLIP: _clip,
    a.IDENTITY: _identity,
    a.SHAPE: _shape,
    a.SIZE: _size,
    a.RANK: _rank,
    conversion_ops.CAST: _cast,
    conversion_ops.CHECKED_CAST: _checked_cast,
    ensure_shape_ops.ENSURE_SHAPE: _ensure_shape,
    broadcast_ops.BROADCAST_TO: _broadcast_to,
    broadcast_ops.SUM_TO_SHAPE: _sum_to_shape,
    linalg_ops.MATMUL: _matmul,
    gradient_ops.STOP_GRADIENT: _identity,
    gradient_ops.CUSTOM_GRADIENT: _custom_gradient,
    counted_loops.RANGE_FITS: _range_fits,
}
