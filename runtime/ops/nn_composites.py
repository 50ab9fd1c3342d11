"""TensorFlow's ``tf.nn`` functions that are compositions of the convolution, pooling and
elementwise ops: 1-D and rank-dispatching pools, depthwise and transposed convolutions,
weighted cross entropy, local response normalization and ``compute_average_loss``.

Written with ops, they run eagerly and in graphs and have gradients (of any order) wherever
their ops do, without rules of their own.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import ShapeError
from runtime.ops.array_ops import cast, expand_dims, reshape, shape, squeeze, zeros
from runtime.ops.conv_ops import (CONV2D_BACKPROP_INPUT, _checked_operands, _data_format,
                                  conv2d, output_size, padding_arg, spatial)
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.layout_ops import eye
from runtime.ops.math_ops import abs, add, divide, exp, log1p, multiply, pow, subtract  # noqa: A004
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
