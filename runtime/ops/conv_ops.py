"""Convolutions (``rt.nn.conv2d``, ``rt.nn.conv1d``) in TensorFlow's NHWC layout, with
SAME/VALID padding, strides and dilations, computed with NumPy: a strided view of the padded
input holds every window, and one ``tensordot`` with the filters contracts them.

The gradient with respect to the input scatters the output gradient back through each filter
tap (one matrix product per tap); the gradient with respect to the filters contracts the
same windows with the output gradient. Both are ops with their own gradients, which makes
second derivatives available too. The window geometry helpers here are shared with the
pooling ops.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from runtime.errors import ShapeError
from runtime.ops.array_ops import expand_dims, squeeze
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape


def output_size(size: int | None, window: int, stride: int, dilation: int,
                padding: str) -> int | None:
    """TensorFlow's output length of one spatial dimension."""
    if size is None:
        return None
    effective = (window - 1) * dilation + 1
    if padding == "SAME":
        return -(-size // stride)
    return max(0, -(-(size - effective + 1) // stride))


def pads(size: int, window: int, stride: int, dilation: int, padding: str) -> tuple[int, int]:
    """Padding before and after one spatial dimension (SAME puts the odd one after)."""
    if padding == "VALID":
        return 0, 0
    out = output_size(size, window, stride, dilation, padding)
    total = max((out - 1) * stride + (window - 1) * dilation + 1 - size, 0)
    return total // 2, total - total // 2


def windows(padded: np.ndarray, window: Sequence[int], strides: Sequence[int],
            dilations: Sequence[int], out: Sequence[int]) -> np.ndarray:
    """A read-only view ``[N, OH, OW, KH, KW, C]`` of every window of a padded NHWC array."""
    n, _, _, c = padded.shape
    sn, sh, sw, sc = padded.strides
    return as_strided(padded, (n, out[0], out[1], window[0], window[1], c),
                      (sn, sh * strides[0], sw * strides[1], sh * dilations[0],
                       sw * dilations[1], sc), writeable=False)


def geometry(shape: Sequence[int], window: Sequence[int], strides, dilations, padding):
    """``(out_sizes, ((top, bottom), (left, right)))`` of an NHWC input."""
    out = [output_size(shape[1 + i], window[i], strides[i], dilations[i], padding)
           for i in range(2)]
    return out, [pads(shape[1 + i], window[i], strides[i], dilations[i], padding)
                 for i in range(2)]


def tap_slice(tap: int, dilation: int, stride: int, out: int) -> slice:
    """The positions of the padded input that one filter tap reads, over all outputs."""
    start = tap * dilation
    return slice(start, start + stride * (out - 1) + 1, stride)


def spatial(op_name: str, value, what: str) -> tuple[int, int]:
    """A stride/dilation/window argument as (height, width): an int, or a list of 1, 2 or 4
    ints (4: NHWC, whose batch and channel entries must be 1)."""
    values = [value] if isinstance(value, (int, np.integer)) else list(value)
    if len(values) == 4:
        if values[0] != 1 or values[3] != 1:
            raise ValueError(f"{op_name}: {what} over the batch and channel dimensions must be "
                             f"1, got {values}.")
        values = values[1:3]
    if len(values) == 1:
        values = values * 2
    if len(values) != 2 or not all(isinstance(v, (int, np.integer)) and v >= 1 for v in values):
        raise ValueError(f"{op_name}: {what} must be a positive int or a list of 1, 2 or 4 of "
                         f"them, got {value!r}.")
    return int(values[0]), int(values[1])


def padding_arg(op_name: str, padding) -> str:
    if not isinstance(padding, str) or padding.upper() not in ("SAME", "VALID"):
        raise ValueError(f"{op_name}: padding must be 'SAME' or 'VALID', got {padding!r} "
                         f"(explicit paddings are not supported).")
    return padding.upper()


# -- kernels --------------------------------------------------------------------------------


def _padded(x: np.ndarray, pad: Sequence[tuple[int, int]], value=0) -> np.ndarray:
    if not any(any(p) for p in pad):
        return x
    return np.pad(x, ((0, 0), pad[0], pad[1], (0, 0)), constant_values=value)


def _conv2d(x, filters, strides, dilations, padding):
    out, pad = geometry(x.shape, filters.shape[:2], strides, dilations, padding)
    if x.shape[3] != filters.shape[2]:
        raise ShapeError(f"conv2d: the input has {x.shape[3]} channels but the filters expect "
                         f"{filters.shape[2]} (input {format_shape(x.shape)}, filters "
                         f"{format_shape(filters.shape)}).")
    view = windows(_padded(x, pad), filters.shape[:2], strides, dilations, out)
    return np.tensordot(view, filters, axes=([3, 4, 5], [0, 1, 2])).astype(x.dtype, copy=False)


def _conv2d_backprop_filter(x, filters, dy, strides, dilations, padding):
    out, pad = geometry(x.shape, filters.shape[:2], strides, dilations, padding)
    view = windows(_padded(x, pad), filters.shape[:2], strides, dilations, out)
    return np.tensordot(view, dy, axes=([0, 1, 2], [0, 1, 2])).astype(x.dtype, copy=False)


def _conv2d_backprop_input(x, filters, dy, strides, dilations, padding):
    (oh, ow), pad = geometry(x.shape, filters.shape[:2], strides, dilations, padding)
    n, h, w, c = x.shape
    grad = np.zeros((n, h + sum(pad[0]), w + sum(pad[1]), c), x.dtype)
    for i in range(filters.shape[0]):
        rows = tap_slice(i, dilations[0], strides[0], oh)
        for j in range(filters.shape[1]):
            cols = tap_slice(j, dilations[1], strides[1], ow)
            grad[:, rows, cols, :] += dy @ filters[i, j].T
    return grad[:, pad[0][0]:pad[0][0] + h, pad[1][0]:pad[1][0] + w, :]


def _conv2d_infer(x, filters, strides, dilations, padding):
    if x.shape is None or filters.shape is None:
        return x.dtype, None
    if len(x.shape) != 4 or len(filters.shape) != 4:
        raise ShapeError(f"conv2d: the input must be [batch, height, width, channels] and the "
                         f"filters [height, width, in_channels, out_channels], got input "
                         f"{format_shape(x.shape)} and filters {format_shape(filters.shape)}.")
    if None not in (x.shape[3], filters.shape[2]) and x.shape[3] != filters.shape[2]:
        raise ShapeError(f"conv2d: the input has {x.shape[3]} channels but the filters expect "
                         f"{filters.shape[2]} (input {format_shape(x.shape)}, filters "
                         f"{format_shape(filters.shape)}).")
    if None in filters.shape[:2]:
        return x.dtype, (x.shape[0], None, None, filters.shape[3])
    out = [output_size(x.shape[1 + i], filters.shape[i], strides[i], dilations[i], padding)
           for i in range(2)]
    return x.dtype, (x.shape[0], out[0], out[1], filters.shape[3])


def _conv2d_grad(node, dy):
    x, filters = node.inputs
    attrs = node.attrs
    return (apply_op(CONV2D_BACKPROP_INPUT, (x, filters, dy), attrs),
            apply_op(CONV2D_BACKPROP_FILTER, (x, filters, dy), attrs))


def _backprop_input_grad(node, g):
    """Linear in the filters and in ``dy``: their gradients are the other two products."""
    x, filters, dy = node.inputs
    return (None, apply_op(CONV2D_BACKPROP_FILTER, (g, filters, dy), node.attrs),
            apply_op(CONV2D, (g, filters), node.attrs))


def _backprop_filter_grad(node, g):
    x, filters, dy = node.inputs
    return (apply_op(CONV2D_BACKPROP_INPUT, (x, g, dy), node.attrs), None,
            apply_op(CONV2D, (x, g), node.attrs))


CONV2D = register(OpDef("conv2d", _conv2d, _conv2d_infer, gradient=_conv2d_grad))
CONV2D_BACKPROP_INPUT = register(OpDef(
    "conv2d_backprop_input", _conv2d_backprop_input,
    lambda x, filters, dy, **attrs: (x.dtype, x.shape), gradient=_backprop_input_grad))
CONV2D_BACKPROP_FILTER = register(OpDef(
    "conv2d_backprop_filter", _conv2d_backprop_filter,
    lambda x, filters, dy, **attrs: (x.dtype, filters.shape), gradient=_backprop_filter_grad))


def _checked_operands(op_name: str, input, filters, rank: int) -> tuple[Tensor, Tensor]:
    x, filters = convert_to_tensor(input), convert_to_tensor(filters)
    if x.dtype.kind != "f" or filters.dtype != x.dtype:
        raise TypeError(f"{op_name} needs float input and filters of the same dtype, got "
                        f"{x.dtype.name} and {filters.dtype.name}.")
    for name, value in (("input", x), ("filters", filters)):
        if value.ndim is not None and value.ndim != rank:
            raise ShapeError(f"{op_name}: {name} must have rank {rank}, got shape "
                             f"{format_shape(value.shape)}.")
    return x, filters


def _data_format(op_name: str, data_format, allowed: tuple[str, ...]) -> None:
    if data_format not in allowed:
        raise ValueError(f"{op_name}: only the channels-last layout is supported "
                         f"(data_format={allowed[-1]!r}), got {data_format!r}.")


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None):  # noqa: A002
    """2-D convolution (cross-correlation, as in TensorFlow) of an NHWC ``input`` with
    ``filters`` of shape ``[height, width, in_channels, out_channels]``."""
    _data_format("conv2d", data_format, (None, "NHWC"))
    x, filters = _checked_operands("conv2d", input, filters, 4)
    attrs = {"strides": spatial("conv2d", strides, "strides"),
             "dilations": spatial("conv2d", 1 if dilations is None else dilations, "dilations"),
             "padding": padding_arg("conv2d", padding)}
    if attrs["strides"] != (1, 1) and attrs["dilations"] != (1, 1):
        raise ValueError("conv2d: strides and dilations cannot both be greater than 1 (as in "
                         "TensorFlow).")
    _conv2d_infer(x, filters, **attrs)  # shape errors name the op eagerly too
    return apply_op(CONV2D, (x, filters), attrs)


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None):  # noqa: A002
    """1-D convolution of an NWC ``input`` with ``filters`` ``[width, in_channels,
    out_channels]``: ``conv2d`` over a height of 1."""
    _data_format("conv1d", data_format, (None, "NWC"))
    x, filters = _checked_operands("conv1d", input, filters, 3)

    def one(value, what):
        values = [value] if isinstance(value, (int, np.integer)) else list(value)
        if len(values) == 3:
            values = values[1:2] if values[0] == values[2] == 1 else values
        if len(values) != 1:
            raise ValueError(f"conv1d: {what} must be an int or a list of 1 or 3 ints, got "
                             f"{value!r}.")
        return [1, values[0]]

    result = conv2d(expand_dims(x, 1), expand_dims(filters, 0), one(stride, "stride"), padding,
                    dilations=one(1 if dilations is None else dilations, "dilations"))
    return squeeze(result, 1)
