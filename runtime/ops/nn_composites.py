"""TensorFlow's ``tf.nn`` functions that are compositions of the convolution, pooling and
elementwise ops: 1-D and rank-dispatching pools, depthwise, separable and transposed
convolutions, ``crelu``, weighted cross entropy, the Poisson loss, local response
normalization and ``compute_average_loss``.

Written with ops, they run eagerly and in graphs and have gradients (of any order) wherever
their ops do, without rules of their own.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import (cast, concat, expand_dims, ones_like, range as range_,
                                   reshape, shape, squeeze, where, zeros, zeros_like)
from runtime.ops.conv_ops import (CONV2D_BACKPROP_INPUT, _checked_operands, _data_format,
                                  conv2d, output_size, padding_arg, pads, spatial)
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.layout_ops import eye
from runtime.ops.broadcast_ops import broadcast_to
from runtime.ops.math_ops import (abs, add, divide, exp, greater, greater_equal,  # noqa: A004
                                  less_equal, log, log1p, logical_and, multiply, negative, pow,
                                  subtract)
from runtime.ops.nn_ops import _floating, _labels_like, _same_shape, relu
from runtime.ops.pad_ops import pad
from runtime.ops.pool_ops import avg_pool2d, max_pool2d
from runtime.ops.reduce_ops import reduce_sum
from runtime.tensor import Tensor, format_shape

# -- pooling -----------------------------------------------------------------------------


def _window_1d(op_name: str, value, what: str) -> list[int]:
    """A 1-D window or stride (an int, or a list of 1 or 3 with batch and channel entries 1)
    as the ``[1, width]`` of a 2-D pool over a height of 1."""
    values = [value] if isinstance(value, (int, np.integer)) else list(value)
    if len(values) == 3 and values[0] == values[2] == 1:
        values = values[1:2]
    if len(values) != 1:
        raise ValueError(f"{op_name}: {what} must be an int or a list of 1 or 3 ints (batch and "
                         f"channel entries 1), got {value!r}.")
    return [1, int(values[0])]


def _pool1d(pool2d, op_name: str, input, ksize, strides, padding, data_format):  # noqa: A002
    _data_format(op_name, data_format, (None, "NWC"))
    x = convert_to_tensor(input)
    if x.ndim is not None and x.ndim != 3:
        raise ShapeError(f"{op_name} needs an input of shape [batch, width, channels], got "
                         f"{format_shape(x.shape)}.")
    pooled = pool2d(expand_dims(x, 1), _window_1d(op_name, ksize, "ksize"),
                    _window_1d(op_name, strides, "strides"), padding)
    return squeeze(pooled, 1)


def max_pool1d(input, ksize, strides, padding, data_format="NWC"):  # noqa: A002
    """The largest value of each ``ksize`` window of an NWC input, per channel."""
    return _pool1d(max_pool2d, "max_pool1d", input, ksize, strides, padding, data_format)


def avg_pool1d(input, ksize, strides, padding, data_format="NWC"):  # noqa: A002
    """The mean of each ``ksize`` window of an NWC input (padding not counted)."""
    return _pool1d(avg_pool2d, "avg_pool1d", input, ksize, strides, padding, data_format)


def _pool_by_rank(pools: tuple, op_name: str, input, ksize, strides, padding,  # noqa: A002
                  data_format):
    """The 1-D or 2-D pool of ``pools`` that the input's rank (3 or 4) asks for."""
    x = convert_to_tensor(input)
    if x.ndim not in (3, 4):
        raise ShapeError(f"{op_name} pools inputs of rank 3 (NWC) or 4 (NHWC), got "
                         f"{format_shape(x.shape)}; 3-D pooling is not supported yet.")
    pool = pools[x.ndim - 3]
    if data_format is None:
        return pool(x, ksize, strides, padding)
    return pool(x, ksize, strides, padding, data_format=data_format)


def max_pool(input, ksize, strides, padding, data_format=None):  # noqa: A002
    """``max_pool1d`` or ``max_pool2d``, as the input's rank says."""
    return _pool_by_rank((max_pool1d, max_pool2d), "max_pool", input, ksize, strides, padding,
                         data_format)


def avg_pool(input, ksize, strides, padding, data_format=None):  # noqa: A002
    """``avg_pool1d`` or ``avg_pool2d``, as the input's rank says."""
    return _pool_by_rank((avg_pool1d, avg_pool2d), "avg_pool", input, ksize, strides, padding,
                         data_format)


# -- convolutions --------------------------------------------------------------------------


def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None):
    """Each input channel convolved with its own ``channel_multiplier`` filters: ``filter`` is
    ``[height, width, in_channels, channel_multiplier]`` and output channel ``c * M + m``
    comes from input channel ``c`` and filter ``m``. It is ``conv2d`` with a block-diagonal
    filter (zero across channels)."""
    _data_format("depthwise_conv2d", data_format, (None, "NHWC"))
    x, filters = _checked_operands("depthwise_conv2d", input, filter, 4)
    channels, multiplier = filters.shape[2], filters.shape[3]
    if channels is None or multiplier is None:
        raise ShapeError(f"depthwise_conv2d needs filters whose channel dimensions are known "
                         f"while tracing, got {format_shape(filters.shape)}.")
    own_channel = reshape(eye(channels, dtype=x.dtype), (1, 1, channels, channels, 1))
    block_diagonal = multiply(expand_dims(filters, 2), own_channel)
    full = reshape(block_diagonal, (filters.shape[0], filters.shape[1], channels,
                                    channels * multiplier))
    return conv2d(x, full, strides, padding, dilations=dilations)


class MaxPoolWithArgmax(NamedTuple):
    output: Tensor
    argmax: Tensor


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC",  # noqa: A002
                         output_dtype=dtypes.int64, include_batch_in_index=False):
    """``max_pool2d``'s output and where each maximum was: its flat index ``(y * width + x) *
    channels + c`` in its image (with ``include_batch_in_index``, in the whole batch); the
    first of equal maxima in the window's row-major order, as TensorFlow's kernel. Built from
    the window's shifted slices, so the gradient reaches the maxima."""
    _data_format("max_pool_with_argmax", data_format, ("NHWC",))
    x = convert_to_tensor(input)
    if x.shape is None or len(x.shape) != 4 or None in x.shape[1:]:
        raise ShapeError(f"max_pool_with_argmax: the input must be NHWC with known height, "
                         f"width and channels, got {format_shape(x.shape)}.")
    (window_h, window_w), (stride_h, stride_w) = (spatial("max_pool_with_argmax", ksize, "ksize"),
                                                  spatial("max_pool_with_argmax", strides,
                                                          "strides"))
    padding = padding_arg("max_pool_with_argmax", padding)
    height, width, channels = x.shape[1:]
    out_h = output_size(height, window_h, stride_h, 1, padding)
    out_w = output_size(width, window_w, stride_w, 1, padding)
    edges = [pads(height, window_h, stride_h, 1, padding), pads(width, window_w, stride_w, 1,
                                                                padding)]
    lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    padded = pad(x, [[0, 0], *edges, [0, 0]], constant_values=lowest)
    positions = np.pad(np.arange(height * width * channels).reshape(height, width, channels),
                       [*edges, (0, 0)], constant_values=-1)
    best = where_best = None
    for dy in range(window_h):
        for dx in range(window_w):
            rows = slice(dy, dy + stride_h * (out_h - 1) + 1, stride_h)
            columns = slice(dx, dx + stride_w * (out_w - 1) + 1, stride_w)
            candidate, index = padded[:, rows, columns, :], positions[rows, columns, :]
            if best is None:
                best, where_best = candidate, broadcast_to(index, shape(candidate, dtypes.int64))
                continue
            better = greater(candidate, best)  # strictly: the first maximum stays
            best, where_best = where(better, candidate, best), where(better, index, where_best)
    if include_batch_in_index:
        batch = cast(range_(shape(x, dtypes.int64)[0]), dtypes.int64)
        where_best = add(where_best, reshape(batch * (height * width * channels), [-1, 1, 1, 1]))
    return MaxPoolWithArgmax(best, cast(where_best, output_dtype))


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None):
    """The gradient of ``conv2d`` with respect to its input, used as a layer: ``input`` is
    ``[batch, height, width, in_channels]``, ``filters`` ``[height, width, out_channels,
    in_channels]``, and the result has ``output_shape``."""
    _data_format("conv2d_transpose", data_format, (None, "NHWC"))
    dy, filters = _checked_operands("conv2d_transpose", input, filters, 4)
    attrs = {"strides": spatial("conv2d_transpose", strides, "strides"),
             "dilations": spatial("conv2d_transpose", 1 if dilations is None else dilations,
                                  "dilations"),
             "padding": padding_arg("conv2d_transpose", padding)}
    _check_transposed_shape(dy, filters, output_shape, attrs)
    like = zeros(output_shape, dy.dtype)  # only its shape matters to the op
    return apply_op(CONV2D_BACKPROP_INPUT, (like, filters, dy), attrs)


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NWC", dilations=None):
    """``conv2d_transpose`` over a height of 1: ``input`` ``[batch, width, in_channels]``,
    ``filters`` ``[width, out_channels, in_channels]``, the result ``output_shape``
    ``[batch, width, out_channels]``."""
    _data_format("conv1d_transpose", data_format, (None, "NWC"))
    dy, filters = _checked_operands("conv1d_transpose", input, filters, 3)
    known = constant_value(convert_to_tensor(output_shape))
    if known is None:
        raise TypeError("conv1d_transpose: output_shape must be known while tracing (a list or "
                        "a constant tensor).")
    batch, width, channels = (int(v) for v in np.ravel(known))
    y = conv2d_transpose(expand_dims(dy, 1), expand_dims(filters, 0), [batch, 1, width, channels],
                         _window_1d("conv1d_transpose", strides, "strides"), padding,
                         dilations=None if dilations is None else
                         _window_1d("conv1d_transpose", dilations, "dilations"))
    return squeeze(y, [1])


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding,  # noqa: A002
                     data_format=None, dilations=None):
    """``depthwise_conv2d`` then a 1x1 ``conv2d`` mixing the channels: ``depthwise_filter``
    ``[height, width, in_channels, multiplier]``, ``pointwise_filter`` ``[1, 1, in_channels *
    multiplier, out_channels]``."""
    _data_format("separable_conv2d", data_format, (None, "NHWC"))
    depthwise = depthwise_conv2d(input, depthwise_filter, strides, padding,
                                 dilations=dilations)
    return conv2d(depthwise, pointwise_filter, 1, "VALID")


def crelu(features, axis: int = -1) -> Tensor:
    """``relu(x)`` and ``relu(-x)`` joined along ``axis`` (twice as many channels), so that
    both signs keep a gradient."""
    x = convert_to_tensor(features)
    return concat([relu(x), relu(negative(x))], axis)


def log_poisson_loss(targets, log_input, compute_full_loss: bool = False) -> Tensor:
    """The negative log-likelihood of ``targets`` under a Poisson distribution of rate
    ``exp(log_input)``, without the constant ``log(targets!)``; with ``compute_full_loss``,
    Stirling's approximation of it is added for targets above 1."""
    log_input = convert_to_tensor(log_input)
    targets = cast(convert_to_tensor(targets), log_input.dtype)
    loss = subtract(exp(log_input), multiply(log_input, targets))
    if not compute_full_loss:
        return loss
    small = logical_and(greater_equal(targets, 0), less_equal(targets, 1))
    safe = where(small, ones_like(targets), targets)  # no log(0) where the term is not used
    stirling = add(subtract(multiply(safe, log(safe)), safe),
                   multiply(0.5, log(multiply(2 * np.pi, safe))))
    return add(loss, where(small, zeros_like(targets), stirling))


def _check_transposed_shape(dy: Tensor, filters: Tensor, output_shape, attrs: dict) -> None:
    """Raises when ``conv2d`` of an ``output_shape`` input would not give ``dy``'s shape."""
    known = constant_value(convert_to_tensor(output_shape))
    if known is None or dy.shape is None or filters.shape is None:
        return
    out = [int(v) for v in np.ravel(known)]
    expected = [output_size(out[1 + i], filters.shape[i], attrs["strides"][i],
                            attrs["dilations"][i], attrs["padding"]) for i in range(2)]
    got = [dy.shape[0], dy.shape[1], dy.shape[2], filters.shape[3]]
    want = [out[0], expected[0], expected[1], dy.shape[3]]
    if len(out) != 4 or out[3] != filters.shape[2] or any(
            a is not None and b is not None and a != b for a, b in zip(got, want)):
        raise ValueError(
            f"conv2d_transpose: output_shape {out} does not fit: a conv2d of an input of that "
            f"shape with filters {format_shape(filters.shape)} ({attrs['padding']} padding, "
            f"strides {list(attrs['strides'])}) gives shape "
            f"{format_shape((out[0],) + tuple(expected) + (filters.shape[3],))}, but the input "
            f"has shape {format_shape(dy.shape)}. Give the output_shape of the image the "
            f"transposed convolution should make.")


# -- losses and normalization ------------------------------------------------------------


def weighted_cross_entropy_with_logits(labels, logits, pos_weight):
    """``sigmoid_cross_entropy_with_logits`` with the positive term weighted by
    ``pos_weight``: ``labels * -log(sigmoid(x)) * pos_weight + (1 - labels) *
    -log(1 - sigmoid(x))``, computed without overflow for large ``|x|``."""
    logits = _floating("weighted_cross_entropy_with_logits", logits)
    labels = _labels_like("weighted_cross_entropy_with_logits", labels, logits)
    _same_shape("weighted_cross_entropy_with_logits", labels.shape, logits.shape)
    weight = add(1.0, multiply(subtract(pos_weight, 1.0), labels))
    softplus_of_minus = add(log1p(exp(-abs(logits))), relu(-logits))  # log(1 + exp(-x))
    return add(multiply(subtract(1.0, labels), logits), multiply(weight, softplus_of_minus))


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0,  # noqa: A002
                                 beta=0.5):
    """Each value divided by ``(bias + alpha * s) ** beta``, ``s`` the sum of the squares of
    the values within ``depth_radius`` channels of it (last axis, rank 4 input)."""
    x = _floating("local_response_normalization", input)
    if x.ndim is not None and x.ndim != 4:
        raise ShapeError(f"local_response_normalization needs a rank-4 input, got "
                         f"{format_shape(x.shape)}.")
    radius = int(depth_radius)
    squares = pad(x * x, [[0, 0], [0, 0], [0, 0], [radius, radius]])
    channels = x.shape[3] if x.shape[3] is not None else shape(x)[3]
    window = squares[..., 0:channels]
    for offset in range(1, 2 * radius + 1):
        window = add(window, squares[..., offset:offset + channels])
    return divide(x, pow(add(bias, multiply(alpha, window)), beta))


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of the (weighted) per-example losses divided by the global batch size: by
    default the number of examples, the length of the first axis (one replica here)."""
    losses = _floating("compute_average_loss", per_example_loss)
    if losses.ndim == 0:
        raise ValueError("compute_average_loss: per_example_loss must have at least one "
                         "dimension (the examples), got a scalar.")
    if sample_weight is not None:
        losses = multiply(losses, cast(convert_to_tensor(sample_weight), losses.dtype))
    if global_batch_size is None:
        known = losses.shape[0] if losses.shape is not None else None
        global_batch_size = known if known is not None else shape(losses)[0]
    return divide(reduce_sum(losses), cast(global_batch_size, losses.dtype))
