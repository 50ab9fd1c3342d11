"""Diagonals and bands of batched matrices (``rt.linalg.diag``, ``diag_part``, ``set_diag``,
``band_part``, ``trace``), with TensorFlow's ``k``, ``num_rows``/``num_cols``,
``padding_value`` and ``align``.

``k`` is one diagonal (0 the main one, positive above it, negative below) or a band
``(low, high)`` of them. A band is stored stacked: one row per diagonal, from ``high`` down to
``low``, each as long as the band's longest diagonal; a shorter diagonal sits at the left or
the right end of its row (``align``: the first word for the diagonals above the main one, the
second for those below) and the rest of the row is ``padding_value``. ``diag`` and
``diag_part`` are each other's adjoints for the same ``k`` and ``align``; ``set_diag``'s
gradient zeroes the band of the incoming gradient for the input and takes that band for the
diagonal; a band's (``band_part``) gradient is the same band of the incoming gradient.
"""

from __future__ import annotations

import functools

import numpy as np

from runtime.errors import GraphTypeError, InvalidArgumentError, ShapeError
from runtime.ops.array_ops import zeros_like
from runtime.ops.dispatch import apply_op, constant_value, convert_to_tensor
from runtime.ops.reduce_ops import reduce_sum
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape

ALIGNMENTS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
# The attributes' values when a public function is called without them; only the others are
# stored on a node, so graphs saved before the attributes existed load unchanged.
_DEFAULTS = {"k": (0, 0), "num_rows": -1, "num_cols": -1, "padding_value": 0,
             "align": "RIGHT_LEFT"}


def _at_least(op_name: str, x, rank: int) -> Tensor:
    x = convert_to_tensor(x)
    if x.ndim is not None and x.ndim < rank:
        raise ShapeError(f"{op_name} needs a tensor of rank {rank} or more, got shape "
                         f"{format_shape(x.shape)}.")
    return x


def _attr(node, name: str):
    return node.attrs.get(name, _DEFAULTS[name])


def _stored(**attrs) -> dict:
    """The attributes that differ from their defaults (a padding of -0.0 differs from 0)."""
    def default(name, value):
        if name == "padding_value":
            return value == 0 and not np.signbit(np.real(value))
        return value == _DEFAULTS[name]
    return {name: value for name, value in attrs.items() if not default(name, value)}


# -- where a band's diagonals are ------------------------------------------------------------


def _length(d: int, rows: int, cols: int) -> int:
    """The length of diagonal ``d`` of a ``rows x cols`` matrix."""
    return max(0, min(rows + min(d, 0), cols - max(d, 0)))


def _width(rows: int, cols: int, k: tuple) -> int:
    """The length of the longest diagonal in the band ``k`` of a ``rows x cols`` matrix."""
    return max(0, min(rows + min(k[1], 0), cols - max(k[0], 0)))


@functools.lru_cache(maxsize=128)
def _positions(rows: int, cols: int, k: tuple, width: int, align: str) -> tuple:
    """Each element of the band ``k`` stacked ``width`` wide: four index arrays giving its row
    (diagonal) and slot in the stack, and its row and column in the matrix."""
    above_left, below_left = align.startswith("LEFT"), align.endswith("LEFT")
    parts = []
    for row, d in enumerate(range(k[1], k[0] - 1, -1)):
        length = _length(d, rows, cols)
        left = (d >= 0 and above_left) or (d <= 0 and below_left)
        along = np.arange(length)
        parts.append((np.full(length, row), along + (0 if left else width - length),
                      along + max(-d, 0), along + max(d, 0)))
    return tuple(np.concatenate(column) for column in zip(*parts))


def _offsets_problem(op_name: str, rows: int, cols: int, k: tuple) -> str | None:
    """TensorFlow's bound on ``k`` for reading (or setting) diagonals of a matrix."""
    if all(-rows < d < cols or d == 0 for d in k):
        return None
    return (f"{op_name}: k={_k_text(k)} is out of range for matrices of shape {rows}x{cols}; "
            f"each diagonal offset must be from {1 - rows} to {cols - 1}.")


def _k_text(k: tuple) -> str:
    return str(k[0]) if k[0] == k[1] else str(k)


def _matrix_size(width: int, k: tuple, num_rows: int, num_cols: int, error) -> tuple:
    """The ``(rows, cols)`` of ``diag``'s matrices for diagonals ``width`` long: TensorFlow's
    rule, the smallest that holds them (square when neither is given)."""
    low, high = k
    min_rows, min_cols = width - min(high, 0), width + max(low, 0)
    for name, given, least in (("num_rows", num_rows, min_rows), ("num_cols", num_cols, min_cols)):
        if given != -1 and given < least:
            raise error(f"diag: {name}={given} is too small for diagonals of length {width} "
                        f"with k={_k_text(k)}; it must be at least {least}.")
    if num_rows == -1 and num_cols == -1:
        return (max(min_rows, min_cols),) * 2
    rows = min_rows if num_rows == -1 else num_rows
    cols = min_cols if num_cols == -1 else num_cols
    if rows != min_rows and cols != min_cols:
        raise error(f"diag: num_rows={rows} and num_cols={cols} do not match diagonals of "
                    f"length {width} with k={_k_text(k)}: one of them must be the smallest "
                    f"that holds them (num_rows={min_rows} or num_cols={min_cols}).")
    return rows, cols


def _stack_shape_problem(op_name: str, shape: tuple, k: tuple) -> str | None:
    """Why diagonals of ``shape`` are not a stack for the band ``k`` (None when they are)."""
    count = k[1] - k[0] + 1
    if count > 1 and len(shape) < 2:
        return (f"{op_name}: a band of {count} diagonals (k={k}) needs the diagonals stacked "
                f"with shape [..., {count}, length], got shape {format_shape(shape)}.")
    if count > 1 and shape[-2] is not None and shape[-2] != count:
        return (f"{op_name}: k={k} is a band of {count} diagonals, but the diagonals have "
                f"shape {format_shape(shape)} with {shape[-2]} of them in dimension -2.")
    return None


# -- diag --------------------------------------------------------------------------------------


def _diag_kernel(diagonal, k=(0, 0), num_rows=-1, num_cols=-1, padding_value=0,
                 align="RIGHT_LEFT"):
    problem = _stack_shape_problem("diag", diagonal.shape, k)
    if problem:
        raise InvalidArgumentError(problem)
    stacked = diagonal[..., None, :] if k[0] == k[1] else diagonal
    width = stacked.shape[-1]
    rows, cols = _matrix_size(width, k, num_rows, num_cols, InvalidArgumentError)
    out = np.full(stacked.shape[:-2] + (rows, cols), padding_value, diagonal.dtype)
    which, slot, row, col = _positions(rows, cols, k, width, align)
    out[..., row, col] = stacked[..., which, slot]
    return out


def _diag_infer(diagonal, k=(0, 0), num_rows=-1, num_cols=-1, padding_value=0,
                align="RIGHT_LEFT"):
    shape = diagonal.shape
    if shape is None:
        return diagonal.dtype, None
    problem = _stack_shape_problem("diag", shape, k)
    if problem:
        raise ShapeError(problem)
    batch = shape[:-1] if k[0] == k[1] else shape[:-2]
    if shape[-1] is None:
        return diagonal.dtype, batch + (None if num_rows == -1 else num_rows,
                                        None if num_cols == -1 else num_cols)
    return diagonal.dtype, batch + _matrix_size(shape[-1], k, num_rows, num_cols, ShapeError)


def _diag_grad(node, dy):
    return (diag_part(dy, k=_attr(node, "k"), align=_attr(node, "align")),)


# -- diag_part -------------------------------------------------------------------------------


def _diag_part_kernel(x, k=(0, 0), padding_value=0, align="RIGHT_LEFT"):
    rows, cols = x.shape[-2:]
    problem = _offsets_problem("diag_part", rows, cols, k)
    if problem:
        raise InvalidArgumentError(problem)
    width = _width(rows, cols, k)
    out = np.full(x.shape[:-2] + (k[1] - k[0] + 1, width), padding_value, x.dtype)
    which, slot, row, col = _positions(rows, cols, k, width, align)
    out[..., which, slot] = x[..., row, col]
    return out[..., 0, :] if k[0] == k[1] else out


def _stack_shape(op_name: str, shape, k: tuple) -> tuple | None:
    """The shape of the band ``k`` of matrices of ``shape``, stacked (None dims unknown)."""
    if shape is None:
        return None
    rows, cols = shape[-2:]
    width = None
    if rows is not None and cols is not None:
        problem = _offsets_problem(op_name, rows, cols, k)
        if problem:
            raise ShapeError(problem)
        width = _width(rows, cols, k)
    return shape[:-2] + ((k[1] - k[0] + 1,) if k[0] != k[1] else ()) + (width,)


def _diag_part_infer(x, k=(0, 0), padding_value=0, align="RIGHT_LEFT"):
    return x.dtype, _stack_shape("diag_part", x.shape, k)


def _diag_part_grad(node, dy):
    """The band back on zeros of the input's shape: ``diag`` with the input's matrix size when
    it is known while tracing, else ``set_diag`` on zeros like the input (as TensorFlow)."""
    x = node.inputs[0]
    k, align = _attr(node, "k"), _attr(node, "align")
    if x.shape is not None and None not in x.shape[-2:]:
        rows, cols = x.shape[-2:]
        return (diag(dy, k=k, num_rows=rows, num_cols=cols, align=align),)
    return (set_diag(zeros_like(x, dy.dtype), dy, k=k, align=align),)


# -- set_diag ----------------------------------------------------------------------------------


def _set_diag_kernel(x, diagonal, k=(0, 0), align="RIGHT_LEFT"):
    rows, cols = x.shape[-2:]
    problem = _offsets_problem("set_diag", rows, cols, k)
    if problem:
        raise InvalidArgumentError(problem)
    expected = _stack_shape("set_diag", x.shape, k)
    if diagonal.shape != expected:
        raise InvalidArgumentError(_diagonal_mismatch(x.shape, diagonal.shape, k, expected))
    stacked = diagonal[..., None, :] if k[0] == k[1] else diagonal
    which, slot, row, col = _positions(rows, cols, k, expected[-1], align)
    out = x.copy()
    out[..., row, col] = stacked[..., which, slot]
    return out


def _diagonal_mismatch(shape, diagonal_shape, k, expected) -> str:
    return (f"set_diag: the diagonal has shape {format_shape(diagonal_shape)}, but k="
            f"{_k_text(k)} of input of shape {format_shape(shape)} needs shape "
            f"{format_shape(expected)} (the input's batch dimensions, "
            f"{'' if k[0] == k[1] else 'the number of diagonals, '}and the band's longest "
            f"diagonal).")


def _set_diag_infer(x, diagonal, k=(0, 0), align="RIGHT_LEFT"):
    if x.dtype != diagonal.dtype:
        raise GraphTypeError(f"set_diag: input ({x.dtype.name}) and diagonal "
                             f"({diagonal.dtype.name}) must have the same dtype.")
    expected = _stack_shape("set_diag", x.shape, k)
    if expected is not None and diagonal.shape is not None and (
            len(expected) != len(diagonal.shape) or any(
                a is not None and b is not None and a != b
                for a, b in zip(expected, diagonal.shape))):
        raise ShapeError(_diagonal_mismatch(x.shape, diagonal.shape, k, expected))
    return x.dtype, x.shape


def _set_diag_grad(node, dy):
    k, align = _attr(node, "k"), _attr(node, "align")
    diagonal = node.inputs[1]
    return (set_diag(dy, zeros_like(diagonal, dy.dtype), k=k, align=align),
            diag_part(dy, k=k, align=align))


# -- band_part -------------------------------------------------------------------------------


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


DIAG = register(OpDef("matrix_diag", _diag_kernel, _diag_infer, gradient=_diag_grad))
DIAG_PART = register(OpDef("matrix_diag_part", _diag_part_kernel, _diag_part_infer,
                           gradient=_diag_part_grad))
SET_DIAG = register(OpDef("matrix_set_diag", _set_diag_kernel, _set_diag_infer,
                          gradient=_set_diag_grad))
BAND_PART = register(OpDef("matrix_band_part", _band_part_kernel,
                           lambda x, **attrs: (x.dtype, x.shape), gradient=_band_part_grad))


# -- the public functions ----------------------------------------------------------------------


def _python_ints(op_name: str, what: str, value) -> list:
    """``value`` (an int, a sequence of ints, or a tensor known while tracing) as ints."""
    known = constant_value(value) if isinstance(value, Tensor) else value
    array = None if known is None else np.asarray(known)
    if array is None or array.dtype.kind not in "iu" or array.ndim > 1:
        raise TypeError(f"{op_name}: {what} must be an int or a list of ints known while "
                        f"tracing, got {value!r}.")
    return [int(v) for v in array.reshape(-1)]


def _band(op_name: str, k) -> tuple:
    """``k`` as ``(low, high)``."""
    ints = _python_ints(op_name, "k", k)
    if len(ints) not in (1, 2):
        raise ValueError(f"{op_name}: k must be one diagonal offset or a (low, high) pair, "
                         f"got {k!r}.")
    low, high = ints[0], ints[-1]
    if low > high:
        raise ValueError(f"{op_name}: k={tuple(ints)} has low > high; the lower diagonal "
                         f"offset comes first.")
    return low, high


def _alignment(op_name: str, align) -> str:
    if align not in ALIGNMENTS:
        raise ValueError(f"{op_name}: align must be one of {', '.join(ALIGNMENTS)}, got "
                         f"{align!r}.")
    return align


def _padding(op_name: str, value, dtype: np.dtype):
    """``value`` as a Python scalar of ``dtype``. A float matrix takes any real number (rounded
    to its precision); an integer or bool matrix refuses one it would change (0.5 for int32,
    300 for uint8), and a real matrix refuses a complex number."""
    known = constant_value(value) if isinstance(value, Tensor) else value
    array = None if known is None else np.asarray(known)
    if array is None or array.ndim != 0 or array.dtype.kind not in "biufc":
        raise TypeError(f"{op_name}: padding_value must be a number known while tracing, got "
                        f"{value!r}.")
    with np.errstate(all="ignore"):
        converted = array.astype(dtype)
    exact = converted == array or dtype.kind in "fc" and (array.dtype.kind != "c"
                                                          or dtype.kind == "c")
    if not exact:
        raise TypeError(f"{op_name}: padding_value {value!r} is not a {dtype.name} value; give "
                        f"one of the matrices' dtype.")
    return converted.item()


def _size(op_name: str, what: str, value) -> int:
    """``num_rows`` or ``num_cols``: a size, or -1 for the smallest that fits."""
    ints = _python_ints(op_name, what, value)
    if len(ints) != 1 or ints[0] < -1:
        raise ValueError(f"{op_name}: {what} must be a size or -1 (inferred), got {value!r}.")
    return ints[0]


def diag(diagonal, name=None, k=0, num_rows=-1, num_cols=-1, padding_value=0,
         align="RIGHT_LEFT"):
    """Matrices with ``diagonal`` on diagonal ``k`` and ``padding_value`` elsewhere.

    With ``k = (low, high)``, ``diagonal`` holds the band stacked (``[..., high - low + 1,
    length]``, see the module docstring). The matrices are ``num_rows x num_cols``; a size
    given as -1 is the smallest that holds the diagonals (square when both are -1).
    ``name`` is accepted and ignored."""
    k = _band("diag", k)
    diagonal = _at_least("diag", diagonal, 1 if k[0] == k[1] else 2)
    attrs = _stored(k=k, num_rows=_size("diag", "num_rows", num_rows),
                    num_cols=_size("diag", "num_cols", num_cols),
                    padding_value=_padding("diag", padding_value, diagonal.dtype),
                    align=_alignment("diag", align))
    return apply_op(DIAG, (diagonal,), attrs)


def diag_part(input, name=None, k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """Diagonal ``k`` of each matrix in the last two dimensions; with ``k = (low, high)`` the
    band stacked ``[..., high - low + 1, length]``, shorter diagonals padded with
    ``padding_value`` on the side ``align`` leaves. ``name`` is accepted and ignored."""
    x = _at_least("diag_part", input, 2)
    attrs = _stored(k=_band("diag_part", k),
                    padding_value=_padding("diag_part", padding_value, x.dtype),
                    align=_alignment("diag_part", align))
    return apply_op(DIAG_PART, (x,), attrs)


def set_diag(input, diagonal, name=None, k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with diagonal ``k`` (or the band ``k = (low, high)``) replaced by
    ``diagonal``, which has the shape ``diag_part(input, k=k)`` has. ``name`` is accepted and
    ignored."""
    x = _at_least("set_diag", input, 2)
    diagonal = diagonal if isinstance(diagonal, Tensor) else convert_to_tensor(diagonal, x.dtype)
    attrs = _stored(k=_band("set_diag", k), align=_alignment("set_diag", align))
    return apply_op(SET_DIAG, (x, diagonal), attrs)


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
