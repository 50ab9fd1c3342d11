"""Index arithmetic with TensorFlow's names: ``unravel_index`` (flat indices to coordinates)
and ``invert_permutation``. Both are compositions of existing ops, with their checks as
assertions (effects: they run, in program order, even when nothing uses the result)."""

from __future__ import annotations

import numpy as np

from runtime.errors import ShapeError
from runtime.ops.array_ops import cast, gather, shape, stack
from runtime.ops.array_ops import range as tensor_range
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, less
from runtime.ops.reduce_ops import reduce_all, reduce_prod
from runtime.ops.sort_ops import argsort
from runtime.ops.special_math_ops import truncatediv, truncatemod
from runtime.tensor import Tensor, format_shape


def _integer(op_name: str, what: str, value: Tensor) -> None:
    if value.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise TypeError(f"{op_name}: {what} must be int32 or int64, got {value.dtype.name}.")


def unravel_index(indices, dims, name=None) -> Tensor:
    """The coordinates of flat ``indices`` into an array of shape ``dims`` (row-major), as a
    tensor of shape ``[len(dims)] + indices.shape`` in the indices' dtype. An index at or past
    the number of elements raises ``InvalidArgumentError`` when the op runs; a negative one is
    divided as C divides (toward zero), as in TensorFlow. ``name`` is accepted and ignored."""
    if isinstance(dims, Tensor) and not isinstance(indices, Tensor):
        indices = convert_to_tensor(indices, dims.dtype)
    indices = convert_to_tensor(indices)
    dims = convert_to_tensor(dims, None if isinstance(dims, Tensor) else indices.dtype)
    _integer("unravel_index", "indices", indices)
    if dims.dtype != indices.dtype:
        raise TypeError(f"unravel_index: indices ({indices.dtype.name}) and dims "
                        f"({dims.dtype.name}) must have the same dtype.")
    if dims.shape is None or len(dims.shape) != 1 or dims.shape[0] is None:
        raise ShapeError(f"unravel_index: dims must be a vector whose length is known while "
                         f"tracing, got shape {format_shape(dims.shape)}.")
    assert_(reduce_all(less(indices, reduce_prod(dims))),
            "unravel_index: an index is out of bounds for dims (it must be less than their "
            "product); the indices and dims are", (indices, dims))
    coordinates, rest = [], indices
    for axis in reversed(range(dims.shape[0])):
        coordinates.append(truncatemod(rest, dims[axis]))
        rest = truncatediv(rest, dims[axis])
    return stack(coordinates[::-1], axis=0)


def invert_permutation(x, name=None) -> Tensor:
    """The permutation ``y`` with ``y[x[i]] = i``; ``x`` must hold each of ``0 .. n - 1``
    once (else ``InvalidArgumentError`` when the op runs). ``name`` is accepted and ignored."""
    x = convert_to_tensor(x)
    _integer("invert_permutation", "x", x)
    if x.shape is not None and len(x.shape) != 1:
        raise ShapeError(f"invert_permutation: x must be a vector, got shape "
                         f"{format_shape(x.shape)}.")
    inverse = cast(argsort(x, stable=True), x.dtype)
    in_order = tensor_range(shape(x, x.dtype)[0], dtype=x.dtype)
    assert_(reduce_all(equal(gather(x, inverse), in_order)),
            "invert_permutation: x is not a permutation of 0 .. n - 1 (a value repeats or is "
            "out of range); x is", (x,))
    return inverse
