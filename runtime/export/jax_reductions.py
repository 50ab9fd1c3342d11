"""Reductions in JAX, with the graph's dtypes and errors.

Sums and products accumulate in the output's dtype (int32 stays int32 and wraps, as the
graph's kernels do); an integer mean sums in int64 and truncates toward zero (TensorFlow's
rule, the graph's kernel), so it needs JAX's 64-bit types. A maximum, minimum, argmax or
argmin over an empty axis raises when it runs, as NumPy does (XLA would give -inf or 0).
"""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp

from runtime.export.jax_checks import fails
from runtime.export.jax_math import operands, out_dtype
from runtime.export.jax_values import require_x64, to_jax
from runtime.ops import reduce_ops as r


def _axes(node):
    return node.attrs.get("axis")


def _count(x, axes) -> int:
    dims = x.shape if axes is None else [x.shape[a] for a in axes]
    return int(np.prod(dims, dtype=np.int64))


def _empty(node, x, axes, message: str):
    """The output of a reduction that raises on an empty axis, or None if none is empty."""
    if _count(x, axes):
        return None
    keepdims = node.attrs.get("keepdims", False)
    shape = jax.eval_shape(lambda v: jnp.sum(v, axis=axes, keepdims=keepdims), x).shape
    return fails(node, message, [(out_dtype(node), shape)])[0]


def _accumulate(fn):
    """sum, prod: in the output dtype (bools count as int64 in NumPy's add.reduce)."""
    def rule(node, x):
        (x,) = operands(node, (x,))
        return fn(x, axis=_axes(node), dtype=x.dtype, keepdims=node.attrs["keepdims"])
    return rule


def _extremum(fn):
    def rule(node, x):
        x = to_jax(x, x.dtype, node)
        empty = _empty(node, x, _axes(node), "zero-size array to reduction operation which "
                                             "has no identity")
        if empty is not None:
            return empty
        return fn(x, axis=_axes(node), keepdims=node.attrs["keepdims"]).astype(out_dtype(node))
    return rule


def _mean(node, x):
    x = to_jax(x, x.dtype, node)
    axes, keepdims = _axes(node), node.attrs["keepdims"]
    count = _count(x, axes)
    if x.dtype.kind in "iu":
        if count == 0:
            return _empty(node, x, axes, "the mean of an empty integer tensor is undefined")
        require_x64(node, np.dtype(np.int64), "its sum (an integer mean sums in int64)")
        total = jnp.sum(x.astype(np.int64), axis=axes, keepdims=keepdims, dtype=np.int64)
        return (jnp.sign(total) * (jnp.abs(total) // count)).astype(x.dtype)
    total = jnp.sum(x, axis=axes, keepdims=keepdims, dtype=x.dtype)
    return (total / count).astype(x.dtype)  # 0 / 0: NaN, as np.mean of an empty tensor


def _logsumexp(node, x):
    (x,) = operands(node, (x,))
    axes, keepdims = _axes(node), node.attrs["keepdims"]
    peak = jnp.max(x, axis=axes, keepdims=True, initial=-jnp.inf)
    peak = jnp.where(jnp.isfinite(peak), peak, jnp.zeros_like(peak))
    total = jnp.log(jnp.sum(jnp.exp(x - peak), axis=axes, keepdims=keepdims))
    return total + (peak if keepdims else jnp.squeeze(peak, axes))


def _truth_reduction(fn):
    def rule(node, x):
        x = to_jax(x, x.dtype, node)
        return fn(x, axis=_axes(node), keepdims=node.attrs["keepdims"])
    return rule


def _arg(fn, name: str):
    def rule(node, x):
        x = to_jax(x, x.dtype, node)
        axis = node.attrs["axis"]
        if x.shape[axis] == 0:
            shape = x.shape[:axis] + x.shape[axis + 1:]
            return fails(node, f"attempt to get {name} of an empty sequence",
                         [(out_dtype(node), shape)])[0]
        require_x64(node, out_dtype(node))
        return fn(x, axis=axis).astype(out_dtype(node))
    return rule


def _moved(x, axes):
    """``x`` with the reduced axes first, flattened into one, the others into a second, and
    the function that restores an array of that layout to ``x``'s."""
    axes = tuple(range(x.ndim)) if axes is None else tuple(axes)
    perm = axes + tuple(a for a in range(x.ndim) if a not in axes)
    moved = jnp.transpose(x, perm)
    count = int(np.prod(moved.shape[:len(axes)], dtype=np.int64))
    return (moved.reshape(count, -1),
            lambda flat: jnp.transpose(flat.reshape(moved.shape), np.argsort(perm)))


def product_of_others(x, axes):
    """Each element's product of the others along ``axes``: exclusive cumulative products
    from both ends (no division, so zeros are exact), as the graph's kernel computes it."""
    if x.size == 0:
        return jnp.ones_like(x)
    flat, restore = _moved(x, axes)
    one = jnp.ones((1, flat.shape[1]), x.dtype)
    before = jnp.cumprod(jnp.concatenate([one, flat[:-1]]), axis=0)
    after = jnp.cumprod(jnp.concatenate([one, flat[:0:-1]]), axis=0)[::-1]
    return restore(before * after)


def _product_of_others(node, x):
    (x,) = operands(node, (x,))
    return product_of_others(x, _axes(node))


def _product_of_others_grad(node, x, dy):
    """The derivative of the products of others in the direction ``dy`` (their Jacobian is
    symmetric, so this is also their gradient), as forward-mode JAX computes it."""
    x, dy = operands(node, (x, dy))
    axes = _axes(node)
    return jax.jvp(lambda v: product_of_others(v, axes), (x,), (jnp.broadcast_to(dy, x.shape),))[1]


LOWERINGS = {
    r.REDUCE_SUM: _accumulate(jnp.sum),
    r.REDUCE_PROD: _accumulate(jnp.prod),
    r.REDUCE_MAX: _extremum(jnp.max),
    r.REDUCE_MIN: _extremum(jnp.min),
    r.REDUCE_MEAN: _mean,
    r.REDUCE_LOGSUMEXP: _logsumexp,
    r.REDUCE_ANY: _truth_reduction(jnp.any),
    r.REDUCE_ALL: _truth_reduction(jnp.all),
    r.ARGMAX: _arg(jnp.argmax, "argmax"),
    r.ARGMIN: _arg(jnp.argmin, "argmin"),
    r.PRODUCT_OF_OTHERS: _product_of_others,
    r.PRODUCT_OF_OTHERS_GRAD: _product_of_others_grad,
}
