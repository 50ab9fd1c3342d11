"""TensorFlow's rearrangements of elements between dimensions: ``reverse_sequence`` (each
batch element reversed over its own length), ``space_to_batch_nd``/``batch_to_space`` (spatial
blocks moved to and from the batch dimension, as dilated convolutions use them) and
``space_to_depth``/``depth_to_space`` (spatial blocks moved to and from the channels). Each
is a composition of existing ops (pads, reshapes, transposes, gathers, slices), so gradients,
folding, serialization and export come with them.
"""

from __future__ import annotations

import builtins

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import (cast, expand_dims, range as arange, reshape, shape, transpose,
                                   where)
from runtime.ops.dispatch import convert_to_tensor, static_array
from runtime.ops.indexing import getitem
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import greater_equal, less, less_equal, logical_and, subtract
from runtime.ops.pad_ops import pad
from runtime.ops.reduce_ops import reduce_all
from runtime.ops.scatter_ops import gather
from runtime.ops.shapes import normalize_axis
from runtime.tensor import Tensor, format_shape


def _known_rank(op_name: str, x: Tensor) -> int:
    if x.shape is None:
        raise ShapeError(f"{op_name}: the input must have a known rank; state it with "
                         f"ensure_shape or an input_signature.")
    return len(x.shape)


def _static(op_name: str, what: str, value, ndim: int) -> np.ndarray:
    """``value`` as an int64 array of ``ndim`` dimensions, known while tracing."""
    array = static_array(op_name, what, value)
    if array.dtype.kind not in "iu" or array.ndim != ndim:
        raise TypeError(f"{op_name}: {what} must be {'a list' if ndim == 1 else 'a list of pairs'}"
                        f" of ints, got {value!r}.")
    return array.astype(np.int64)


def reverse_sequence(input, seq_lengths, seq_axis: int | None = None,  # noqa: A002
                     batch_axis: int | None = None) -> Tensor:
    """Each slice ``i`` along ``batch_axis`` with its first ``seq_lengths[i]`` elements along
    ``seq_axis`` reversed and the rest left in place. A length above the sequence's or below
    0 is an ``InvalidArgumentError`` when the op runs, as in TensorFlow."""
    x = convert_to_tensor(input)
    rank = _known_rank("reverse_sequence", x)
    if seq_axis is None:
        raise ValueError("reverse_sequence: seq_axis is required: the axis along which each "
                         "sequence is reversed.")
    seq = normalize_axis("reverse_sequence", int(seq_axis), rank)
    batch = normalize_axis("reverse_sequence", int(batch_axis or 0), rank)
    if seq == batch:
        raise ValueError(f"reverse_sequence: seq_axis and batch_axis must differ, both are {seq}.")
    perm = [batch, seq] + [a for a in builtins.range(rank) if a not in (batch, seq)]
    moved = transpose(x, perm)
    lengths = expand_dims(cast(convert_to_tensor(seq_lengths), dtypes.int64), 1)
    size = shape(moved, dtypes.int64)[1]
    assert_(reduce_all(logical_and(greater_equal(lengths, 0), less_equal(lengths, size))),
            "reverse_sequence: each of seq_lengths must be in [0, the length of seq_axis]; "
            "they are", (lengths,))
    positions = arange(size, dtype=dtypes.int64)
    sources = where(less(positions, lengths), subtract(subtract(lengths, 1), positions),
                    positions)
    reversed_ = gather(moved, sources, axis=1, batch_dims=1)
    return transpose(reversed_, np.argsort(perm))


def _blocks(op_name: str, x: Tensor, block_shape, edges, edges_name: str):
    """The block sizes, the ``[before, after]`` pairs and the static sizes of the dimensions
    after the batch (all must be known, so that the reshapes have one unknown at most)."""
    block = _static(op_name, "block_shape", block_shape, 1)
    pairs = _static(op_name, edges_name, edges, 2)
    rank = _known_rank(op_name, x)
    if pairs.shape != (len(block), 2) or len(block) >= rank or np.any(block < 1) \
            or np.any(pairs < 0):
        raise ValueError(f"{op_name}: block_shape must have one size >= 1 per spatial "
                         f"dimension (fewer than the input's {rank} dimensions) and {edges_name} "
                         f"one [before, after] pair of non-negative ints per spatial dimension; "
                         f"got {block.tolist()} and {pairs.tolist()}.")
    dims = x.shape[1:]
    if None in dims:
        raise ShapeError(f"{op_name}: the dimensions after the batch must be known, the "
                         f"input's shape is {format_shape(x.shape)}.")
    return [int(b) for b in block], pairs.tolist(), list(dims)


def space_to_batch_nd(input, block_shape, paddings) -> Tensor:  # noqa: A002
    """The spatial dimensions (those after the batch, one per block size) padded, cut into
    blocks of ``block_shape``, and the position within the block moved to the batch
    dimension: ``[batch * prod(block_shape), padded / block_shape..., rest...]``."""
    x = convert_to_tensor(input)
    block, pairs, dims = _blocks("space_to_batch_nd", x, block_shape, paddings, "paddings")
    spatial, rest = len(block), dims[len(block):]
    padded_sizes = [d + before + after for d, (before, after) in zip(dims, pairs)]
    if any(size % b for size, b in zip(padded_sizes, block)):
        raise ValueError(f"space_to_batch_nd: the padded spatial sizes {padded_sizes} must be "
                         f"multiples of block_shape {block}.")
    padded = pad(x, [[0, 0]] + pairs + [[0, 0]] * len(rest))
    split = [-1] + [n for size, b in zip(padded_sizes, block) for n in (size // b, b)] + rest
    perm = ([2 + 2 * i for i in builtins.range(spatial)] + [0]
            + [1 + 2 * i for i in builtins.range(spatial)]
            + list(builtins.range(1 + 2 * spatial, 1 + 2 * spatial + len(rest))))
    out = [-1] + [size // b for size, b in zip(padded_sizes, block)] + rest
    return reshape(transpose(reshape(padded, split), perm), out)


def space_to_batch(input, block_shape, paddings) -> Tensor:  # noqa: A002
    """TensorFlow 2's ``space_to_batch``: ``space_to_batch_nd``."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops) -> Tensor:  # noqa: A002
    """The inverse of ``space_to_batch_nd``: the batch split into blocks of ``block_shape``
    put back into the spatial dimensions, then ``crops`` cut from their edges."""
    x = convert_to_tensor(input)
    block, pairs, dims = _blocks("batch_to_space", x, block_shape, crops, "crops")
    spatial, rest = len(block), dims[len(block):]
    if x.shape[0] is not None and x.shape[0] % int(np.prod(block)):
        raise ValueError(f"batch_to_space: the batch size {x.shape[0]} must be a multiple of "
                         f"the block size {int(np.prod(block))}.")
    split = block + [-1] + dims
    perm = ([spatial] + [n for i in builtins.range(spatial) for n in (spatial + 1 + i, i)]
            + list(builtins.range(1 + 2 * spatial, 1 + 2 * spatial + len(rest))))
    full = [d * b for d, b in zip(dims, block)]
    if any(before + after > size for size, (before, after) in zip(full, pairs)):
        raise ValueError(f"batch_to_space: crops {pairs} remove more than the sizes {full}.")
    merged = reshape(transpose(reshape(x, split), perm), [-1] + full + rest)
    return getitem(merged, (builtins.slice(None),) + tuple(
        builtins.slice(before, size - after) for size, (before, after) in zip(full, pairs)))


def _nhwc(op_name: str, x: Tensor, data_format: str) -> tuple:
    if data_format != "NHWC":
        raise ValueError(f"{op_name}: only data_format='NHWC' is supported (TensorFlow's CPU "
                         f"kernels have no other), got {data_format!r}.")
    if _known_rank(op_name, x) != 4 or None in x.shape[1:]:
        raise ShapeError(f"{op_name}: the input must be 4-D [batch, height, width, channels] "
                         f"with known height, width and channels, got "
                         f"{format_shape(x.shape)}.")
    return x.shape[1:]


def space_to_depth(input, block_size: int, data_format: str = "NHWC") -> Tensor:  # noqa: A002
    """Each ``block_size`` x ``block_size`` block of pixels moved into the channels:
    ``[b, h, w, c]`` to ``[b, h / block_size, w / block_size, block_size² c]``."""
    x = convert_to_tensor(input)
    height, width, channels = _nhwc("space_to_depth", x, data_format)
    n = int(block_size)
    if n < 2 or height % n or width % n:
        raise ValueError(f"space_to_depth: block_size must be at least 2 and divide the height "
                         f"{height} and width {width}, got {block_size}.")
    blocks = reshape(x, [-1, height // n, n, width // n, n, channels])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]),
                   [-1, height // n, width // n, n * n * channels])


def depth_to_space(input, block_size: int, data_format: str = "NHWC") -> Tensor:  # noqa: A002
    """The inverse of ``space_to_depth``: ``[b, h, w, block_size² c]`` to
    ``[b, h block_size, w block_size, c]``."""
    x = convert_to_tensor(input)
    height, width, channels = _nhwc("depth_to_space", x, data_format)
    n = int(block_size)
    if n < 2 or channels % (n * n):
        raise ValueError(f"depth_to_space: block_size must be at least 2 and its square divide "
                         f"the channels {channels}, got {block_size}.")
    blocks = reshape(x, [-1, height, width, n, n, channels // (n * n)])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]),
                   [-1, height * n, width * n, channels // (n * n)])
