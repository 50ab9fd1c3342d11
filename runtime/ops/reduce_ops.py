"""Reductions over axes (``axis=None`` reduces everything), keeping integer dtypes.

The gradient rules of the differentiable reductions are set in ``runtime.ops.math_ops``: they
broadcast a gradient back with ``broadcast_to``, and ``runtime.ops.broadcast_ops`` sits above
this module (its ``sum_to_shape`` is a ``reduce_sum``).
"""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, Promotion, register
from runtime.ops.shapes import normalize_axes, reduced_shape


def _axis_arg(axes):
    if axes is None or len(axes) != 1:
        return axes
    return axes[0]


def _lowest(dtype: np.dtype):
    """What the maximum of nothing is in TensorFlow: the dtype's lowest value."""
    if dtype.kind == "b":
        return False
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype: np.dtype):
    """What the minimum of nothing is in TensorFlow: the dtype's highest value."""
    if dtype.kind == "b":
        return True
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _ufunc_reduction(name: str, ufunc: np.ufunc, keep_int_dtype: bool, of_nothing=None) -> OpDef:
    """sum/prod keep int32 as int32 (NumPy would widen to int64); max/min keep any dtype.
    ``of_nothing(dtype)``: the result over no elements, where NumPy has none and raises."""
    def kernel(x, axis=None, keepdims=False):
        dtype = x.dtype if keep_int_dtype and x.dtype.kind in "iu" else None
        if of_nothing is not None and x.size == 0:
            return ufunc.reduce(x, axis=_axis_arg(axis), keepdims=keepdims,
                                initial=of_nothing(x.dtype))
        return ufunc.reduce(x, axis=_axis_arg(axis), dtype=dtype, keepdims=keepdims)

    def infer(x, axis=None, keepdims=False):
        if keep_int_dtype and x.dtype.kind in "iu":
            dtype = x.dtype
        else:
            dtype = np.result_type(ufunc.reduce(np.zeros(1, x.dtype)))
        return dtype, reduced_shape(x.shape, axis, keepdims)

    def bind(attrs, input_types):
        axis, keepdims = _axis_arg(attrs.get("axis")), attrs.get("keepdims", False)
        in_dtype = input_types[0][0]
        dtype = in_dtype if keep_int_dtype and in_dtype.kind in "iu" else None
        reduce = ufunc.reduce
        if of_nothing is not None:
            initial = of_nothing(in_dtype)

            def reduce_maybe_nothing(x):
                try:
                    return reduce(x, axis, None, None, keepdims)
                except ValueError:  # no elements along the axes: TensorFlow's result
                    if x.size:
                        raise
                    return reduce(x, axis, None, None, keepdims, initial)
            return reduce_maybe_nothing
        if dtype is None and not keepdims:
            return lambda x: reduce(x, axis)
        return lambda x: reduce(x, axis, dtype, None, keepdims)

    return register(OpDef(name, kernel, infer, bind=bind))


def _mean_kernel(x, axis=None, keepdims=False):
    if x.dtype.kind in "iu":
        # Integer mean truncates toward zero and keeps the dtype, as in TensorFlow.
        total = np.add.reduce(x, axis=_axis_arg(axis), dtype=np.int64, keepdims=keepdims)
        count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
        if count == 0:
            raise ValueError("the mean of an empty integer tensor is undefined")
        quotient = np.abs(total) // count
        return (np.sign(total) * quotient).astype(x.dtype)
    if x.dtype == np.bool_:
        raise TypeError("reduce_mean is not defined for bool tensors; cast to a number first")
    count = x.size if axis is None else int(np.prod([x.shape[a] for a in axis]))
    if count == 0 or x.dtype.kind == "c":
        return np.mean(x, axis=_axis_arg(axis), keepdims=keepdims, dtype=x.dtype)
    # np.mean's own steps (a sum in the dtype, divided by a Python int count, which keeps the
    # dtype), without its wrapper layers: a training step's loss is a mean.
    return np.add.reduce(x, _axis_arg(axis), x.dtype, None, keepdims) / count


def _bool_reduction(name: str, reducer) -> OpDef:
    def kernel(x, axis=None, keepdims=False):
        return reducer(x, axis=_axis_arg(axis), keepdims=keepdims)
    return register(OpDef(name, kernel, lambda x, axis=None, keepdims=False:
                          (dtypes.bool_, reduced_shape(x.shape, axis, keepdims)),
                          gradient=NOT_DIFFERENTIABLE))


def _arg_reduction(name: str, reducer) -> OpDef:
    def kernel(x, axis=0, output_type=dtypes.int64):
        return reducer(x, axis=axis).astype(output_type)

    def infer(x, axis=0, output_type=dtypes.int64):
        return output_type, reduced_shape(x.shape, (axis,), False)
    return register(OpDef(name, kernel, infer, gradient=NOT_DIFFERENTIABLE))


REDUCE_SUM = _ufunc_reduction("reduce_sum", np.add, keep_int_dtype=True)
REDUCE_PROD = _ufunc_reduction("reduce_prod", np.multiply, keep_int_dtype=True)
REDUCE_MAX = _ufunc_reduction("reduce_max", np.maximum, keep_int_dtype=False, of_nothing=_lowest)
REDUCE_MIN = _ufunc_reduction("reduce_min", np.minimum, keep_int_dtype=False, of_nothing=_highest)
REDUCE_MEAN = register(OpDef("reduce_mean", _mean_kernel, lambda x, axis=None, keepdims=False: (
    x.dtype, reduced_shape(x.shape, axis, keepdims))))


def _logsumexp_kernel(x, axis=None, keepdims=False):
    # Shifted by the largest value so that exp cannot overflow; an infinite maximum (all -inf,
    # or a +inf) shifts by 0 instead, as TensorFlow does, which gives -inf or +inf.
    axis = _axis_arg(axis)
    peak = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    peak = np.where(np.isfinite(peak), peak, peak.dtype.type(0))
    with np.errstate(divide="ignore"):  # log(0) is -inf: the sum of an all -inf slice
        total = np.log(np.sum(np.exp(x - peak), axis=axis, keepdims=keepdims))
    return total + (peak if keepdims else np.squeeze(peak, axis))


def _logsumexp_infer(x, axis=None, keepdims=False):
    return x.dtype, reduced_shape(x.shape, axis, keepdims)


def _reduced_first(x, axis):
    """``x`` with the reduced axes moved to the front and flattened into one, the others into
    a second: a matrix, and the function that gives an array of its shape ``x``'s layout."""
    axes = tuple(range(x.ndim)) if axis is None else tuple(axis)
    perm = axes + tuple(a for a in range(x.ndim) if a not in axes)
    moved = np.transpose(x, perm)
    count = int(np.prod(moved.shape[:len(axes)], dtype=np.int64))
    return (moved.reshape(count, moved.size // count),
            lambda flat: np.transpose(flat.reshape(moved.shape), np.argsort(perm)))


def _product_of_others(x, axis=None):
    """Each element's share of ``reduce_prod``: the product of the other elements along the
    reduced axes, by exclusive cumulative products from both ends (no division, so zeros
    are exact), as TensorFlow's gradient of ``Prod`` computes it."""
    if x.size == 0:
        return np.ones_like(x)
    flat, restore = _reduced_first(x, axis)
    one = np.ones((1, flat.shape[1]), x.dtype)
    before = np.cumprod(np.concatenate([one, flat[:-1]]), axis=0)
    after = np.cumprod(np.concatenate([one, flat[:0:-1]]), axis=0)[::-1]
    return restore(before * after)


def _exclusive_dual_products(values, tangents):
    """Exclusive cumulative products of dual numbers ``value + tangent * e`` (``e * e = 0``)
    along axis 0: the products of the rows before each row, and their tangents."""
    product, tangent = np.ones_like(values[0]), np.zeros_like(values[0])
    products, product_tangents = np.empty_like(values), np.empty_like(values)
    for row in range(len(values)):
        products[row], product_tangents[row] = product, tangent
        product, tangent = product * values[row], tangent * values[row] + product * tangents[row]
    return products, product_tangents


def _product_of_others_grad(x, dy, axis=None):
    """The gradient of ``product_of_others``: element ``j`` gets the sum over ``i != j`` of
    ``dy[i]`` times the product of the elements other than ``i`` and ``j``. That Jacobian is
    symmetric, so this is also the derivative of the products of others in the direction
    ``dy``: dual numbers carry it through the products from both ends, without division."""
    if x.size == 0:
        return np.zeros_like(x)
    flat, restore = _reduced_first(x, axis)
    flat_dy, _ = _reduced_first(np.broadcast_to(dy, x.shape), axis)
    before, before_tangent = _exclusive_dual_products(flat, flat_dy)
    after, after_tangent = _exclusive_dual_products(flat[::-1], flat_dy[::-1])
    after, after_tangent = after[::-1], after_tangent[::-1]
    return restore(before_tangent * after + before * after_tangent)


def _product_of_others_gradient(node, dy):
    x = node.inputs[0]
    return (apply_op(PRODUCT_OF_OTHERS_GRAD, (x, dy), {"axis": node.attrs["axis"]}),)


REDUCE_LOGSUMEXP = register(OpDef("reduce_logsumexp", _logsumexp_kernel, _logsumexp_infer))
# The gradient of reduce_prod is built from product_of_others, and its gradient (the second
# derivative of reduce_prod) from product_of_others_grad. That one has no rule: a third
# derivative through reduce_prod raises GradientError.
PRODUCT_OF_OTHERS = register(OpDef("product_of_others", _product_of_others,
                                   lambda x, axis=None: (x.dtype, x.shape),
                                   gradient=_product_of_others_gradient))
PRODUCT_OF_OTHERS_GRAD = register(OpDef("product_of_others_grad", _product_of_others_grad,
                                        lambda x, dy, axis=None: (x.dtype, x.shape),
                                        promotion=Promotion.COMMON))
REDUCE_ANY = _bool_reduction("reduce_any", np.any)
REDUCE_ALL = _bool_reduction("reduce_all", np.all)
ARGMAX = _arg_reduction("argmax", np.argmax)
ARGMIN = _arg_reduction("argmin", np.argmin)


def _reduce(op: OpDef, x, axis, keepdims):
    x = convert_to_tensor(x)
    axes = normalize_axes(op.name, axis, x.ndim)
    return apply_op(op, (x,), {"axis": axes, "keepdims": bool(keepdims)})


def reduce_sum(x, axis=None, keepdims=False):
    """Sum over ``axis`` (an int, a tuple of ints, or None for all axes)."""
    return _reduce(REDUCE_SUM, x, axis, keepdims)


def reduce_prod(x, axis=None, keepdims=False):
    """Product of the elements along ``axis`` (all if None), size 1 with ``keepdims``."""
    return _reduce(REDUCE_PROD, x, axis, keepdims)


def reduce_max(x, axis=None, keepdims=False):
    """Largest element along ``axis`` (all if None), size 1 with ``keepdims``."""
    return _reduce(REDUCE_MAX, x, axis, keepdims)


def reduce_min(x, axis=None, keepdims=False):
    """Smallest element along ``axis`` (all if None), size 1 with ``keepdims``."""
    return _reduce(REDUCE_MIN, x, axis, keepdims)


def reduce_mean(x, axis=None, keepdims=False):
    """Mean over ``axis``; integer tensors give a truncated integer mean (TensorFlow's rule)."""
    return _reduce(REDUCE_MEAN, x, axis, keepdims)


def reduce_logsumexp(x, axis=None, keepdims=False):
    """``log(reduce_sum(exp(x), axis, keepdims))``, computed without overflow: the largest
    value is taken out before exponentiating."""
    x = convert_to_tensor(x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"reduce_logsumexp needs a floating-point tensor, got {x.dtype.name}; "
                        f"use rt.cast to convert.")
    return _reduce(REDUCE_LOGSUMEXP, x, axis, keepdims)


def product_of_others(x, axis=None):
    """For each element of ``x``, the product of the others along the (normalized) ``axis``."""
    return apply_op(PRODUCT_OF_OTHERS, (x,), {"axis": axis})


def reduce_any(x, axis=None, keepdims=False):
    """Logical or of the elements along ``axis`` (all axes if None), as a bool tensor."""
    return _reduce(REDUCE_ANY, x, axis, keepdims)


def reduce_all(x, axis=None, keepdims=False):
    """Logical and of the elements along ``axis`` (all axes if None), as a bool tensor."""
    return _reduce(REDUCE_ALL, x, axis, keepdims)


def _arg(op: OpDef, x, axis, output_type):
    x = convert_to_tensor(x)
    axis = normalize_axes(op.name, 0 if axis is None else axis, x.ndim)[0]
    return apply_op(op, (x,), {"axis": axis, "output_type": dtypes.as_dtype(output_type)})


def argmax(x, axis=None, output_type=dtypes.int64):
    """Index of the largest value along ``axis`` (default 0)."""
    return _arg(ARGMAX, x, axis, output_type)


def argmin(x, axis=None, output_type=dtypes.int64):
    """Index of the smallest element along ``axis`` (the first on ties), as ``output_type``."""
    return _arg(ARGMIN, x, axis, output_type)
