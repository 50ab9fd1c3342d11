"""Shape and dtype inference helpers shared by the op families.

Rules work on partial shapes: ``None`` is a dimension unknown while tracing and a shape of
``None`` has unknown rank. Errors name the op and the shapes involved, at trace time.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from typing import Sequence

import numpy as np

from runtime.errors import GraphTypeError, ShapeError
from runtime.source_location import user_expression
from runtime.tensor import Shape, ShapeTuple, format_shape

_TUPLES = (tuple, ShapeTuple)


def broadcast(op_name: str, *shapes: Shape | None) -> Shape | None:
    """NumPy broadcasting on partial shapes."""
    if len(shapes) == 2:  # most calls: a binary op; shapes equal, or one of them a scalar's
        a, b = shapes
        if a is None or b is None:
            return None
        if type(a) in _TUPLES and type(b) in _TUPLES:
            if not b:
                return tuple(a)
            if not a:
                return tuple(b)
            if tuple.__eq__(a, b):  # (ShapeTuple's own == is a Python call)
                return tuple(a)
    elif any(shape is None for shape in shapes):
        return None
    # Most ops of a trace combine one shape with itself or with scalars: that shape.
    ranked = [shape for shape in shapes if shape]
    if all(shape == ranked[0] for shape in ranked):
        return tuple(ranked[0]) if ranked else ()
    rank = max((len(shape) for shape in shapes), default=0)
    plain = [tuple(shape) for shape in shapes]  # indexed in C (a ShapeTuple's [] is Python)
    result = []
    for axis in range(rank):
        dims = [shape[axis - rank + len(shape)] for shape in plain if axis - rank + len(shape) >= 0]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ShapeError(f"{op_name}: shapes " + " and ".join(format_shape(s) for s in shapes)
                             + " cannot be broadcast together.")
        if known:
            result.append(known.pop())
        elif any(d is None for d in dims):
            result.append(None)
        else:
            result.append(1)
    return tuple(result)


@lru_cache(maxsize=None)
def ufunc_result_dtype(op_name: str, ufunc: np.ufunc, in_dtypes: tuple) -> np.dtype:
    """The dtype NumPy's ufunc produces for these input dtypes (exactly what the kernel does)."""
    try:
        # np.dtype(d): NumPy takes only its own dtypes here, not TensorFlow's shown ones.
        resolved = ufunc.resolve_dtypes(tuple(np.dtype(d) for d in in_dtypes)
                                        + (None,) * ufunc.nout)
    except (TypeError, np.exceptions.DTypePromotionError) as error:
        names = ", ".join(d.name for d in in_dtypes)
        raise GraphTypeError(f"{op_name}: not defined for dtype{'s' if len(in_dtypes) > 1 else ''} "
                             f"{names} ({error}).") from None
    return resolved[-1]


def normalize_axis(op_name: str, axis: int, rank: int | None) -> int:
    if rank is None:
        if axis < 0:
            raise ShapeError(f"{op_name}: a negative axis ({axis}) needs a tensor of known rank.")
        return axis
    if not -rank <= axis < max(rank, 1):
        raise ShapeError(f"{op_name}: axis {axis} is out of range for a tensor of rank {rank}.")
    return axis % rank if rank else 0


def normalize_axes(op_name: str, axis, rank: int | None) -> tuple[int, ...] | None:
    """``None`` (all axes) or a sorted tuple of non-negative axes."""
    if axis is None:
        return None
    scalar = isinstance(axis, (int, np.integer)) or getattr(axis, "shape", None) == ()
    axes = (axis,) if scalar else tuple(axis)  # an int, a 0-d tensor, or a sequence of them
    normalized = tuple(sorted({normalize_axis(op_name, int(a), rank) for a in axes}))
    return normalized


def reduced_shape(shape: Shape | None, axes: tuple[int, ...] | None, keepdims: bool) -> Shape | None:
    if shape is None:
        return None
    if axes is None:
        return tuple(1 for _ in shape) if keepdims else ()
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def num_elements(shape: Shape | None) -> int | None:
    if shape is None or any(d is None for d in shape):
        return None
    return int(np.prod(shape, dtype=np.int64))


def static_shape_arg(op_name: str, shape, dynamic_ok: bool = False) -> Shape:
    """A shape given as a Python list/tuple of ints (``-1`` allowed where the op says so).

    ``dynamic_ok``: the op also takes dimensions as tensors (``rt.shape(x)[0]``), which the
    message about an unknown dimension then suggests."""
    try:
        return tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        message = _unknown_dimension(op_name, shape, dynamic_ok) if isinstance(
            shape, (list, tuple)) else None
        raise TypeError(message or f"{op_name}: expected a shape as a list of ints, got "
                                   f"{shape!r}.") from None


def _unknown_dimension(op_name: str, shape, dynamic_ok: bool) -> str | None:
    """Why a shape with a ``None`` (an unknown dimension of a static shape, ``x.shape[0]``) or
    a tensor cannot be used, and what to write instead (None: neither is in ``shape``)."""
    position = next((i for i, d in enumerate(shape) if d is None), None)
    if position is None and not dynamic_ok:
        position = next((i for i, d in enumerate(shape)
                         if hasattr(d, "dtype") and not isinstance(d, np.generic)), None)
    if position is None:
        return None
    if shape[position] is not None:  # a tensor, where only ints known while tracing will do
        return (f"{op_name}: dimension {position} of the shape is a tensor, but {op_name} "
                f"needs the shape known while tracing (Python ints). Trace the function with "
                f"fully known shapes (an input_signature without None), or compute that size "
                f"in Python.")
    source, tensor, index = _written_as(shape, position)
    origin = f", from `{source}`" if source else ""
    happened = (f"{op_name}: the shape {_shape_text(shape)} has an unknown dimension (None) at "
                f"position {position}{origin}. A static shape (x.shape) holds None for a "
                f"dimension known only when the graph runs, such as one traced with None in a "
                f"TensorSpec.")
    if not dynamic_ok:
        return (f"{happened} {op_name} needs every dimension known while tracing: trace the "
                f"function with fully known shapes (an input_signature without None).")
    if tensor is None:
        fix = ("Use the dynamic shape instead, `rt.shape(x)[i]` for `x.shape[i]`: a tensor that "
               "holds the size when the graph runs.")
    else:
        dynamic = f"rt.shape({tensor})" + ("" if index is None else f"[{index}]")
        fix = (f"Use `{dynamic}` instead, the dynamic shape: a tensor that holds the "
               f"size{'' if index is not None else 's'} when the graph runs.")
    if op_name == "reshape":
        fix += " For reshape, -1 also stands for the one dimension it works out."
    return f"{happened} {fix}"


def _shape_text(shape) -> str:
    return "[" + ", ".join("None" if d is None else "<tensor>" if hasattr(d, "dtype")
                           and not isinstance(d, np.generic) else str(d) for d in shape) + "]"


def _written_as(shape, position: int) -> tuple[str | None, str | None, str | None]:
    """What the user wrote for dimension ``position`` of ``shape``, read from the expression
    running in their code: ``("x.shape[0]", "x", "0")`` for ``rt.zeros([x.shape[0], 3])``,
    ``("x.shape", "x", None)`` for ``rt.zeros(x.shape)``; Nones when it cannot
    tell (the shape was built elsewhere)."""
    text = user_expression()
    try:
        tree = ast.parse(text.strip(), mode="eval") if text else None
    except SyntaxError:
        tree = None
    if tree is None:
        return None, None, None
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == len(shape):
            element = node.elts[position]
            if isinstance(element, ast.Subscript) and isinstance(element.value, ast.Attribute) \
                    and element.value.attr == "shape":
                return (ast.unparse(element), ast.unparse(element.value.value),
                        ast.unparse(element.slice))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for argument in list(node.args) + [k.value for k in node.keywords]:
                if isinstance(argument, ast.Attribute) and argument.attr == "shape":
                    return ast.unparse(argument), ast.unparse(argument.value), None
    return None, None, None


def same_dtype(op_name: str, values: Sequence) -> np.dtype:
    dtypes_seen = {v.dtype for v in values}
    if len(dtypes_seen) != 1:
        names = ", ".join(sorted(d.name for d in dtypes_seen))
        raise GraphTypeError(f"{op_name}: all inputs must have the same dtype, got {names}; "
                             f"use rt.cast to convert.")
    return dtypes_seen.pop()


def index_range_error(indices: np.ndarray, bounds, shape: Shape, first_dim: int = 0) -> str | None:
    """Why ``indices`` do not index a tensor of ``shape``, or None when every one is in range.

    ``bounds`` is one size, when every entry indexes dimension ``first_dim`` (``gather``), or a
    sequence of sizes, one per coordinate in the last axis of ``indices``, coordinate ``j``
    indexing dimension ``first_dim + j`` (``gather_nd``). An index must be in ``[0, size)``,
    as in TensorFlow: a negative one does not count from the end. The message names the first
    bad entry, its position in ``indices`` and the range it should be in. Shared by the kernels
    and the exporters so that each says the same."""
    limit = np.asarray(bounds, dtype=np.int64)
    indices = np.asarray(indices)
    outside = (indices < 0) | (indices >= limit)
    if not np.any(outside):
        return None
    position = tuple(int(i) for i in np.argwhere(outside)[0])
    coordinate = position[-1] if limit.ndim else 0
    size = int(limit[coordinate] if limit.ndim else limit)
    where = f"indices[{', '.join(map(str, position))}]" if position else "indices"
    value = indices[position]
    if value < 0:
        fix = ("A negative index does not count from the end here, as it would in NumPy "
               "(TensorFlow rejects it too); add the axis size to it first.")
    else:
        fix = f"Keep the indices below the axis size, {size}."
    return (f"{where} = {value} is not in [0, {size}): index {value} is out of range for axis "
            f"{first_dim + coordinate} of size {size}, in a tensor of shape "
            f"{format_shape(shape)}. {fix}")
