"""Gathering and scattering by index tuples: ``gather_nd``, ``scatter_nd`` and
``tensor_scatter_nd_update``/``_add``/``_sub``/``_max``/``_min`` (and ``_multiply``, which
TensorFlow does not name but its segment products need).

The last dimension of ``indices`` holds ``k`` coordinates into the first ``k`` dimensions of
the tensor, as in TensorFlow. With ``batch_dims=b`` the first ``b`` dimensions of ``indices``
and of the tensor are batch dimensions they share: each index tuple addresses the dimensions
after the batch ones, within its own batch element. An index out of range is an error naming
the index, its position and the valid range (NumPy would wrap a negative index around), the
same check as ``gather``'s. ``gather_nd`` and
``scatter_nd`` are each other's adjoints (with the same ``batch_dims``), so the gradients are
built from the same four ops.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import GraphTypeError, ShapeError
from runtime.ops import array_ops
from runtime.ops.array_ops import (cast, expand_dims, ones_like, shape_for_gradient,
                                   shape_operand, transpose, where, zeros_like)
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.math_composites import divide_no_nan
from runtime.ops.math_ops import divide, equal, multiply, negative, subtract
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import index_range_error
from runtime.tensor import Tensor, format_shape


def _key(op_name: str, indices: np.ndarray, shape: tuple, batch_dims: int = 0) -> tuple:
    """``indices`` as a NumPy key into an array of ``shape``, checked to be in range (with
    ``batch_dims``, each index tuple addresses the dimensions after the batch ones)."""
    depth = indices.shape[-1]
    if batch_dims + depth > len(shape):
        raise ValueError(f"{op_name}: indices of shape {format_shape(indices.shape)} address "
                         f"{depth} dimensions of a tensor of shape {format_shape(shape)}"
                         f"{f' after its {batch_dims} batch dimensions' if batch_dims else ''}.")
    if batch_dims and tuple(indices.shape[:batch_dims]) != tuple(shape[:batch_dims]):
        raise ValueError(_batch_mismatch(op_name, indices.shape, shape, batch_dims))
    problem = index_range_error(indices, shape[batch_dims:batch_dims + depth], shape, batch_dims)
    if problem is not None:
        raise ValueError(problem)
    return tuple(np.moveaxis(_with_batch(indices, batch_dims), -1, 0))


def _with_batch(indices: np.ndarray, batch_dims: int) -> np.ndarray:
    """``indices`` with their batch coordinates put in front of each index tuple, so that they
    address the whole tensor (``indices`` itself when there are no batch dimensions)."""
    if not batch_dims:
        return indices
    inner = indices.ndim - 1 - batch_dims
    grids = np.indices(indices.shape[:batch_dims], dtype=np.int64)
    grids = np.broadcast_to(grids.reshape(grids.shape + (1,) * inner),
                            (batch_dims,) + indices.shape[:-1])
    return np.concatenate([np.moveaxis(grids, 0, -1), indices.astype(np.int64)], axis=-1)


def _batch_mismatch(op_name: str, indices_shape, shape, batch_dims: int) -> str:
    return (f"{op_name}: with batch_dims={batch_dims}, indices of shape "
            f"{format_shape(indices_shape)} and a tensor of shape {format_shape(shape)} must "
            f"have the same first {batch_dims} dimensions.")


def _check_indices(op_name: str, indices) -> int | None:
    """The number of coordinates per index (None while unknown)."""
    if indices.dtype.kind not in "iu":
        raise GraphTypeError(f"{op_name}: indices must be int32 or int64, got {indices.dtype.name}.")
    if indices.shape is None:
        return None
    if not indices.shape:
        raise ShapeError(f"{op_name}: indices must have at least one dimension, got a scalar.")
    return indices.shape[-1]


def _slice_shape(op_name: str, indices, shape, batch_dims: int = 0) -> tuple | None:
    """The shape of what the index tuples pick: ``indices.shape[:-1] + shape[b + k:]``."""
    depth = _check_indices(op_name, indices)
    if depth is None or shape is None:
        return None
    if batch_dims:
        if len(indices.shape) <= batch_dims:
            raise ShapeError(f"{op_name}: batch_dims={batch_dims} needs indices of rank "
                             f"{batch_dims + 1} or more, got shape {format_shape(indices.shape)}.")
        if len(shape) < batch_dims or any(
                a is not None and b is not None and a != b
                for a, b in zip(indices.shape[:batch_dims], shape[:batch_dims])):
            raise ShapeError(_batch_mismatch(op_name, indices.shape, shape, batch_dims))
    if batch_dims + depth > len(shape):
        raise ShapeError(f"{op_name}: indices of shape {format_shape(indices.shape)} address "
                         f"{depth} dimensions of a tensor of shape {format_shape(shape)}"
                         f"{f' after its {batch_dims} batch dimensions' if batch_dims else ''}.")
    return tuple(indices.shape[:-1]) + tuple(shape[batch_dims + depth:])


def _check_updates(op_name: str, indices, updates, shape, batch_dims: int = 0) -> None:
    expected = _slice_shape(op_name, indices, shape, batch_dims)
    if expected is None or updates.shape is None:
        return
    if len(expected) != len(updates.shape) or any(
            a is not None and b is not None and a != b for a, b in zip(expected, updates.shape)):
        raise ShapeError(f"{op_name}: updates of shape {format_shape(updates.shape)} do not "
                         f"match indices {format_shape(indices.shape)} into a tensor of shape "
                         f"{format_shape(shape)}; they must have shape {format_shape(expected)}.")


# -- gather_nd -----------------------------------------------------------------------------


def _gather_nd_kernel(params, indices, batch_dims=0):
    return params[_key("gather_nd", indices, params.shape, batch_dims)]


def _gather_nd_infer(params, indices, batch_dims=0):
    return params.dtype, _slice_shape("gather_nd", indices, params.shape, batch_dims)


def _gather_nd_grad(node, dy):
    """``dy`` scattered back into zeros; indices of shape ``[n, 1]`` pick whole rows, whose
    gradient is kept as those rows (``IndexedSlices``), as a gather along axis 0 gives and as
    in TensorFlow."""
    params, indices = node.inputs
    static, dynamic = shape_for_gradient(params)
    shape, batch_dims = static if dynamic is None else dynamic, node.attrs.get("batch_dims", 0)
    rows = (not batch_dims and indices.shape is not None and len(indices.shape) == 2
            and indices.shape[1] == 1 and static is not None and None not in static[1:])
    if rows:
        return IndexedSlices(dy, array_ops.reshape(indices, (-1,)), static, dynamic), None
    if not batch_dims:
        return scatter_nd(indices, dy, shape), None
    inputs, attrs = shape_operand("scatter_nd", shape)
    return apply_op(SCATTER_ND, (indices, dy) + inputs, dict(attrs, batch_dims=batch_dims)), None


GATHER_ND = register(OpDef("gather_nd", _gather_nd_kernel, _gather_nd_infer,
                           gradient=_gather_nd_grad))


# -- scatter_nd ----------------------------------------------------------------------------


def _scatter_nd_kernel(indices, updates, shape_input=None, shape=None, batch_dims=0):
    shape = shape if shape is not None else tuple(int(d) for d in shape_input)
    result = np.zeros(shape, updates.dtype)
    np.add.at(result, _key("scatter_nd", indices, shape, batch_dims), updates)  # duplicates add up
    return result


def _scatter_nd_infer(indices, updates, shape_input=None, shape=None, batch_dims=0):
    if shape is None:
        length = shape_input.shape[0] if shape_input.shape else None
        shape = None if length is None else (None,) * length
    _check_updates("scatter_nd", indices, updates, shape, batch_dims)
    return updates.dtype, shape


def _scatter_nd_grad(node, dy):
    indices = node.inputs[0]
    return (None, gather_nd(dy, indices, node.attrs.get("batch_dims", 0))) + (None,) * (
        len(node.inputs) - 2)


SCATTER_ND = register(OpDef("scatter_nd", _scatter_nd_kernel, _scatter_nd_infer,
                            gradient=_scatter_nd_grad))


# -- tensor_scatter_nd_update / _add --------------------------------------------------------


def _update_kernel(tensor, indices, updates):
    result = np.array(tensor, copy=True)
    result[_key("tensor_scatter_nd_update", indices, tensor.shape)] = updates
    return result


def _accumulating_kernel(op_name: str, ufunc: np.ufunc):
    """``tensor`` with each update combined by ``ufunc`` into the element it addresses
    (repeated indices combine every update)."""
    def kernel(tensor, indices, updates):
        result = np.array(tensor, copy=True)
        ufunc.at(result, _key(op_name, indices, tensor.shape), updates)
        return result
    return kernel


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


def _selection_grad(node, dy):
    """Each element's gradient goes to the values it was chosen from, shared equally among
    ties (of ``tensor``'s element and the updates at it), as in TensorFlow."""
    tensor, indices, updates = node.inputs
    result = node.outputs[0]
    from_tensor = cast(equal(tensor, result), dy.dtype)
    from_updates = cast(equal(updates, gather_nd(result, indices)), dy.dtype)
    ties = apply_op(TENSOR_SCATTER_ND_ADD, (from_tensor, indices, from_updates))
    share = divide_no_nan(dy, ties)  # no ties only where a NaN was chosen
    return multiply(share, from_tensor), None, multiply(gather_nd(share, indices), from_updates)


def _multiply_grad(node, dy):
    """``tensor`` gets ``dy`` times the updates' product; an update gets ``dy`` times the
    product of everything else at its element, which is the product without the zero updates
    divided by the update, or 0 when another update there is 0."""
    tensor, indices, updates = node.inputs
    d_tensor = multiply(dy, apply_op(TENSOR_SCATTER_ND_MULTIPLY,
                                     (ones_like(tensor), indices, updates)))
    zero = equal(updates, 0)
    nonzero = where(zero, ones_like(updates), updates)
    product_of_nonzero = apply_op(TENSOR_SCATTER_ND_MULTIPLY, (tensor, indices, nonzero))
    zeros_at = apply_op(TENSOR_SCATTER_ND_ADD, (zeros_like(tensor), indices, cast(zero, dy.dtype)))
    other_zeros = subtract(gather_nd(zeros_at, indices), cast(zero, dy.dtype))
    others = divide(gather_nd(product_of_nonzero, indices), nonzero)
    partial = where(equal(other_zeros, 0), others, zeros_like(others))
    return d_tensor, None, multiply(gather_nd(dy, indices), partial)


def _tensor_scatter_op(name: str, kernel, gradient) -> OpDef:
    return register(OpDef(name, kernel, _tensor_scatter_infer(name), gradient=gradient))


TENSOR_SCATTER_ND_UPDATE = _tensor_scatter_op("tensor_scatter_nd_update", _update_kernel,
                                              _update_grad)
TENSOR_SCATTER_ND_ADD = _tensor_scatter_op(
    "tensor_scatter_nd_add", _accumulating_kernel("tensor_scatter_nd_add", np.add), _add_grad)
TENSOR_SCATTER_ND_MAX = _tensor_scatter_op(
    "tensor_scatter_nd_max", _accumulating_kernel("tensor_scatter_nd_max", np.maximum),
    _selection_grad)
TENSOR_SCATTER_ND_MIN = _tensor_scatter_op(
    "tensor_scatter_nd_min", _accumulating_kernel("tensor_scatter_nd_min", np.minimum),
    _selection_grad)
TENSOR_SCATTER_ND_MULTIPLY = _tensor_scatter_op(
    "tensor_scatter_nd_multiply",
    _accumulating_kernel("tensor_scatter_nd_multiply", np.multiply), _multiply_grad)

# The ops whose kernels raise for an index out of range (engines that clamp or drop such an
# index silently cannot run them as they are).
INDEX_CHECKED = (GATHER_ND, SCATTER_ND, TENSOR_SCATTER_ND_UPDATE, TENSOR_SCATTER_ND_ADD,
                 TENSOR_SCATTER_ND_MAX, TENSOR_SCATTER_ND_MIN, TENSOR_SCATTER_ND_MULTIPLY)


# -- the public functions --------------------------------------------------------------------


def gather_nd(params, indices, batch_dims: int = 0, name=None) -> Tensor:
    """The slices of ``params`` at the index tuples in the last dimension of ``indices``.

    With ``batch_dims=b``, ``params`` and ``indices`` share their first ``b`` dimensions and
    each index tuple picks from its own batch element: for ``b = 1``, ``result[i] =
    gather_nd(params[i], indices[i])``. ``name`` is accepted and ignored."""
    known = constant_value(batch_dims) if isinstance(batch_dims, Tensor) else batch_dims
    if isinstance(known, np.ndarray) and known.ndim == 0 and known.dtype.kind in "iu":
        known = known.item()
    if not isinstance(known, (int, np.integer)) or isinstance(known, bool):
        raise TypeError(f"gather_nd: batch_dims must be an int known while tracing, got "
                        f"{batch_dims!r}.")
    if known < 0:
        raise ValueError(f"gather_nd: batch_dims must not be negative (as in TensorFlow), got "
                         f"{known}.")
    indices = convert_to_tensor(indices)
    if indices.ndim is not None and known >= max(indices.ndim, 1):
        raise ValueError(f"gather_nd: batch_dims={known} must be less than the rank of indices, "
                         f"{indices.ndim}.")
    return apply_op(GATHER_ND, (convert_to_tensor(params), indices),
                    {"batch_dims": int(known)} if known else {})


def gather(params, indices, axis=None, batch_dims: int = 0, name=None) -> Tensor:
    """Picks slices of ``params`` along ``axis`` at ``indices``, each in ``[0, size)``: one out
    of range is an error, a negative one too (it does not count from the end, as in TensorFlow).

    With ``batch_dims=b`` the first ``b`` dimensions of ``params`` and ``indices`` are batch
    dimensions they share, and each batch element gathers from its own: for ``b = 1``,
    ``result[i] = gather(params[i], indices[i], axis - 1)``. ``axis`` defaults to
    ``batch_dims``; a negative ``batch_dims`` counts from the rank of ``indices``. ``name`` is
    accepted and ignored."""
    batch_dims = int(batch_dims)
    if batch_dims == 0:
        return array_ops.gather(params, indices, 0 if axis is None else axis)
    params, indices = convert_to_tensor(params), convert_to_tensor(indices)
    if params.ndim is None or indices.ndim is None:
        raise ShapeError("gather: batch_dims needs params and indices of known ranks.")
    b = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
    axis = b if axis is None else int(axis)
    axis = axis + params.ndim if axis < 0 else axis
    if not 0 <= b <= indices.ndim or not b <= axis < params.ndim:
        raise ValueError(f"gather: batch_dims ({batch_dims}) must be between -rank(indices) and "
                         f"rank(indices) ({indices.ndim}), and axis ({axis}) between batch_dims "
                         f"and rank(params) - 1 ({params.ndim - 1}).")
    # The gathered axis moves next to the batch dimensions, gather_nd picks from it, and the
    # dimensions that were between them move back in front of the indices' dimensions.
    before = list(range(b)) + [axis] + list(range(b, axis)) + list(range(axis + 1, params.ndim))
    moved = transpose(params, before) if axis != b else params
    result = gather_nd(moved, expand_dims(indices, -1), batch_dims=b)
    between, picked = axis - b, indices.ndim - b
    if not between or not picked:
        return result
    after = list(range(b)) + list(range(b + picked, b + picked + between)) \
        + list(range(b, b + picked)) + list(range(b + picked + between, result.ndim))
    return transpose(result, after)


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
    return _tensor_scatter(TENSOR_SCATTER_ND_UPDATE, tensor, indices, updates)


def _tensor_scatter(op: OpDef, tensor, indices, updates) -> Tensor:
    tensor = convert_to_tensor(tensor)
    return apply_op(op, (tensor, convert_to_tensor(indices), _updates_like(tensor, updates)))


def tensor_scatter_nd_add(tensor, indices, updates) -> Tensor:
    """``tensor`` with ``updates`` added at ``indices`` (repeats add up)."""
    return _tensor_scatter(TENSOR_SCATTER_ND_ADD, tensor, indices, updates)


def tensor_scatter_nd_sub(tensor, indices, updates) -> Tensor:
    """``tensor`` with ``updates`` subtracted at ``indices`` (repeats each subtract)."""
    tensor = convert_to_tensor(tensor)
    return _tensor_scatter(TENSOR_SCATTER_ND_ADD, tensor, indices,
                           negative(_updates_like(tensor, updates)))


def tensor_scatter_nd_max(tensor, indices, updates) -> Tensor:
    """``tensor`` with each element at ``indices`` the largest of itself and its updates."""
    return _tensor_scatter(TENSOR_SCATTER_ND_MAX, tensor, indices, updates)


def tensor_scatter_nd_min(tensor, indices, updates) -> Tensor:
    """``tensor`` with each element at ``indices`` the smallest of itself and its updates."""
    return _tensor_scatter(TENSOR_SCATTER_ND_MIN, tensor, indices, updates)
