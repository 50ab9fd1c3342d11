"""Gathering and scattering by index tuples: ``gather_nd``, ``scatter_nd`` and
``tensor_scatter_nd_update``/``_add``.

The last dimension of ``indices`` holds ``k`` coordinates into the first ``k`` dimensions of
the tensor, as in TensorFlow. An index out of range is an error naming the op and the shapes
(NumPy would wrap a negative index around). ``gather_nd`` and ``scatter_nd`` are each other's
adjoints, so the gradients are built from the same four ops.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import GraphTypeError, ShapeError
from runtime.ops.array_ops import shape_for_gradient, shape_operand, zeros_like
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape


def _key(op_name: str, indices: np.ndarray, shape: tuple) -> tuple:
    """``indices`` as a NumPy key into an array of ``shape``, checked to be in range."""
    depth = indices.shape[-1]
    if depth > len(shape):
        raise ValueError(f"{op_name}: indices of shape {format_shape(indices.shape)} address "
                         f"{depth} dimensions of a tensor of shape {format_shape(shape)}.")
    bounds = np.array(shape[:depth], dtype=np.int64)
    if indices.size and (np.any(indices < 0) or np.any(indices >= bounds)):
        bad = indices.reshape(-1, depth)[np.any((indices.reshape(-1, depth) < 0)
                                                | (indices.reshape(-1, depth) >= bounds), axis=1)]
        raise ValueError(f"{op_name}: index {bad[0].tolist()} is out of range for a tensor of "
                         f"shape {format_shape(shape)}.")
    return tuple(np.moveaxis(indices, -1, 0))


def _check_indices(op_name: str, indices) -> int | None:
    """The number of coordinates per index (None while unknown)."""
    if indices.dtype.kind not in "iu":
        raise GraphTypeError(f"{op_name}: indices must be int32 or int64, got {indices.dtype.name}.")
    if indices.shape is None:
        return None
    if not indices.shape:
        raise ShapeError(f"{op_name}: indices must have at least one dimension, got a scalar.")
    return indices.shape[-1]


def _slice_shape(op_name: str, indices, shape) -> tuple | None:
    """The shape of what an index tuple picks: ``indices.shape[:-1] + shape[k:]``."""
    depth = _check_indices(op_name, indices)
    if depth is None or shape is None:
        return None
    if depth > len(shape):
        raise ShapeError(f"{op_name}: indices of shape {format_shape(indices.shape)} address "
                         f"{depth} dimensions of a tensor of shape {format_shape(shape)}.")
    return tuple(indices.shape[:-1]) + tuple(shape[depth:])


def _check_updates(op_name: str, indices, updates, shape) -> None:
    expected = _slice_shape(op_name, indices, shape)
    if expected is None or updates.shape is None:
        return
    if len(expected) != len(updates.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(expected, updates.shape)):
        raise ShapeError(f"{op_name}: updates of shape {format_shape(updates.shape)} do not "
                         f"match indices {format_shape(indices.shape)} into a tensor of shape "
                         f"{format_shape(shape)}; they must have shape {format_shape(expected)}.")


# -- gather_nd -----------------------------------------------------------------------------


def _gather_nd_kernel(params, indices):
    return params[_key("gather_nd", indices, params.shape)]


def _gather_nd_infer(params, indices):
    return params.dtype, _slice_shape("gather_nd", indices, params.shape)


def _gather_nd_grad(node, dy):
    params, indices = node.inputs
    static, dynamic = shape_for_gradient(params)
    return scatter_nd(indices, dy, static if dynamic is None else dynamic), None


GATHER_ND = register(OpDef("gather_nd", _gather_nd_kernel, _gather_nd_infer,
                           gradient=_gather_nd_grad))


# -- scatter_nd ----------------------------------------------------------------------------


def _scatter_nd_kernel(indices, updates, shape_input=None, shape=None):
    shape = shape if shape is not None else tuple(int(d) for d in shape_input)
    result = np.zeros(shape, updates.dtype)
    np.add.at(result, _key("scatter_nd", indices, shape), updates)  # duplicates add up
    return result


def _scatter_nd_infer(indices, updates, shape_input=None, shape=None):
    if shape is None:
        length = shape_input.shape[0] if shape_input.shape else None
        shape = None if length is None else (None,) * length
    _check_updates("scatter_nd", indices, updates, shape)
    return updates.dtype, shape


def _scatter_nd_grad(node, dy):
    indices = node.inputs[0]
    return (None, gather_nd(dy, indices)) + (None,) * (len(node.inputs) - 2)


SCATTER_ND = register(OpDef("scatter_nd", _scatter_nd_kernel, _scatter_nd_infer,
                            gradient=_scatter_nd_grad))


# -- tensor_scatter_nd_update / _add --------------------------------------------------------


def _update_kernel(tensor, indices, updates):
    result = np.array(tensor, copy=True)
    result[_key("tensor_scatter_nd_update", indices, tensor.shape)] = updates
    return result


def _add_kernel(tensor, indices, updates):
    result = np.array(tensor, copy=True)
    np.add.at(result, _key("tensor_scatter_nd_add", indices, tensor.shape), updates)
    return result


def _tensor_scatter_infer(op_name: str):
    def infer(tensor, indices, updates):
        if tensor.dtype != updates.dtype:
            raise GraphTypeError(f"{op_name}: tensor ({tensor.dtype.name}) and updates "
                                 f"({updates.dtype.name}) must have the same dtype.")
        _check_updates(op_name, indices, updates, tensor.shape)
        return tensor.dtype, tensor.shape
    return infer


def _update_grad(node, dy):
    """The replaced elements take no gradient from the result; the updates take theirs."""
    _, indices, updates = node.inputs
    kept = apply_op(TENSOR_SCATTER_ND_UPDATE, (dy, indices, zeros_like(updates, dy.dtype)))
    return kept, None, gather_nd(dy, indices)


def _add_grad(node, dy):
    return dy, None, gather_nd(dy, node.inputs[1])


TENSOR_SCATTER_ND_UPDATE = register(OpDef(
    "tensor_scatter_nd_update", _update_kernel, _tensor_scatter_infer("tensor_scatter_nd_update"),
    gradient=_update_grad))
TENSOR_SCATTER_ND_ADD = register(OpDef(
    "tensor_scatter_nd_add", _add_kernel, _tensor_scatter_infer("tensor_scatter_nd_add"),
    gradient=_add_grad))


# -- the public functions --------------------------------------------------------------------


def gather_nd(params, indices, batch_dims: int = 0) -> Tensor:
    """The slices of ``params`` at the index tuples in the last dimension of ``indices``."""
    if batch_dims != 0:
        raise NotImplementedError("gather_nd: only batch_dims=0 is supported; add the batch "
                                  "coordinates to the indices instead.")
    return apply_op(GATHER_ND, (convert_to_tensor(params), convert_to_tensor(indices)))


def scatter_nd(indices, updates, shape) -> Tensor:
    """Zeros of ``shape`` with ``updates`` added at the index tuples (repeats add up)."""
    inputs, attrs = shape_operand("scatter_nd", shape)
    return apply_op(SCATTER_ND, (convert_to_tensor(indices), convert_to_tensor(updates)) + inputs,
                    attrs)


def _updates_like(tensor: Tensor, updates) -> Tensor:
    """Python values of ``updates`` take the dtype of ``tensor``."""
    return updates if isinstance(updates, Tensor) else convert_to_tensor(updates, tensor.dtype)


def tensor_scatter_nd_update(tensor, indices, updates) -> Tensor:
    """``tensor`` with the slices at ``indices`` replaced by ``updates``."""
    tensor = convert_to_tensor(tensor)
    return apply_op(TENSOR_SCATTER_ND_UPDATE, (tensor, convert_to_tensor(indices),
                                              _updates_like(tensor, updates)))


def tensor_scatter_nd_add(tensor, indices, updates) -> Tensor:
    """``tensor`` with ``updates`` added at ``indices`` (repeats add up)."""
    tensor = convert_to_tensor(tensor)
    return apply_op(TENSOR_SCATTER_ND_ADD, (tensor, convert_to_tensor(indices),
                                              _updates_like(tensor, updates)))
