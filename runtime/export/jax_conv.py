"""Convolutions, pools and their gradients in JAX, with the graph's window geometry.

Shapes are known while JAX traces, so TensorFlow's SAME padding (odd totals put the extra
element after) is computed as explicit numbers from the kernels' own helpers
(``window_geometry``) rather than left to XLA. Convolutions ask for full precision
(``Precision.HIGHEST``), as ``jax_nn``'s matrix products do. The gradient ops are the exact
adjoints of the forward ops (``jax.linear_transpose`` of the convolution or of the window
sum), except ``max_pool2d_grad``, which gives each window's gradient to its first maximum (a
NaN counts as the maximum), as NumPy's ``argmax`` in the graph's kernel does.
"""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

from runtime.export.jax_math import operands, out_dtype
from runtime.export.window_geometry import output_hw, spatial_pads, window_counts
from runtime.ops import conv_ops, pool_ops

_NHWC = ("NHWC", "HWIO", "NHWC")


def _conv(x, filters, attrs):
    """The graph's conv2d of ``x`` (NHWC) with ``filters`` (HWIO), in their dtype."""
    pad = spatial_pads(x.shape[1:3], filters.shape[:2], attrs["strides"], attrs["dilations"],
                       attrs["padding"])
    return lax.conv_general_dilated(x, filters, attrs["strides"], pad,
                                    rhs_dilation=attrs["dilations"], dimension_numbers=_NHWC,
                                    precision=lax.Precision.HIGHEST,
                                    preferred_element_type=x.dtype)


def _conv2d(node, x, filters):
    return _conv(*operands(node, (x, filters)), node.attrs)


def _conv2d_backprop_input(node, x, filters, dy):
    """The transpose of the convolution in its input (``x`` gives only the shape)."""
    filters, dy = operands(node, (filters, dy))
    like = jax.ShapeDtypeStruct(np.shape(x), out_dtype(node))
    return jax.linear_transpose(lambda v: _conv(v, filters, node.attrs), like)(dy)[0]


def _conv2d_backprop_filter(node, x, filters, dy):
    """The transpose of the convolution in its filters (``filters`` gives only the shape)."""
    x, dy = operands(node, (x, dy))
    like = jax.ShapeDtypeStruct(np.shape(filters), out_dtype(node))
    return jax.linear_transpose(lambda w: _conv(x, w, node.attrs), like)(dy)[0]


def _window(attrs, x_shape) -> dict:
    ksize, strides = attrs["ksize"], attrs["strides"]
    pad = spatial_pads(x_shape[1:3], ksize, strides, (1, 1), attrs["padding"])
    return {"window_dimensions": (1, *ksize, 1), "window_strides": (1, *strides, 1),
            "padding": ((0, 0), *pad, (0, 0))}


def _lowest(dtype: np.dtype):
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _max_pool(node, x):
    """``lax.max`` keeps NaN, as NumPy's ``max`` does; padding never wins (SAME windows
    always hold a real element)."""
    (x,) = operands(node, (x,))
    return lax.reduce_window(x, np.asarray(_lowest(x.dtype), x.dtype), lax.max,
                             **_window(node.attrs, x.shape))


def _window_sum(x, attrs):
    # A NumPy init value lets JAX see a sum (reduce_window_sum, which it can transpose).
    return lax.reduce_window(x, np.zeros((), x.dtype), lax.add, **_window(attrs, x.shape))


def _counts(attrs, x_shape, dtype):
    return window_counts(x_shape[1:3], attrs["ksize"], attrs["strides"], attrs["padding"],
                         dtype)


def _avg_pool(node, x):
    """The window sum over the number of real elements in each window (TensorFlow's SAME)."""
    (x,) = operands(node, (x,))
    return _window_sum(x, node.attrs) / _counts(node.attrs, x.shape, x.dtype)


def _avg_pool_grad(node, x, dy):
    """Each window's share ``dy / count`` spread back over it: the window sum's transpose."""
    (dy,) = operands(node, (dy,))
    dtype = out_dtype(node)
    like = jax.ShapeDtypeStruct(np.shape(x), dtype)
    share = dy / _counts(node.attrs, np.shape(x), dtype)
    return jax.linear_transpose(lambda v: _window_sum(v, node.attrs), like)(share)[0]


def _max_pool_grad(node, x, dy):
    """``dy`` goes to the first maximum of each window: tap by tap in row-major order, a tap
    takes it where it holds the window's maximum (or a NaN) and no earlier tap did, and
    ``lax.pad`` (with interior padding: a strided slice's transpose) puts it back where the
    tap read it."""
    dtype = out_dtype(node)
    x = operands(node, (x,), node.inputs[0].dtype)[0]
    (dy,) = operands(node, (dy,))
    ksize, strides, padding = (node.attrs[k] for k in ("ksize", "strides", "padding"))
    out = output_hw(x.shape[1:3], ksize, strides, (1, 1), padding)
    pad = spatial_pads(x.shape[1:3], ksize, strides, (1, 1), padding)
    lowest = np.asarray(_lowest(x.dtype), x.dtype)
    padded = jnp.pad(x, ((0, 0), *pad, (0, 0)), constant_values=lowest)
    largest = lax.reduce_window(padded, lowest, lax.max, (1, *ksize, 1), (1, *strides, 1),
                                "VALID")
    full = padded.shape[1:3]
    grad, taken = None, jnp.zeros(dy.shape, bool)
    zero = np.zeros((), dtype)
    for i in range(ksize[0]):
        for j in range(ksize[1]):
            rows, cols = (conv_ops.tap_slice(tap, 1, strides[k], out[k])
                          for k, tap in enumerate((i, j)))
            values = padded[:, rows, cols, :]
            first = ~taken & ((values == largest) | jnp.isnan(values))
            taken = taken | first
            config = [(0, 0, 0)] + [
                (tap, full[k] - tap - (out[k] - 1) * strides[k] - 1, strides[k] - 1)
                for k, tap in enumerate((i, j))] + [(0, 0, 0)]
            spread = lax.pad(jnp.where(first, dy, zero), zero, config)
            grad = spread if grad is None else grad + spread
    h, w = x.shape[1:3]
    return grad[:, pad[0][0]:pad[0][0] + h, pad[1][0]:pad[1][0] + w, :]


LOWERINGS = {
    conv_ops.CONV2D: _conv2d,
    conv_ops.CONV2D_BACKPROP_INPUT: _conv2d_backprop_input,
    conv_ops.CONV2D_BACKPROP_FILTER: _conv2d_backprop_filter,
    pool_ops.MAX_POOL: _max_pool,
    pool_ops.AVG_POOL: _avg_pool,
    pool_ops.MAX_POOL_GRAD: _max_pool_grad,
    pool_ops.AVG_POOL_GRAD: _avg_pool_grad,
}
