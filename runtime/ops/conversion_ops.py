"""The ops that converting an op's inputs adds to a graph: ``cast`` and ``checked_cast``
(dtype promotion) and ``stack`` (a list of tensors given as one input).

They sit below ``runtime.ops.dispatch``, which adds them, and ``runtime.ops.array_ops``,
which defines their public functions, so both import this module at the top. The gradient
rules of ``stack`` and ``cast`` are built from ops defined above this module, so
``runtime.ops.array_ops`` sets them; ``checked_cast`` makes integers, which carry none.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import InvalidArgumentError, ShapeError
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.ops.shapes import normalize_axis, same_dtype
from runtime.tensor import format_shape


def _stack_infer(*values, axis):
    dtype = same_dtype("stack", values)
    shapes = [v.shape for v in values]
    if any(s is None for s in shapes):
        return dtype, None
    if len({len(s) for s in shapes}) != 1:
        raise ShapeError("stack: all inputs must have the same shape, got "
                         + ", ".join(format_shape(s) for s in shapes) + ".")
    merged = []
    for dims in zip(*shapes):
        known = {d for d in dims if d is not None}
        if len(known) > 1:
            raise ShapeError("stack: all inputs must have the same shape, got "
                             + ", ".join(format_shape(s) for s in shapes) + ".")
        merged.append(known.pop() if known else None)
    axis = normalize_axis("stack", axis, len(merged) + 1)
    merged.insert(axis, len(values))
    return dtype, tuple(merged)


STACK = register(OpDef("stack", lambda *values, axis: np.stack(values, axis=axis), _stack_infer))


def _cast_kernel(x, dtype):
    if x.dtype.kind == "c" and dtype.kind in "fiu":
        x = x.real  # what NumPy's astype keeps too, without its ComplexWarning (tf.cast's rule)
    return x.astype(dtype)


def _bind_cast(attrs, input_types):
    dtype = attrs["dtype"]
    if np.dtype(input_types[0][0]).kind == "c" and dtype.kind in "fiu":
        return lambda x: x.real.astype(dtype)
    return lambda x: x.astype(dtype)


CAST = register(OpDef("cast", _cast_kernel, lambda x, dtype: (dtype, x.shape), bind=_bind_cast))


def _checked_cast_kernel(x, dtype):
    if x.dtype.kind == "f":
        info = np.iinfo(dtype)
        whole = np.trunc(x).astype(np.float64)  # float64 holds every bound exactly
        fits = (whole >= float(info.min)) & (whole < float(info.max) + 1)  # False for NaN
    else:
        fits = x.astype(dtype) == x  # NumPy compares integers of mixed dtypes exactly
    if not np.all(fits):
        bad = x[~fits][0] if x.ndim else x
        raise InvalidArgumentError(
            f"the value {bad} does not fit in {dtype.name}. It stands for a Python number (the "
            f"result of int(), or a loop counter next to a tensor), which would raise rather "
            f"than wrap around or become another number; convert to a wider dtype first, e.g. "
            f"rt.cast(x, rt.int64).")
    return x.astype(dtype)


CHECKED_CAST = register(OpDef("checked_cast", _checked_cast_kernel,
                              lambda x, dtype: (dtype, x.shape), gradient=NOT_DIFFERENTIABLE))
