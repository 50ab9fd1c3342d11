"""Broadcasting as an op, and its adjoint: ``broadcast_to`` and ``sum_to_shape``.

Each is the other's gradient. ``sum_to_shape`` is how a gradient flows back through NumPy
broadcasting: the gradient of ``x + y`` with ``x`` of shape ``(3, 1)`` and ``y`` of shape
``(4,)`` has shape ``(3, 4)``; ``x`` gets it summed over the axes it was stretched along.
The target shape is a static attribute when it is known while tracing, else a shape tensor.
``fill`` (``runtime.ops.array_ops``) broadcasts a scalar, so its gradient rule is set here.
"""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import FILL, SHAPE, shape_operand, reshape, shape as shape_of
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.reduce_ops import reduce_sum
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import broadcast
from runtime.tensor import Shape, Tensor, format_shape


def _target_shape(shape_input=None, shape=None) -> Shape | None:
    """The target shape as far as it is known while tracing."""
    if shape is not None:
        return shape
    known = constant_value(shape_input)
    if known is not None:
        return tuple(int(d) for d in known)
    if shape_input.node.op is SHAPE:  # the shape of a tensor: its static shape
        return shape_input.node.inputs[0].shape
    length = shape_input.shape[0] if shape_input.shape else None
    return None if length is None else (None,) * length


def _as_tuple(shape_input, shape) -> tuple:
    return tuple(shape) if shape is not None else tuple(int(d) for d in shape_input)


# -- broadcast_to ---------------------------------------------------------------------------


def _broadcast_kernel(x, shape_input=None, shape=None):
    target = _as_tuple(shape_input, shape)
    try:
        return np.broadcast_to(x, target).copy()
    except ValueError:
        raise ValueError(f"cannot broadcast a tensor of shape {format_shape(x.shape)} to "
                         f"{format_shape(target)}") from None


def _broadcast_infer(x, shape_input=None, shape=None):
    target = _target_shape(shape_input, shape)
    if target is not None and x.shape is not None:
        if len(x.shape) > len(target):
            raise ShapeError(f"broadcast_to: cannot broadcast a tensor of shape "
                             f"{format_shape(x.shape)} to the lower rank shape {format_shape(target)}.")
        joined = broadcast("broadcast_to", x.shape, target)
        target = tuple(t if t is not None else j for t, j in zip(target, joined))
    return x.dtype, target


def _broadcast_gradient(node, dy):
    return (sum_to_shape(dy, node.inputs[0]),) + (None,) * (len(node.inputs) - 1)


BROADCAST_TO = register(OpDef("broadcast_to", _broadcast_kernel, _broadcast_infer,
                              gradient=_broadcast_gradient))


def broadcast_to(x, shape):
    """``x`` stretched to ``shape`` by NumPy's broadcasting rules (a new tensor)."""
    x = convert_to_tensor(x)
    inputs, attrs = shape_operand("broadcast_to", shape)
    if not inputs and x.shape == attrs["shape"]:
        return x
    return apply_op(BROADCAST_TO, (x,) + inputs, attrs)


# -- sum_to_shape ---------------------------------------------------------------------------


def _summed_axes(from_shape: tuple, to_shape: tuple) -> tuple[int, ...]:
    """The axes of ``from_shape`` that broadcasting ``to_shape`` to it stretched."""
    lead = len(from_shape) - len(to_shape)
    if lead < 0:
        raise ValueError(f"cannot sum a tensor of shape {format_shape(from_shape)} to the higher "
                         f"rank shape {format_shape(to_shape)}")
    return tuple(range(lead)) + tuple(
        lead + i for i, d in enumerate(to_shape) if d == 1 and from_shape[lead + i] != 1)


def _sum_kernel(x, shape_input=None, shape=None):
    target = _as_tuple(shape_input, shape)
    axes = _summed_axes(x.shape, target)
    summed = np.add.reduce(x, axis=axes, keepdims=True) if axes else x
    return summed.reshape(target)


def _sum_infer(x, shape_input=None, shape=None):
    return x.dtype, _target_shape(shape_input, shape)


def _sum_gradient(node, dy):
    return (broadcast_to(dy, shape_of(node.inputs[0])),) + (None,) * (len(node.inputs) - 1)


SUM_TO_SHAPE = register(OpDef("sum_to_shape", _sum_kernel, _sum_infer, gradient=_sum_gradient))


def sum_to_shape(x: Tensor, like) -> Tensor:
    """``x`` summed over the axes along which ``like``'s shape broadcasts to ``x``'s: the
    gradient of a broadcast input. Static when both shapes are known while tracing."""
    target = like.shape if isinstance(like, Tensor) else np.shape(like)
    if x.shape == target and x.shape is not None and None not in x.shape:
        return x
    if x.shape is not None and target is not None and None not in x.shape and None not in target:
        axes = _summed_axes(x.shape, target)
        summed = reduce_sum(x, axes, keepdims=True) if axes else x
        return summed if summed.shape == target else reshape(summed, target)
    if target is not None and None not in target:
        return apply_op(SUM_TO_SHAPE, (x,), {"shape": tuple(target)})
    return apply_op(SUM_TO_SHAPE, (x, shape_of(like, dtypes.int64)))


# -- fill -----------------------------------------------------------------------------------


def _fill_gradient(node, dy):
    """The value was broadcast to every element: its gradient is the sum of ``dy``."""
    return (sum_to_shape(dy, node.inputs[0]),) + (None,) * (len(node.inputs) - 1)


FILL.define_gradient(_fill_gradient)
