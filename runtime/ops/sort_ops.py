"""Sorting and searching: ``argsort``, ``sort``, ``top_k``, ``unique``, ``searchsorted``.

Sorting is two ops: ``argsort`` gives the order (stable, so ties keep their positions, which
is also ``top_k``'s order for equal values) and ``take_along_axis`` picks the values in it.
``sort`` and ``top_k`` are compositions of the two, so their gradient is the one of
``take_along_axis``: ``dy`` added back at the positions the values came from.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from runtime import dtypes
from runtime.errors import GraphTypeError, ShapeError
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.indexing import getitem
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.ops.shapes import normalize_axis
from runtime.tensor import Tensor, format_shape

_DIRECTIONS = ("ASCENDING", "DESCENDING")


class TopKV2(NamedTuple):
    """What ``top_k`` returns, with TensorFlow's names."""

    values: Tensor
    indices: Tensor


class Unique(NamedTuple):
    """What ``unique`` returns, with TensorFlow's names."""

    y: Tensor
    idx: Tensor


def _argsort_kernel(x, axis, descending):
    if not descending:
        return np.argsort(x, axis=axis, kind="stable").astype(np.int32)
    # A stable descending order: sort the reversed values ascending and read the result
    # backwards, so equal values keep their original order (negating would overflow ints).
    size = x.shape[axis]
    order = np.argsort(np.flip(x, axis), axis=axis, kind="stable")
    return (size - 1 - np.flip(order, axis)).astype(np.int32)


def _argsort_infer(x, axis, descending):
    if x.dtype.kind not in "iufb":
        raise GraphTypeError(f"argsort: not defined for dtype {x.dtype.name}.")
    return dtypes.int32, x.shape


ARGSORT = register(OpDef("argsort", _argsort_kernel, _argsort_infer, gradient=NOT_DIFFERENTIABLE))


def _grid_key(indices: np.ndarray, axis: int) -> tuple:
    """The NumPy key that picks ``x[..., indices[i...], ...]`` along ``axis``: open ranges on
    the other axes, broadcast against ``indices``."""
    key = list(np.ogrid[tuple(slice(0, n) for n in indices.shape)])
    key[axis] = indices
    return tuple(key)


def _take_kernel(x, indices, axis):
    return x[_grid_key(indices, axis)]


def _take_infer(x, indices, axis):
    if indices.dtype.kind not in "iu":
        raise GraphTypeError(f"take_along_axis: indices must be integers, got {indices.dtype.name}.")
    return x.dtype, indices.shape


def _take_grad(node, dy):
    x, indices = node.inputs
    return apply_op(TAKE_ALONG_AXIS_GRAD, (dy, indices, x), node.attrs), None


def _take_grad_kernel(dy, indices, like, axis):
    result = np.zeros(like.shape, dy.dtype)
    np.add.at(result, _grid_key(indices, axis), dy)  # a repeated index adds up
    return result


def _take_grad_gradient(node, ddx):
    """Linear in ``dy``; its adjoint is ``take_along_axis`` at the same indices."""
    indices = node.inputs[1]
    return apply_op(TAKE_ALONG_AXIS, (ddx, indices), node.attrs), None, None


TAKE_ALONG_AXIS = register(OpDef("take_along_axis", _take_kernel, _take_infer,
                                 gradient=_take_grad))
TAKE_ALONG_AXIS_GRAD = register(OpDef(
    "take_along_axis_grad", _take_grad_kernel, lambda dy, indices, like, axis: (dy.dtype, like.shape),
    gradient=_take_grad_gradient))


def _unique_kernel(x, out_type):
    values, first, inverse = np.unique(x, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # TensorFlow lists values as they first occur
    position = np.empty_like(order)
    position[order] = np.arange(order.size)
    return values[order], position[inverse.reshape(-1)].astype(out_type)


def _unique_infer(x, out_type):
    if x.shape is not None and len(x.shape) != 1:
        raise ShapeError(f"unique: the input must be a vector, got shape {format_shape(x.shape)}.")
    return (x.dtype, (None,)), (out_type, x.shape)


UNIQUE = register(OpDef("unique", _unique_kernel, _unique_infer, num_outputs=2,
                        gradient=NOT_DIFFERENTIABLE))


def _searchsorted_kernel(sorted_sequence, values, side, out_type):
    rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    queries = values.reshape(-1, values.shape[-1])
    if rows.shape[0] != queries.shape[0]:
        raise ValueError(f"the leading dimensions of sorted_sequence "
                         f"{format_shape(sorted_sequence.shape)} and values "
                         f"{format_shape(values.shape)} must be equal.")
    found = [np.searchsorted(row, query, side=side) for row, query in zip(rows, queries)]
    return np.array(found, dtype=out_type).reshape(values.shape)


def _searchsorted_infer(sorted_sequence, values, side, out_type):
    a, b = sorted_sequence.shape, values.shape
    if a is not None and b is not None:
        if len(a) == 0 or len(a) != len(b) or any(
                p is not None and q is not None and p != q for p, q in zip(a[:-1], b[:-1])):
            raise ShapeError(f"searchsorted: sorted_sequence {format_shape(a)} and values "
                             f"{format_shape(b)} must have the same rank (at least 1) and the "
                             f"same leading dimensions.")
    return out_type, b


SEARCHSORTED = register(OpDef("searchsorted", _searchsorted_kernel, _searchsorted_infer,
                              gradient=NOT_DIFFERENTIABLE))


def _axis(op_name: str, x: Tensor, axis: int) -> int:
    rank = None if x.shape is None else len(x.shape)
    if rank == 0:
        raise ShapeError(f"{op_name}: the input must have at least one dimension, got a scalar.")
    return normalize_axis(op_name, int(axis), rank)


def _direction(op_name: str, direction: str) -> bool:
    if direction not in _DIRECTIONS:
        raise ValueError(f"{op_name}: direction must be 'ASCENDING' or 'DESCENDING', got "
                         f"{direction!r}.")
    return direction == "DESCENDING"


def argsort(values, axis: int = -1, direction: str = "ASCENDING", stable: bool = False) -> Tensor:
    """The int32 indices that sort ``values`` along ``axis``. The order is always stable (equal
    values keep their order), which ``stable=False`` allows."""
    x = convert_to_tensor(values)
    attrs = {"axis": _axis("argsort", x, axis), "descending": _direction("argsort", direction)}
    return apply_op(ARGSORT, (x,), attrs)


def sort(values, axis: int = -1, direction: str = "ASCENDING") -> Tensor:
    """``values`` sorted along ``axis``."""
    x = convert_to_tensor(values)
    axis = _axis("sort", x, axis)
    order = apply_op(ARGSORT, (x,), {"axis": axis, "descending": _direction("sort", direction)})
    return apply_op(TAKE_ALONG_AXIS, (x, order), {"axis": axis})


def top_k(input, k: int = 1, sorted: bool = True) -> TopKV2:  # noqa: A002
    """The ``k`` largest entries along the last axis and their int32 indices; equal values
    come in the order of their indices. The result is always sorted."""
    x = convert_to_tensor(input)
    axis = _axis("top_k", x, -1)
    k = int(k)
    size = None if x.shape is None else x.shape[-1]
    if k < 0 or (size is not None and k > size):
        raise ShapeError(f"top_k: k ({k}) must be between 0 and the size of the last dimension "
                         f"of the input, shape {format_shape(x.shape)}.")
    order = apply_op(ARGSORT, (x,), {"axis": axis, "descending": True})
    indices = getitem(order, (Ellipsis, slice(None, k)))
    return TopKV2(apply_op(TAKE_ALONG_AXIS, (x, indices), {"axis": axis}), indices)


def unique(x, out_idx=dtypes.int32) -> Unique:
    """The distinct values of a vector in the order they first occur, and for each element
    the position of its value among them."""
    return Unique(*apply_op(UNIQUE, (convert_to_tensor(x),),
                            {"out_type": dtypes.as_dtype(out_idx)}))


def searchsorted(sorted_sequence, values, side: str = "left", out_type=dtypes.int32) -> Tensor:
    """Where each of ``values`` would go in ``sorted_sequence`` (searched along the last axis,
    row by row over the leading dimensions) to keep it sorted."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}.")
    return apply_op(SEARCHSORTED, (convert_to_tensor(sorted_sequence), convert_to_tensor(values)),
                    {"side": side, "out_type": dtypes.as_dtype(out_type)})
