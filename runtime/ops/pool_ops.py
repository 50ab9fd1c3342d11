"""2-D pooling (``rt.nn.max_pool2d``, ``rt.nn.avg_pool2d``) over NHWC inputs, on the window
views of ``conv_ops``.

As in TensorFlow, SAME padding never pools the padding: a max pool pads with the lowest
value, an average pool divides each window by the number of real elements in it. A max
pool's gradient goes to the first maximum of each window.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import GradientError, ShapeError
from runtime.ops.array_ops import where, zeros_like
from runtime.ops.conv_ops import (geometry, output_size, padding_arg, spatial, tap_slice,
                                  windows)
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.indexing import getitem
from runtime.ops.math_ops import greater
from runtime.ops.pad_ops import pad as pad_tensor
from runtime.ops.registry import OpDef, register
from runtime.tensor import format_shape

_ONES = (1, 1)


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _padded(x, pad, value):
    return np.pad(x, ((0, 0), pad[0], pad[1], (0, 0)), constant_values=value)


def _max_pool(x, ksize, strides, padding):
    out, pad = geometry(x.shape, ksize, strides, _ONES, padding)
    view = windows(_padded(x, pad, _lowest(x.dtype)), ksize, strides, _ONES, out)
    return view.max(axis=(3, 4))


def _counts(shape, ksize, strides, padding, dtype):
    """How many real (unpadded) elements each window of an average pool holds."""
    out, pad = geometry(shape, ksize, strides, _ONES, padding)
    ones = _padded(np.ones((1,) + tuple(shape[1:3]) + (1,), dtype), pad, 0)
    return windows(ones, ksize, strides, _ONES, out).sum(axis=(3, 4))


def _avg_pool(x, ksize, strides, padding):
    out, pad = geometry(x.shape, ksize, strides, _ONES, padding)
    view = windows(_padded(x, pad, 0), ksize, strides, _ONES, out)
    return (view.sum(axis=(3, 4)) / _counts(x.shape, ksize, strides, padding, x.dtype)
            ).astype(x.dtype, copy=False)


def _scatter_taps(x_shape, dtype, ksize, strides, padding, contribution):
    """The input gradient: ``contribution(i, j)`` (shaped like the output) added at the
    positions tap ``(i, j)`` of every window reads, cropped back to the input."""
    (oh, ow), pad = geometry(x_shape, ksize, strides, _ONES, padding)
    n, h, w, c = x_shape
    grad = np.zeros((n, h + sum(pad[0]), w + sum(pad[1]), c), dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            grad[:, tap_slice(i, 1, strides[0], oh), tap_slice(j, 1, strides[1], ow), :] += \
                contribution(i, j)
    return grad[:, pad[0][0]:pad[0][0] + h, pad[1][0]:pad[1][0] + w, :]


def _max_pool_grad_kernel(x, dy, ksize, strides, padding):
    out, pad = geometry(x.shape, ksize, strides, _ONES, padding)
    view = windows(_padded(x, pad, _lowest(x.dtype)), ksize, strides, _ONES, out)
    n, oh, ow, kh, kw, c = view.shape
    first = np.moveaxis(view, 5, 3).reshape(n, oh, ow, c, kh * kw).argmax(-1)
    return _scatter_taps(x.shape, dy.dtype, ksize, strides, padding,
                         lambda i, j: np.where(first == i * kw + j, dy, 0))


def _avg_pool_grad_kernel(x, dy, ksize, strides, padding):
    share = dy / _counts(x.shape, ksize, strides, padding, dy.dtype)
    return _scatter_taps(x.shape, dy.dtype, ksize, strides, padding, lambda i, j: share)


def _pool_infer(x, ksize, strides, padding):
    if x.shape is None:
        return x.dtype, None
    if len(x.shape) != 4:
        raise ShapeError(f"pooling needs an input of shape [batch, height, width, channels], "
                         f"got {format_shape(x.shape)}.")
    out = [output_size(x.shape[1 + i], ksize[i], strides[i], 1, padding) for i in range(2)]
    return x.dtype, (x.shape[0], out[0], out[1], x.shape[3])


def _max_pool_grad(node, dy):
    return (apply_op(MAX_POOL_GRAD, (node.inputs[0], dy), node.attrs),)


def _avg_pool_grad(node, dy):
    return (apply_op(AVG_POOL_GRAD, (node.inputs[0], dy), node.attrs),)


def _max_pool_grad_grad(node, g):
    """Linear in ``dy``: its gradient is ``g`` at each window's first maximum (where ``dy``
    went), gathered with the kernel's tie rule; ``x`` only picks the positions, so its
    gradient is zeros, as in TensorFlow."""
    x = node.inputs[0]
    if x.shape is None or None in x.shape[1:3]:
        raise GradientError("the second derivative of max_pool2d needs the input's height and "
                            "width while tracing; give the function an input_signature with "
                            "those sizes.")
    ksize, strides = node.attrs["ksize"], node.attrs["strides"]
    out, pad = geometry(x.shape, ksize, strides, _ONES, node.attrs["padding"])
    paddings = [[0, 0], list(pad[0]), list(pad[1]), [0, 0]]
    inputs = pad_tensor(x, paddings, constant_values=_lowest(x.dtype))
    grads = pad_tensor(g, paddings)
    best = picked = None
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            key = (slice(None), tap_slice(i, 1, strides[0], out[0]),
                   tap_slice(j, 1, strides[1], out[1]), slice(None))
            candidate, value = getitem(inputs, key), getitem(grads, key)
            if best is None:
                best, picked = candidate, value
                continue
            later = greater(candidate, best)  # strictly: the first maximum keeps its place
            best, picked = where(later, candidate, best), where(later, value, picked)
    return zeros_like(x), picked


def _avg_pool_grad_grad(node, g):
    """Linear in ``dy``: its gradient is the average pool of ``g``."""
    return None, apply_op(AVG_POOL, (g,), node.attrs)


MAX_POOL = register(OpDef("max_pool2d", _max_pool, _pool_infer, gradient=_max_pool_grad))
AVG_POOL = register(OpDef("avg_pool2d", _avg_pool, _pool_infer, gradient=_avg_pool_grad))
MAX_POOL_GRAD = register(OpDef("max_pool2d_grad", _max_pool_grad_kernel,
                               lambda x, dy, **attrs: (dy.dtype, x.shape),
                               gradient=_max_pool_grad_grad))
AVG_POOL_GRAD = register(OpDef("avg_pool2d_grad", _avg_pool_grad_kernel,
                               lambda x, dy, **attrs: (dy.dtype, x.shape),
                               gradient=_avg_pool_grad_grad))


def _pool(op: OpDef, op_name: str, input, ksize, strides, padding, data_format):  # noqa: A002
    if data_format not in (None, "NHWC"):
        raise ValueError(f"{op_name}: only data_format='NHWC' is supported, got "
                         f"{data_format!r}.")
    x = convert_to_tensor(input)
    if x.ndim is not None and x.ndim != 4:
        raise ShapeError(f"{op_name} needs an input of shape [batch, height, width, channels], "
                         f"got {format_shape(x.shape)}.")
    if op is AVG_POOL and x.dtype.kind != "f":
        raise TypeError(f"{op_name} needs a float input, got {x.dtype.name}.")
    attrs = {"ksize": spatial(op_name, ksize, "ksize"),
             "strides": spatial(op_name, strides, "strides"),
             "padding": padding_arg(op_name, padding)}
    return apply_op(op, (x,), attrs)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC"):  # noqa: A002
    """The largest value of each ``ksize`` window of an NHWC input, per channel."""
    return _pool(MAX_POOL, "max_pool2d", input, ksize, strides, padding, data_format)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC"):  # noqa: A002
    """The mean of each ``ksize`` window of an NHWC input (padding not counted)."""
    return _pool(AVG_POOL, "avg_pool2d", input, ksize, strides, padding, data_format)
