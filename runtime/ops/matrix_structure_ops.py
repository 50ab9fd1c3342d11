"""Diagonals and bands of batched matrices (``rt.linalg.diag``, ``diag_part``, ``band_part``,
``trace``): each op's gradient is the other half of a pair (a diagonal's gradient places it
back on a zero matrix; a band's gradient is the same band of the incoming gradient)."""

from __future__ import annotations

import numpy as np

from runtime.errors import ShapeError
from runtime.ops.array_ops import expand_dims, eye
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.linalg_ops import matmul
from runtime.ops.math_ops import multiply
from runtime.ops.reduce_ops import reduce_sum
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape


def _at_least(op_name: str, x, rank: int) -> Tensor:
    x = convert_to_tensor(x)
    if x.ndim is not None and x.ndim < rank:
        raise ShapeError(f"{op_name} needs a tensor of rank {rank} or more, got shape "
                         f"{format_shape(x.shape)}.")
    return x


def _diag_kernel(x):
    n = x.shape[-1]
    out = np.zeros(x.shape + (n,), x.dtype)
    index = np.arange(n)
    out[..., index, index] = x
    return out


def _diag_part_kernel(x):
    return np.diagonal(x, axis1=-2, axis2=-1).copy()


def _diag_part_infer(x):
    if x.shape is None:
        return x.dtype, None
    rows, cols = x.shape[-2:]
    return x.dtype, x.shape[:-2] + (None if rows is None or cols is None else min(rows, cols),)


def _diag_part_grad(node, dy):
    """The diagonal back on zeros of the input's shape: ``eye(M, k) * dy`` puts it on an
    ``M x k`` matrix, and ``@ eye(k, N)`` widens that to ``M x N``."""
    x = node.inputs[0]
    if x.shape is None or None in x.shape[-2:]:
        raise ShapeError("the gradient of diag_part needs the matrix dimensions known while "
                         "tracing; give the function an input_signature with them.")
    rows, cols = x.shape[-2:]
    k = min(rows, cols)
    placed = multiply(eye(rows, k, dtype=dy.dtype), expand_dims(dy, -2))
    return (placed if k == cols else matmul(placed, eye(k, cols, dtype=dy.dtype)),)


def _band_mask(rows: int, cols: int, num_lower: int, num_upper: int) -> np.ndarray:
    offsets = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = np.ones((rows, cols), bool)
    if num_lower >= 0:
        keep &= -offsets <= num_lower
    if num_upper >= 0:
        keep &= offsets <= num_upper
    return keep


def _band_part_kernel(x, num_lower, num_upper):
    return np.where(_band_mask(*x.shape[-2:], num_lower, num_upper), x, x.dtype.type(0))


def _band_part_grad(node, dy):
    return (band_part(dy, node.attrs["num_lower"], node.attrs["num_upper"]),)


DIAG = register(OpDef("matrix_diag", _diag_kernel, lambda x: (
    x.dtype, None if x.shape is None else x.shape + x.shape[-1:]),
    gradient=lambda node, dy: (diag_part(dy),)))
DIAG_PART = register(OpDef("matrix_diag_part", _diag_part_kernel, _diag_part_infer,
                           gradient=_diag_part_grad))
BAND_PART = register(OpDef("matrix_band_part", _band_part_kernel,
                           lambda x, **attrs: (x.dtype, x.shape), gradient=_band_part_grad))


def diag(diagonal):
    """Square matrices with ``diagonal`` (its last dimension) on the main diagonal and zeros
    elsewhere. TensorFlow's ``k``/``num_rows``/``padding_value`` options are not supported."""
    return apply_op(DIAG, (_at_least("diag", diagonal, 1),))


def diag_part(input):  # noqa: A002 - TensorFlow's argument name
    """The main diagonal of each matrix in the last two dimensions (length ``min(M, N)``)."""
    return apply_op(DIAG_PART, (_at_least("diag_part", input, 2),))


def band_part(input, num_lower: int, num_upper: int):  # noqa: A002
    """Each matrix with the entries more than ``num_lower`` below or ``num_upper`` above the
    diagonal set to zero; a negative count keeps that whole triangle."""
    if not all(isinstance(n, (int, np.integer)) for n in (num_lower, num_upper)):
        raise TypeError(f"band_part: num_lower and num_upper must be Python ints, got "
                        f"{num_lower!r} and {num_upper!r}.")
    return apply_op(BAND_PART, (_at_least("band_part", input, 2),),
                    {"num_lower": int(num_lower), "num_upper": int(num_upper)})


def trace(x):
    """The sum of each matrix's main diagonal; shape ``x.shape[:-2]``."""
    return reduce_sum(diag_part(_at_least("trace", x, 2)), -1)
