"""JAX for the special functions, shifts, scans, sorts and searches, with the runtime's results:
each rule computes in the dtype the graph gives the op's output, as ``jax_math``'s do."""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy.special import erf as jax_erf

from runtime.export.jax_math import operands
from runtime.export.jax_values import to_jax
from runtime.ops import bitwise_ops, pad_ops, scan_ops, sort_ops
from runtime.ops import special_math_ops as s


def _float(fn):
    def rule(node, *values):
        return fn(*operands(node, values))
    return rule


def _classification(fn):
    def rule(node, x):
        return fn(to_jax(x, node.inputs[0].dtype, node))
    return rule


def _log_sigmoid(node, x):
    (x,) = operands(node, (x,))
    return jnp.minimum(x, 0) - jnp.log1p(jnp.exp(-jnp.abs(x)))


def _truncatediv(node, x, y):
    x, y = operands(node, (x, y))
    if x.dtype.kind == "f":
        return jnp.trunc(x / y)
    zero = y == 0
    quotient = lax.div(x, jnp.where(zero, jnp.ones_like(y), y))  # rounds toward zero
    return jnp.where(zero, jnp.zeros_like(quotient), quotient)  # as NumPy: x // 0 == 0


def _truncatemod(node, x, y):
    x, y = operands(node, (x, y))
    if x.dtype.kind == "f":
        return jnp.fmod(x, y)
    zero = y == 0
    remainder = lax.rem(x, jnp.where(zero, jnp.ones_like(y), y))  # the sign of x, as C's %
    return jnp.where(zero, jnp.zeros_like(remainder), remainder)  # as NumPy: x % 0 == 0


def _shift(shift):
    """A shift by an amount clamped to ``[0, bits)``, as the runtime's kernel clamps it."""
    def rule(node, x, y):
        x, y = operands(node, (x, y))
        return shift(x, jnp.clip(y, 0, x.dtype.itemsize * 8 - 1))
    return rule


def _shift_right(x, y):
    """Arithmetic for signed integers, logical for unsigned ones, as NumPy's ``>>``."""
    shift = lax.shift_right_arithmetic if x.dtype.kind == "i" else lax.shift_right_logical
    return shift(x, y)


def _logsumexp_scan(x, axis, dtype):
    return lax.cumlogsumexp(x, axis=axis)


def _scan(accumulate, identity):
    def rule(node, x):
        (x,) = operands(node, (x,))
        axis, exclusive, reverse = (node.attrs[k] for k in ("axis", "exclusive", "reverse"))
        if reverse:
            x = jnp.flip(x, axis)
        result = accumulate(x, axis=axis, dtype=x.dtype)
        if exclusive and x.shape[axis]:
            head = jnp.full_like(lax.slice_in_dim(result, 0, 1, axis=axis), identity)
            result = jnp.concatenate([head, lax.slice_in_dim(result, 0, -1, axis=axis)], axis)
        return jnp.flip(result, axis) if reverse else result
    return rule


def _argsort(node, x):
    x = to_jax(x, node.inputs[0].dtype, node)
    axis = node.attrs["axis"]
    if not node.attrs["descending"]:
        return jnp.argsort(x, axis=axis, stable=True).astype(np.int32)
    order = jnp.argsort(jnp.flip(x, axis), axis=axis, stable=True)
    return (x.shape[axis] - 1 - jnp.flip(order, axis)).astype(np.int32)


def _grid_key(indices, axis: int) -> tuple:
    key = list(np.ogrid[tuple(slice(0, n) for n in indices.shape)])
    key[axis] = indices
    return tuple(key)


def _take_along_axis(node, x, indices):
    return jnp.asarray(x)[_grid_key(jnp.asarray(indices), node.attrs["axis"])]


def _take_along_axis_grad(node, dy, indices, like):
    result = jnp.zeros(jnp.shape(like), node.outputs[0].dtype)
    return result.at[_grid_key(jnp.asarray(indices), node.attrs["axis"])].add(dy)


def _searchsorted(node, sorted_sequence, values):
    sorted_sequence, values = jnp.asarray(sorted_sequence), jnp.asarray(values)
    rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    queries = values.reshape(-1, values.shape[-1])
    search = jax.vmap(lambda row, query: jnp.searchsorted(row, query, side=node.attrs["side"]))
    return search(rows, queries).astype(node.attrs["out_type"]).reshape(values.shape)


def _pad(node, x, value):
    return jnp.pad(jnp.asarray(x), node.attrs["paddings"], constant_values=jnp.asarray(value))


LOWERINGS = {
    s.ASIN: _float(jnp.arcsin),
    s.ACOS: _float(jnp.arccos),
    s.ATAN: _float(jnp.arctan),
    s.SINH: _float(jnp.sinh),
    s.COSH: _float(jnp.cosh),
    s.EXPM1: _float(jnp.expm1),
    s.ERF: _float(jax_erf),
    s.LOG_SIGMOID: _log_sigmoid,
    s.ATAN2: _float(jnp.arctan2),
    s.TRUNCATEDIV: _truncatediv,
    s.TRUNCATEMOD: _truncatemod,
    bitwise_ops.LEFT_SHIFT: _shift(lax.shift_left),
    bitwise_ops.RIGHT_SHIFT: _shift(_shift_right),
    s.IS_NAN: _classification(jnp.isnan),
    s.IS_INF: _classification(jnp.isinf),
    s.IS_FINITE: _classification(jnp.isfinite),
    scan_ops.CUMSUM: _scan(jnp.cumsum, 0),
    scan_ops.CUMPROD: _scan(jnp.cumprod, 1),
    scan_ops.CUMULATIVE_LOGSUMEXP: _scan(_logsumexp_scan, -np.inf),
    sort_ops.ARGSORT: _argsort,
    sort_ops.TAKE_ALONG_AXIS: _take_along_axis,
    sort_ops.TAKE_ALONG_AXIS_GRAD: _take_along_axis_grad,
    sort_ops.SEARCHSORTED: _searchsorted,
    pad_ops.PAD: _pad,
}
