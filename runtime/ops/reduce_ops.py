"""Reductions over axes (``axis=None`` reduces everything), keeping integer dtypes."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import normalize_axes, reduced_shape


def _axis_arg(axes):
    if axes is None or len(axes) != 1:
        return axes
    return axes[0]


def _ufunc_reduction(name: str, ufunc: np.ufunc, keep_int_dtype: bool) -> OpDef:
    """sum/prod keep int32 as int32 (NumPy would widen to int64); max/min keep any dtype."""
    def kernel(x, axis=None, keepdims=False):
        dtype = x.dtype if keep_int_dtype and x.dtype.kind in "iu" else None
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
    return np.mean(x, axis=_axis_arg(axis), keepdims=keepdims, dtype=x.dtype)


def _bool_reduction(name: str, reducer) -> OpDef:
    def kernel(x, axis=None, keepdims=False):
        return reducer(x, axis=_axis_arg(axis), keepdims=keepdims)
    return register(OpDef(name, kernel, lambda x, axis=None, keepdims=False:
                          (dtypes.bool_, reduced_shape(x.shape, axis, keepdims))))


def _arg_reduction(name: str, reducer) -> OpDef:
    def kernel(x, axis=0, output_type=dtypes.int64):
        return reducer(x, axis=axis).astype(output_type)

    def infer(x, axis=0, output_type=dtypes.int64):
        return output_type, reduced_shape(x.shape, (axis,), False)
    return register(OpDef(name, kernel, infer))


REDUCE_SUM = _ufunc_reduction("reduce_sum", np.add, keep_int_dtype=True)
REDUCE_PROD = _ufunc_reduction("reduce_prod", np.multiply, keep_int_dtype=True)
REDUCE_MAX = _ufunc_reduction("reduce_max", np.maximum, keep_int_dtype=False)
REDUCE_MIN = _ufunc_reduction("reduce_min", np.minimum, keep_int_dtype=False)
REDUCE_MEAN = register(OpDef("reduce_mean", _mean_kernel, lambda x, axis=None, keepdims=False: (
    x.dtype, reduced_shape(x.shape, axis, keepdims))))
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
    return _reduce(REDUCE_PROD, x, axis, keepdims)


def reduce_max(x, axis=None, keepdims=False):
    return _reduce(REDUCE_MAX, x, axis, keepdims)


def reduce_min(x, axis=None, keepdims=False):
    return _reduce(REDUCE_MIN, x, axis, keepdims)


def reduce_mean(x, axis=None, keepdims=False):
    """Mean over ``axis``; integer tensors give a truncated integer mean (TensorFlow's rule)."""
    return _reduce(REDUCE_MEAN, x, axis, keepdims)


def reduce_any(x, axis=None, keepdims=False):
    return _reduce(REDUCE_ANY, x, axis, keepdims)


def reduce_all(x, axis=None, keepdims=False):
    return _reduce(REDUCE_ALL, x, axis, keepdims)


def _arg(op: OpDef, x, axis, output_type):
    x = convert_to_tensor(x)
    axis = normalize_axes(op.name, 0 if axis is None else axis, x.ndim)[0]
    return apply_op(op, (x,), {"axis": axis, "output_type": dtypes.as_dtype(output_type)})


def argmax(x, axis=None, output_type=dtypes.int64):
    """Index of the largest value along ``axis`` (default 0)."""
    return _arg(ARGMAX, x, axis, output_type)


def argmin(x, axis=None, output_type=dtypes.int64):
    return _arg(ARGMIN, x, axis, output_type)
