"""Creating, reshaping, combining, converting and selecting tensors in JAX.

Ops whose result's shape depends on an operand (``range``, ``fill`` or ``reshape`` with a shape
tensor, ``argwhere``) need that operand known while JAX traces (see ``jax_values``): shapes and
constants are, values computed from the inputs are not, and those are refused with a message
saying so. Float-to-integer casts of NaN, infinities and values out of range follow NumPy on
x86 (the smallest integer, wrapped to narrow dtypes); ``checked_cast`` raises when it runs on
a value that does not fit, as the graph does.
"""

from __future__ import annotations

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

from runtime.export.jax_checks import check, fails
from runtime.export.jax_errors import refuse
from runtime.export.jax_math import operands, out_dtype, truth
from runtime.export.jax_values import known, require_x64, to_jax
from runtime.ops import array_ops as a
from runtime.ops import broadcast_ops as b
from runtime.ops import conversion_ops as c
from runtime.ops import ensure_shape_ops
from runtime.ops import gradient_ops as g
from runtime.ops.registry import OpDef
from runtime.ops.shapes import index_range_error


def kernel_message(op: OpDef, *arrays, **attrs) -> str:
    """What the graph's own kernel says about ``arrays`` (run on the host, on failure only)."""
    try:
        op.kernel(*arrays, **attrs)
    except Exception as error:  # noqa: BLE001 - its message is what we want
        return str(error)
    return "the op failed"


def first_outside(indices: np.ndarray, size: int):
    """The first index outside ``[-size, size)``, for messages."""
    return indices[(indices < -size) | (indices >= size)].ravel()[0]


def _shape(node, shape_input, what: str = "the shape operand") -> tuple:
    attr = node.attrs.get("shape")
    if attr is not None:
        return tuple(attr)
    return tuple(int(d) for d in known(node, shape_input, what))


def _numpy_kernel(what: str):
    """A rule for ops whose operands must be known: the graph's kernel runs on them."""
    def rule(node, *values):
        arrays = [known(node, v, what) for v in values]
        kernel = node.op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in arrays])
        return jnp.asarray(kernel(*arrays), dtype=out_dtype(node))
    return rule


# -- dtypes --------------------------------------------------------------------------------


def _float_to_int(x, dtype: np.dtype):
    """NumPy's conversion on x86: NaN, infinities and values out of range give the smallest
    int32 or int64 (narrower dtypes wrap that int32 around); the others truncate toward zero."""
    if dtype.kind == "u" and dtype.itemsize >= 4:
        return x.astype(dtype)  # exact for values in range; out of range depends on the CPU
    wide = np.dtype(np.int64) if dtype.itemsize == 8 else np.dtype(np.int32)
    info = np.iinfo(wide)
    whole = jnp.trunc(x)
    invalid = jnp.isnan(x) | (whole < float(info.min)) | (whole >= -float(info.min))
    converted = jnp.where(invalid, jnp.zeros_like(x), whole).astype(wide)
    converted = jnp.where(invalid, jnp.asarray(info.min, wide), converted)
    return converted if wide == dtype else converted.astype(dtype)


def _cast(node, x):
    dtype = node.attrs["dtype"]
    x = to_jax(x, x.dtype, node)
    require_x64(node, dtype)
    if x.dtype.kind == "c" and dtype.kind in "fiu":
        x = jnp.real(x)
    if dtype == np.bool_:
        return x != 0
    if x.dtype.kind == "f" and dtype.kind in "iu":
        return _float_to_int(x, dtype)
    return lax.convert_element_type(x, dtype)


def _fits(x, dtype: np.dtype):
    """Whether each value of ``x`` fits ``dtype`` exactly, as the kernel decides."""
    if x.dtype == np.bool_:
        return jnp.ones(x.shape, bool)
    if x.dtype.kind == "f":
        info = np.iinfo(dtype)
        whole = jnp.trunc(x)
        return (whole >= float(info.min)) & (whole < float(info.max) + 1)  # False for NaN
    back = x.astype(dtype).astype(x.dtype)
    fits = back == x
    if x.dtype.kind != dtype.kind:  # signed and unsigned: a wrap-around may come back equal
        fits = fits & (x >= 0)
    return fits


def _checked_cast(node, x):
    dtype = node.attrs["dtype"]
    x = to_jax(x, x.dtype, node)
    check(node, _fits(x, dtype),
          lambda values: kernel_message(c.CHECKED_CAST, values, dtype=dtype), x)
    return _cast(node, x)


# -- shapes --------------------------------------------------------------------------------


def _reshape(node, x, shape_input=None):
    shape = node.attrs.get("shape")
    if shape is None:
        shape = tuple(int(d) for d in known(node, shape_input, "the new shape"))
    return jnp.reshape(to_jax(x, x.dtype, node), shape)


def _unstack(node, x):
    x = to_jax(x, x.dtype, node)
    axis, num, index = node.attrs["axis"], node.attrs["num"], node.attrs["index"]
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim or x.shape[axis] != num:
        message = kernel_message(a.UNSTACK, np.zeros(x.shape, x.dtype), axis=axis, num=num,
                                 index=index)
        return fails(node, message, [(x.dtype, ())])[0]
    return x[(slice(None),) * (axis % x.ndim) + (index,)]


def _squeeze(node, x):
    return jnp.squeeze(to_jax(x, x.dtype, node), node.attrs["axis"])


def _shape_query(fn):
    """shape, size, rank: JAX's shapes are known while it traces, so these are constants."""
    def rule(node, x):
        return np.asarray(fn(x), dtype=out_dtype(node))
    return rule


def _broadcast_to(node, x, shape_input=None):
    return jnp.broadcast_to(to_jax(x, x.dtype, node), _shape(node, shape_input))


def _sum_to_shape(node, x, shape_input=None):
    x = to_jax(x, x.dtype, node)
    target = _shape(node, shape_input)
    lead = x.ndim - len(target)
    axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(target)
                                      if d == 1 and x.shape[lead + i] != 1)
    summed = jnp.sum(x, axis=axes, keepdims=True, dtype=x.dtype) if axes else x
    return summed.reshape(target)


# -- creation and selection ------------------------------------------------------------------


def _fill(node, value, shape_input=None):
    value = to_jax(value, value.dtype, node)
    return jnp.full(_shape(node, shape_input), value, dtype=value.dtype)


def _eye(node):
    require_x64(node, node.attrs["dtype"])
    return jnp.eye(node.attrs["n"], node.attrs["m"], dtype=node.attrs["dtype"])


def _where(node, condition, x, y):
    x, y = operands(node, (x, y))
    return jnp.where(truth(node, condition), x, y)


def _clip(node, t, lo, hi):
    t, lo, hi = operands(node, (t, lo, hi))
    return jnp.minimum(jnp.maximum(t, lo), hi)


def _gather(node, params, indices):
    params = to_jax(params, params.dtype, node)
    indices = to_jax(indices, indices.dtype, node)
    axis = node.attrs["axis"] % params.ndim
    size, shape = params.shape[axis], params.shape
    inside = (indices >= 0) & (indices < size)  # as the kernel: a negative index is an error
    check(node, inside, lambda values: index_range_error(values, size, shape, axis), indices)
    return jnp.take(params, indices, axis=axis, mode="clip")


def _identity(node, x):
    return x


def _stop_gradient(node, x):
    return lax.stop_gradient(to_jax(x, x.dtype, node))


def _ensure_shape(node, x):
    """``x``, whose shape JAX knows while it traces: a shape that does not match makes the
    call fail, as the graph fails."""
    x = to_jax(x, x.dtype, node)
    expected = node.attrs["shape"]
    if not (len(x.shape) == len(expected)
            and all(want is None or have == want for have, want in zip(x.shape, expected))):
        return fails(node, ensure_shape_ops.mismatch(x.shape, expected), [(x.dtype, x.shape)])[0]
    return x


def _custom_gradient(node, *values):
    """The forward values; a reverse-mode gradient through them is refused, since the user's
    gradient function builds eager2graph ops, which cannot run on JAX's tracers."""
    count = node.attrs["num_outputs"]

    @jax.custom_vjp
    def forward(*args):
        return tuple(args[:count])

    def forward_with_residuals(*args):
        return forward(*args), None

    def backward(_residuals, _cotangents):
        raise refuse(node, "its gradient comes from a function decorated with "
                           "@rt.custom_gradient, which builds eager2graph ops and cannot run "
                           "in JAX, so jax.grad cannot differentiate through it. Compute the "
                           "gradient in the exported function with rt.GradientTape instead.")
    forward.defvjp(forward_with_residuals, backward)
    return list(forward(*(to_jax(v, v.dtype, node) for v in values)))


LOWERINGS = {
    c.CAST: _cast,
    c.CHECKED_CAST: _checked_cast,
    c.STACK: lambda node, *values: jnp.stack(operands(node, values), axis=node.attrs["axis"]),
    a.RESHAPE: _reshape,
    a.DYNAMIC_RESHAPE: _reshape,
    a.TRANSPOSE: lambda node, x: jnp.transpose(to_jax(x, x.dtype, node), node.attrs["perm"]),
    a.CONCAT: lambda node, *values: jnp.concatenate(operands(node, values),
                                                    axis=node.attrs["axis"]),
    a.UNSTACK: _unstack,
    a.SQUEEZE: _squeeze,
    a.EXPAND_DIMS: lambda node, x: jnp.expand_dims(to_jax(x, x.dtype, node), node.attrs["axis"]),
    a.GATHER: _gather,
    a.FILL: _fill,
    a.EYE: _eye,
    a.RANGE: _numpy_kernel("a bound of range"),
    a.ARGWHERE: _numpy_kernel("the condition of where(condition) (the indices it is true at)"),
    a.WHERE: _where,
    a.CLIP: _clip,
    a.IDENTITY: _identity,
    ensure_shape_ops.ENSURE_SHAPE: _ensure_shape,
    a.SHAPE: _shape_query(lambda x: x.shape),
    a.SIZE: _shape_query(lambda x: x.size),
    a.RANK: _shape_query(lambda x: x.ndim),
    b.BROADCAST_TO: _broadcast_to,
    b.SUM_TO_SHAPE: _sum_to_shape,
    g.STOP_GRADIENT: _stop_gradient,
    g.CUSTOM_GRADIENT: _custom_gradient,
}
