"""Cumulative sums, products and log-sum-exps along an axis (``exclusive``: each element
leaves itself out; ``reverse``: accumulate from the end), as TensorFlow's ``cumsum``,
``cumprod`` and ``cumulative_logsumexp``."""

from __future__ import annotations

import numpy as np

from runtime.errors import GraphTypeError
from runtime.ops.array_ops import ones_like, where, zeros_like
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.math_composites import divide_no_nan
from runtime.ops.math_ops import exp, greater, log, logical_and, multiply, negative
from runtime.ops.special_math_ops import is_finite
from runtime.ops.registry import OpDef, register
from runtime.ops.shapes import normalize_axis
from runtime.tensor import Tensor


def _scan(ufunc: np.ufunc, identity=None):
    """The kernel of a scan by ``ufunc``, whose identity (for ``exclusive``) is ``identity``
    when NumPy does not know it (``logaddexp``'s is -inf)."""
    identity = ufunc.identity if identity is None else identity

    def kernel(x, axis, exclusive, reverse):
        if reverse:
            x = np.flip(x, axis)
        result = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
        if exclusive and x.shape[axis]:  # shift by one: the identity first, the last total dropped
            head = np.full_like(np.take(result, [0], axis=axis), identity)
            result = np.concatenate([head, np.delete(result, -1, axis=axis)], axis=axis)
        return np.flip(result, axis) if reverse else result
    return kernel


def _infer(x, axis, exclusive, reverse):
    return x.dtype, x.shape


def _cumsum_grad(node, dy):
    """Each input reaches the outputs after it (before it when reversed)."""
    attrs = dict(node.attrs, reverse=not node.attrs["reverse"])
    return (apply_op(CUMSUM, (dy,), attrs),)


def _cumprod_grad(node, dy):
    """TensorFlow's rule: the reversed sum of ``dy * output``, divided by the input (0 where
    the input is 0, where the rule does not hold)."""
    x, y = node.inputs[0], node.outputs[0]
    attrs = dict(node.attrs, reverse=not node.attrs["reverse"])
    return (divide_no_nan(apply_op(CUMSUM, (multiply(dy, y),), attrs), x),)


def _logsumexp_grad(node, dy):
    """``dx[i] = sum over the outputs j that include x[i] of dy[j] * exp(x[i] - out[j])``: the
    same scan reversed, in log space (as TensorFlow computes it) on the positive and the
    negative parts of ``dy``, so that nothing overflows. An output of -inf (an exclusive
    scan's first) includes no input and is left out."""
    x, out = node.inputs[0], node.outputs[0]
    attrs = dict(node.attrs, reverse=not node.attrs["reverse"])
    finite = is_finite(out)
    safe_out = where(finite, out, zeros_like(out))

    def part(weights):
        logs = where(logical_and(greater(weights, 0), finite),
                     log(where(greater(weights, 0), weights, ones_like(weights))) - safe_out,
                     -np.inf)
        return exp(apply_op(CUMULATIVE_LOGSUMEXP, (logs,), attrs) + x)
    return (part(dy) - part(negative(dy)),)


CUMSUM = register(OpDef("cumsum", _scan(np.add), _infer, gradient=_cumsum_grad))
CUMPROD = register(OpDef("cumprod", _scan(np.multiply), _infer, gradient=_cumprod_grad))
CUMULATIVE_LOGSUMEXP = register(OpDef("cumulative_logsumexp", _scan(np.logaddexp, -np.inf),
                                      _infer, gradient=_logsumexp_grad))


def _apply(op: OpDef, x, axis: int, exclusive: bool, reverse: bool) -> Tensor:
    x = convert_to_tensor(x)
    rank = None if x.shape is None else len(x.shape)
    if x.dtype.kind not in "iufc":
        raise GraphTypeError(f"{op.name}: not defined for dtype {x.dtype.name}; cast to a "
                             f"number first.")
    if rank == 0:
        raise ValueError(f"{op.name}: the input must have at least one dimension, got a scalar.")
    attrs = {"axis": normalize_axis(op.name, int(axis), rank),
             "exclusive": bool(exclusive), "reverse": bool(reverse)}
    return apply_op(op, (x,), attrs)


def cumsum(x, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """The running sum of ``x`` along ``axis``."""
    return _apply(CUMSUM, x, axis, exclusive, reverse)


def cumprod(x, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """The running product of ``x`` along ``axis``."""
    return _apply(CUMPROD, x, axis, exclusive, reverse)


def cumulative_logsumexp(x, axis: int = 0, exclusive: bool = False,
                         reverse: bool = False) -> Tensor:
    """The running ``log(sum(exp(x)))`` along ``axis``, computed without overflow (floats
    only, as in TensorFlow; an exclusive scan starts at -inf)."""
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise GraphTypeError(f"cumulative_logsumexp: x must be float, got {x.dtype.name}; "
                             f"use rt.cast to convert.")
    return _apply(CUMULATIVE_LOGSUMEXP, x, axis, exclusive, reverse)
