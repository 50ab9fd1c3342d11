"""Array functions that are exact compositions of existing ops (slices, concatenation,
broadcasting, comparisons): ``one_hot``, ``split``, ``tile``, ``slice``, ``reverse``,
``repeat``, ``linspace``, ``meshgrid``, ``boolean_mask``, ``roll``, ``sequence_mask``,
``parallel_stack``. Each traces to those ops, so its
gradient, constant folding, serialization and export come with them."""

from __future__ import annotations

import builtins

import numpy as np

from runtime import dtypes, tracing
from runtime.errors import ShapeError
from runtime.ops import array_ops
from runtime.ops.array_ops import (EYE, cast, concat, expand_dims, gather, reshape, shape, size,
                                   stack, where)
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor, static_array
from runtime.ops.indexing import getitem
from runtime.ops.math_ops import add, divide, equal, floordiv, less, mod, multiply, subtract
from runtime.ops.reduce_ops import reduce_max
from runtime.ops.shapes import normalize_axis, static_shape_arg
from runtime.tensor import SymbolicTensor, Tensor, format_shape

newaxis = None  # x[:, rt.newaxis] adds a dimension, as NumPy's None does


def _rank(op_name: str, x: Tensor) -> int:
    if x.shape is None:
        raise ShapeError(f"{op_name}: the input must have a known rank.")
    return len(x.shape)


def _static_ints(op_name: str, what: str, value) -> list[int]:
    """A list of ints given as a list, an array or a tensor known while tracing."""
    array = static_array(op_name, what, value)
    if array.dtype.kind not in "iu" or array.ndim > 1:
        raise TypeError(f"{op_name}: {what} must be an int or a list of ints, got {value!r}.")
    return [int(v) for v in array.reshape(-1)]


def _along(axis: int, item) -> tuple:
    return (builtins.slice(None),) * axis + (item,)


def one_hot(indices, depth: int, on_value=None, off_value=None, axis: int | None = None,
            dtype=None) -> Tensor:
    """``on_value`` where the new dimension's position equals the index, ``off_value``
    elsewhere; an index outside ``[0, depth)`` gives a row of ``off_value``."""
    indices = convert_to_tensor(indices)
    if indices.dtype.kind not in "iu":
        raise TypeError(f"one_hot: indices must be integers, got {indices.dtype.name}.")
    if dtype is None:  # that of on_value or off_value as tensors (5 -> int32), as in TensorFlow
        dtype = next((convert_to_tensor(v).dtype for v in (on_value, off_value)
                      if v is not None), dtypes.float32)
    dtype = dtypes.as_dtype(dtype)
    on = convert_to_tensor(1 if on_value is None else on_value, dtype)
    off = convert_to_tensor(0 if off_value is None else off_value, dtype)
    rank = _rank("one_hot", indices)
    axis = rank if axis is None or axis == -1 else normalize_axis("one_hot", axis, rank + 1)
    positions = reshape(array_ops.range(int(depth), dtype=indices.dtype),
                        [int(depth)] + [1] * (rank - axis))
    return where(equal(expand_dims(indices, axis), positions), on, off)


def split(value, num_or_size_splits, axis: int = 0, num: int | None = None) -> list[Tensor]:
    """``value`` cut along ``axis`` into equal parts (an int) or parts of the given sizes
    (one size may be -1: the rest)."""
    x = convert_to_tensor(value)
    axis = normalize_axis("split", int(axis), _rank("split", x))
    dim = x.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        parts = int(num_or_size_splits)
        if parts <= 0 or (dim is not None and dim % parts):
            raise ShapeError(f"split: cannot split dimension {axis} of shape "
                             f"{format_shape(x.shape)} into {parts} equal parts.")
        if dim is None:  # equal parts of a size known when the graph runs
            step = floordiv(shape(x)[axis], parts)
            return [getitem(x, _along(axis, builtins.slice(multiply(step, i), multiply(step, i + 1))))
                    for i in builtins.range(parts)]
        sizes = [dim // parts] * parts
    else:
        sizes = _static_ints("split", "size_splits", num_or_size_splits)
        if sizes.count(-1) > 1 or any(s < -1 for s in sizes):
            raise ValueError(f"split: size_splits {sizes} may have one -1 and no other "
                             f"negative size.")
        if dim is None:
            raise ShapeError(f"split: dimension {axis} of shape {format_shape(x.shape)} must be "
                             f"known to split it into sizes.")
        if -1 in sizes:
            sizes[sizes.index(-1)] = dim - (sum(sizes) + 1)
        if sum(sizes) != dim or min(sizes, default=0) < 0:
            raise ShapeError(f"split: sizes {sizes} do not add up to dimension {axis} of shape "
                             f"{format_shape(x.shape)}.")
    bounds = np.cumsum([0] + sizes).tolist()
    return [getitem(x, _along(axis, builtins.slice(start, stop)))
            for start, stop in zip(bounds[:-1], bounds[1:])]


def tile(input, multiples) -> Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along dimension ``i`` (copies concatenated)."""
    x = convert_to_tensor(input)
    counts = _static_ints("tile", "multiples", multiples)
    if len(counts) != _rank("tile", x) or any(c < 0 for c in counts):
        raise ShapeError(f"tile: multiples {counts} must be one non-negative count per "
                         f"dimension of the input, shape {format_shape(x.shape)}.")
    for axis, count in enumerate(counts):
        if count == 0:
            x = getitem(x, _along(axis, builtins.slice(0, 0)))
        elif count > 1:
            x = concat([x] * count, axis)
    return x


def slice(input_, begin, size) -> Tensor:  # noqa: A001
    """``size[i]`` elements from ``begin[i]`` along each dimension (-1: to the end)."""
    x = convert_to_tensor(input_)
    starts = _static_ints("slice", "begin", begin)
    sizes = _static_ints("slice", "size", size)
    rank = _rank("slice", x)
    if len(starts) != rank or len(sizes) != rank:
        raise ValueError(f"slice: begin {starts} and size {sizes} must have one entry per "
                         f"dimension of the input, shape {format_shape(x.shape)}.")
    key = []
    for axis, (start, length, dim) in enumerate(zip(starts, sizes, x.shape)):
        stop = None if length == -1 else start + length
        if start < 0 or length < -1 or (dim is not None and (
                start > dim or (stop is not None and stop > dim))):
            raise ShapeError(f"slice: begin {starts} and size {sizes} are out of range for an "
                             f"input of shape {format_shape(x.shape)} (dimension {axis}).")
        key.append(builtins.slice(start, stop))
    return getitem(x, tuple(key))


def reverse(tensor, axis) -> Tensor:
    """``tensor`` with the order of its elements reversed along each of ``axis``."""
    x = convert_to_tensor(tensor)
    rank = _rank("reverse", x)
    axes = {normalize_axis("reverse", a, rank) for a in _static_ints("reverse", "axis", axis)}
    return getitem(x, tuple(builtins.slice(None, None, -1) if a in axes else builtins.slice(None)
                            for a in builtins.range(rank)))


def parallel_stack(values) -> Tensor:
    """``stack(values)`` inside a traced function; eagerly a ``RuntimeError``, as TensorFlow
    raises (its op copies each value in as it is ready, which needs a graph)."""
    if not tracing.is_tracing():
        raise RuntimeError("tf.parallel_stack() is not compatible with eager execution: call "
                           "it inside a tf.function, or use tf.stack.")
    return stack(values)


def repeat(input, repeats, axis: int | None = None) -> Tensor:  # noqa: A002
    """Each element repeated ``repeats`` times (or ``repeats[i]`` times for element ``i``)
    along ``axis``; ``axis=None`` repeats the flattened input."""
    x = convert_to_tensor(input)
    if axis is None:
        x, axis = reshape(x, [-1]), 0
    axis = normalize_axis("repeat", int(axis), _rank("repeat", x))
    dim = x.shape[axis]
    if dim is None:
        raise ShapeError(f"repeat: dimension {axis} of shape {format_shape(x.shape)} must be "
                         f"known.")
    counts = _static_ints("repeat", "repeats", repeats)
    if len(counts) not in (1, dim) or any(c < 0 for c in counts):
        raise ValueError(f"repeat: repeats {counts} must be one non-negative count or one per "
                         f"element of dimension {axis} of shape {format_shape(x.shape)}.")
    index = np.repeat(np.arange(dim, dtype=np.int64), counts if len(counts) == dim else counts[0])
    # The axis counted from the end: a gather along axis 0 would give rows (IndexedSlices) as
    # the gradient, and TensorFlow's repeat gives a dense one.
    return gather(x, index, axis=axis - x.ndim)


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32):
    """The identity matrix (ones on the diagonal), repeated along ``batch_shape`` if given."""
    if isinstance(num_rows, SymbolicTensor) or isinstance(num_columns, SymbolicTensor):
        raise TypeError("eye: num_rows and num_columns must be known while tracing (Python ints).")
    rows = int(num_rows)
    columns = rows if num_columns is None else int(num_columns)
    matrix = apply_op(EYE, (), {"n": rows, "m": columns,
                                "dtype": dtypes.as_dtype(dtype)})
    if batch_shape is None:
        return matrix
    batch = static_shape_arg("eye", batch_shape)
    return broadcast_to(matrix, tuple(batch) + tuple(matrix.shape))


def linspace(start, stop, num: int, axis: int = 0) -> Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), computed as
    NumPy's ``linspace`` does (``start + i * step``, the last value exactly ``stop``);
    ``start`` and ``stop`` may be tensors of one shape, with the values along ``axis``; two
    integer bounds give float64 values, as in TensorFlow."""
    # A Python number takes the other bound's dtype (a float64 tensor and 1.0: float64).
    if isinstance(start, Tensor) and not isinstance(stop, Tensor):
        start, stop = start, convert_to_tensor(stop, start.dtype)
    elif isinstance(stop, Tensor) and not isinstance(start, Tensor):
        start, stop = convert_to_tensor(start, stop.dtype), stop
    start, stop = convert_to_tensor(start), convert_to_tensor(stop)
    if start.dtype.kind in "iu" and stop.dtype == start.dtype:  # integers: float64 values
        start, stop = cast(start, dtypes.float64), cast(stop, dtypes.float64)
    if start.dtype.kind != "f" or stop.dtype != start.dtype:
        raise TypeError(f"linspace: start and stop must be floats of one dtype, got "
                        f"{start.dtype.name} and {stop.dtype.name}.")
    num = int(num)
    if num < 0:
        raise ValueError(f"linspace: num must not be negative, got {num}.")
    rank = _rank("linspace", start) + 1
    axis = normalize_axis("linspace", int(axis), rank)
    first, last = expand_dims(start, axis), expand_dims(stop, axis)
    if num <= 1:
        return getitem(first, _along(axis, builtins.slice(0, num)))
    steps = reshape(cast(array_ops.range(num - 1), start.dtype), [num - 1] + [1] * (rank - 1 - axis))
    step = divide(subtract(last, first), num - 1)
    return concat([add(first, multiply(steps, step)), last], axis)


def meshgrid(*args, indexing: str = "xy") -> list[Tensor]:
    """Coordinate grids from vectors: with ``indexing='xy'`` the first two dimensions are
    swapped (Cartesian), with ``'ij'`` they follow the arguments (matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}.")
    vectors = [reshape(convert_to_tensor(a), [-1]) for a in args]
    order = list(builtins.range(len(vectors)))
    if indexing == "xy" and len(vectors) > 1:
        order[0], order[1] = 1, 0
    dims = [vectors[i].shape[0] if vectors[i].shape[0] is not None else size(vectors[i])
            for i in order]
    grids = []
    for i, vector in enumerate(vectors):
        position = order.index(i)
        column = [1] * len(vectors)
        column[position] = -1
        grids.append(broadcast_to(reshape(vector, column), dims))
    return grids


def boolean_mask(tensor, mask, axis: int | None = None) -> Tensor:
    """The elements (or slices) of ``tensor`` where ``mask`` is true, flattened over the
    mask's dimensions, which start at ``axis`` (default 0)."""
    x, mask = convert_to_tensor(tensor), convert_to_tensor(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"boolean_mask: the mask must be bool, got {mask.dtype.name}.")
    axis = 0 if axis is None else normalize_axis("boolean_mask", int(axis), _rank("boolean_mask", x))
    mask_rank = _rank("boolean_mask", mask)
    covered = x.shape[axis:axis + mask_rank]
    if mask_rank == 0 or len(covered) != mask_rank or any(
            a is not None and b is not None and a != b for a, b in zip(covered, mask.shape)):
        raise ValueError(f"boolean_mask: a mask of shape {format_shape(mask.shape)} does not "
                         f"match dimensions {axis} on of a tensor of shape "
                         f"{format_shape(x.shape)}.")
    return getitem(x, _along(axis, mask))


def roll(input, shift, axis) -> Tensor:  # noqa: A002
    """``input`` with its elements moved ``shift`` places along ``axis``, those pushed past the
    end coming back at the start (``np.roll``). ``shift`` and ``axis`` are ints or lists of one
    length (an axis named twice moves by the sum); ``shift`` may be a tensor computed in the
    graph. The gradient is the roll back."""
    x = convert_to_tensor(input)
    rank = _rank("roll", x)
    axes = [normalize_axis("roll", a, rank) for a in _static_ints("roll", "axis", axis)]
    shifts = _shifts(shift, len(axes))
    for along, by in zip(axes, shifts):
        x = _roll_along(x, by, along)
    return x


def _shifts(shift, count: int) -> list:
    """One shift per axis: Python ints when known while tracing, scalar tensors otherwise."""
    known = constant_value(shift) if isinstance(shift, Tensor) else shift
    if known is not None:
        values = _static_ints("roll", "shift", known)
    else:
        if shift.dtype.kind not in "iu" or (shift.ndim is not None and shift.ndim > 1):
            raise TypeError(f"roll: shift must be an int or a list of ints, got a tensor of "
                            f"dtype {shift.dtype.name} and shape {format_shape(shift.shape)}.")
        values = [shift] if shift.ndim == 0 else [shift[i] for i in builtins.range(count)]
    if len(values) != count:
        raise ShapeError(f"roll: shift and axis must have the same length, got {len(values)} "
                         f"shifts for {count} axes.")
    return values


def _roll_along(x: Tensor, shift, axis: int) -> Tensor:
    size = x.shape[axis]
    if isinstance(shift, int) and size is not None:
        cut = size - shift % size if size else 0
        if cut in (0, size):
            return x
        return concat([getitem(x, _along(axis, builtins.slice(cut, None))),
                       getitem(x, _along(axis, builtins.slice(None, cut)))], axis)
    size = shape(x)[axis] if size is None else size
    positions = array_ops.range(size)
    return gather(x, mod(subtract(positions, cast(shift, positions.dtype)), size), axis)


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool_) -> Tensor:
    """``mask[..., j] = j < lengths[...]``: shape ``lengths.shape + (maxlen,)``, ``maxlen``
    the largest length when not given."""
    lengths = convert_to_tensor(lengths)
    if lengths.dtype.kind not in "iu":
        raise TypeError(f"sequence_mask: lengths must be integers, got {lengths.dtype.name}.")
    if maxlen is None:
        maxlen = reduce_max(lengths) if lengths.ndim != 0 else lengths
    positions = array_ops.range(0, maxlen, dtype=lengths.dtype)
    mask = less(positions, expand_dims(lengths, -1))
    dtype = dtypes.as_dtype(dtype)
    return mask if dtype == dtypes.bool_ else cast(mask, dtype)
