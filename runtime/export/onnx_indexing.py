"""ONNX for ``x[key]`` (``getitem``) and its gradient (``getitem_grad``).

The key is applied one item at a time, left to right: a slice is a ``Slice`` on its axis, an
integer (or a scalar integer tensor) a ``Gather`` that removes the axis, ``None`` an
``Unsqueeze``, an integer tensor a ``Gather`` that puts the index's dimensions there, a bool
mask ``Compress`` (one axis) or ``GatherND`` over ``NonZero`` (leading axes). NumPy moves the
index's dimensions to the front when the advanced items (the tensor and the ints) are not
adjacent; a ``Transpose`` does the same. Several tensor indices (NumPy broadcasts them
together) are refused.

The gradient scatters ``dy`` into zeros: the same key applied to a tensor of flat positions
says where each element of ``dy`` goes, and ``ScatterElements`` with ``reduction="add"`` adds
it there (repeated indices accumulate, as ``np.add.at`` does).
"""

from __future__ import annotations

import numpy as np

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder
from runtime.ops.indexing import GETITEM, GETITEM_GRAD, _Input

_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def _is_input(part) -> bool:
    return isinstance(part, _Input)


def _consumed(item, index_values) -> int:
    if item is None or item is Ellipsis:
        return 0
    if _is_input(item) and index_values[item.index].dtype == np.bool_:
        shape = index_values[item.index].shape
        if shape is None:
            raise ExportError("a bool mask of unknown rank cannot be exported as an index.")
        return len(shape)
    return 1


def apply_key(b: Builder, x: str, rank: int | None, spec, names: list[str], values: list) -> str:
    """``x[key]`` for the getitem ``spec`` whose tensors are ``names`` (of ``values``)."""
    if rank is None:
        raise ExportError("indexing a tensor of unknown rank cannot be exported; give the "
                          "function an input_signature with known ranks.")
    arrays = [item for item in spec if _is_input(item) and values[item.index].shape != ()]
    if len(arrays) > 1:
        raise ExportError("indexing with several tensors at once (NumPy broadcasts them "
                          "together) cannot be exported; index with one tensor at a time.")
    consumed = sum(_consumed(item, values) for item in spec)
    items = []
    for item in spec:
        items.extend([slice(None)] * (rank - consumed) if item is Ellipsis else [item])
    position, advanced, array_at = 0, [], None
    for index, item in enumerate(items):
        if item is None:
            x = b.emit("Unsqueeze", [x, b.int64s([position])])
            position += 1
        elif isinstance(item, slice):
            x = _slice(b, x, position, item, names, values)
            position += 1
        elif isinstance(item, int) or values[item.index].shape == ():
            if not isinstance(item, int) and values[item.index].dtype == np.bool_:
                raise ExportError("indexing with a bool scalar cannot be exported.")
            advanced.append(index)
            scalar = b.scalar(item, np.int64) if isinstance(item, int) \
                else b.cast(names[item.index], values[item.index].dtype, np.int64)
            x = b.emit("Gather", [x, scalar], axis=position)
        elif values[item.index].dtype == np.bool_:
            advanced.append(index)
            array_at = (position, 1)
            x = _mask(b, x, position, names[item.index], values[item.index])
            position += 1
        else:
            advanced.append(index)
            ndim = len(values[item.index].shape)
            array_at = (position, ndim)
            indices = b.cast(names[item.index], values[item.index].dtype, np.int64)
            x = b.emit("Gather", [x, indices], axis=position)
            position += ndim
    if array_at is not None and advanced[-1] - advanced[0] + 1 != len(advanced):
        trailing = 0 if Ellipsis in spec else rank - consumed
        x = _move_to_front(b, x, array_at, position + trailing)
    return x


def _slice(b: Builder, x: str, axis: int, item: slice, names, values) -> str:
    if item.start is None and item.stop is None and item.step is None:
        return x
    step = item.step if item.step is not None else 1

    def bound(part, default_up: int, default_down: int) -> str:
        if _is_input(part):
            value = b.cast(names[part.index], values[part.index].dtype, np.int64)
            return b.emit("Reshape", [value, b.int64s([1])])
        if part is not None:
            return b.int64s([part])
        if isinstance(step, int):
            return b.int64s([default_up if step > 0 else default_down])
        down = b.emit("Less", [steps, b.int64s([0])])
        return b.emit("Where", [down, b.int64s([default_down]), b.int64s([default_up])])

    steps = bound(step, 1, 1)
    starts = bound(item.start, 0, _INT64_MAX)
    ends = bound(item.stop, _INT64_MAX, _INT64_MIN)
    return b.emit("Slice", [x, starts, ends, b.int64s([axis]), steps])


def _mask(b: Builder, x: str, axis: int, mask: str, value) -> str:
    if len(value.shape) == 1:
        return b.emit("Compress", [x, mask], axis=axis)
    if axis != 0:
        raise ExportError("a bool mask over several axes after other index items cannot be "
                          "exported; put the mask first or flatten the axes.")
    return b.emit("GatherND", [x, b.emit("Transpose", [b.emit("NonZero", [mask])], perm=[1, 0])])


def _move_to_front(b: Builder, x: str, array_at: tuple[int, int], rank: int) -> str:
    """NumPy's rule for advanced items apart from each other: the index's dimensions first."""
    start, ndim = array_at
    moved = list(range(start, start + ndim))
    perm = moved + [d for d in range(rank) if d not in moved]
    return b.emit("Transpose", [x], perm=perm)


def _getitem(b: Builder, node, ins):
    x = node.inputs[0]
    rank = None if x.shape is None else len(x.shape)
    return [apply_key(b, ins[0], rank, node.attrs["spec"], ins[1:], node.inputs[1:])]


def _getitem_grad(b: Builder, node, ins):
    spec, static = node.attrs["spec"], node.attrs["shape"]
    known = static is not None and None not in static
    dy = node.inputs[0]
    if known:
        shape, rank, indices, values = b.int64s(static), len(static), ins[1:], node.inputs[1:]
    else:
        shape = b.cast(ins[-1], node.inputs[-1].dtype, np.int64)
        rank = None if static is None else len(static)
        indices, values = ins[1:-1], node.inputs[1:-1]
    count = b.emit("ReduceProd", [shape], keepdims=0)
    positions = b.emit("Reshape", [b.emit("Range", [b.scalar(0, np.int64), count,
                                                     b.scalar(1, np.int64)]), shape])
    picked = apply_key(b, positions, rank, spec, indices, values)
    flat_shape = b.int64s([-1])
    zeros = b.emit("Expand", [b.scalar(0, dy.dtype), b.emit("Reshape", [count, b.int64s([1])])])
    scattered = b.emit("ScatterElements", [zeros, b.emit("Reshape", [picked, flat_shape]),
                                           b.emit("Reshape", [ins[0], flat_shape])],
                       axis=0, reduction="add")
    return [b.emit("Reshape", [scattered, shape])]


RULES = {GETITEM: _getitem, GETITEM_GRAD: _getitem_grad}
