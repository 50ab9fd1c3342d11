"""What each node attribute of a loaded graph may hold, by the kind of the attribute.

The tagged encoding (``values``) decides which Python types a file can produce; it cannot say
that a ``dtype`` must be one of the runtime's dtypes (a raw string ``"O"`` on a ``cast`` made
object arrays) or that an assignment's ``mode`` is one of three words. Every attribute name the
ops use is listed here with its kind; a loaded node whose attribute is unknown or not of its
kind is refused before anything runs. Ops share attribute names with one meaning (``axis`` is
always an axis or axes), so the table is per attribute, and a new op attribute is one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from runtime import dtypes
from runtime.ops.image_transform_ops import FILL_MODES, INTERPOLATIONS
from runtime.ops.indexing import _Input
from runtime.ops.io_ops import _Slot
from runtime.variables import Variable

MAX_RANK = 64  # NumPy's limit on dimensions
MAX_DIM = 2**62
SUPPORTED_DTYPES = frozenset([
    dtypes.bool_, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64, dtypes.uint8,
    dtypes.uint16, dtypes.uint32, dtypes.uint64, dtypes.float16, dtypes.float32, dtypes.float64,
    dtypes.complex64, dtypes.complex128])


@dataclass(frozen=True)
class Kind:
    """A kind of attribute value: what it is called in messages, and its test."""

    description: str
    accepts: Callable[[Any], bool]


def _integer(low: int, high: int) -> Callable[[Any], bool]:
    return lambda value: type(value) is int and low <= value <= high


def _optional(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: value is None or test(value)


def _tuple_of(test: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda value: type(value) is tuple and len(value) <= MAX_RANK and all(map(test, value))


def _one_of(*words: str) -> Kind:
    return Kind(f"one of {', '.join(map(repr, words))}",
                lambda value: type(value) is str and value in words)


_axis = _integer(-MAX_RANK, MAX_RANK - 1)
_count = _integer(0, MAX_DIM)
_int64 = _integer(-2**63, 2**64 - 1)
_dim = _optional(_integer(-1, MAX_DIM))  # -1: inferred (reshape); None: unknown
_index_part = _optional(lambda v: isinstance(v, _Input) or _int64(v))

DTYPE = Kind("a dtype the runtime supports (bool, intN, uintN, floatN, complexN)",
             lambda value: isinstance(value, np.dtype) and value in SUPPORTED_DTYPES)
AXES = Kind("an axis, a tuple of axes or None",
            _optional(lambda value: _axis(value) or _tuple_of(_axis)(value)))
SHAPE = Kind("a shape (a tuple of sizes) or None", _optional(_tuple_of(_dim)))
COUNT = Kind(f"a count from 0 to {MAX_DIM}", _count)
INT64 = Kind("a 64-bit integer", _int64)
OPTIONAL_INT = Kind("a 64-bit integer or None", _optional(_int64))
LOOP_LIMIT = Kind("a count, None or 'input'",
                  lambda value: type(value) is str and value == "input" or _optional(_count)(value))
FLAG = Kind("True or False", lambda value: type(value) is bool)
NUMBER = Kind("a float", lambda value: type(value) is float)
TEXT = Kind("a string", lambda value: type(value) is str)
TEMPLATE = Kind("a print template", _tuple_of(lambda v: type(v) is str or isinstance(v, _Slot)))
INDEX = Kind("an index (ints, slices, None, ... and tensor positions)", lambda value: (
    type(value) is tuple and len(value) <= MAX_RANK and all(
        item is Ellipsis or _index_part(item) or type(item) is slice and all(
            _index_part(part) for part in (item.start, item.stop, item.step))
        for item in value)))
VARIABLE = Kind("a variable of the file", lambda value: isinstance(value, Variable))
ARRAY = Kind("an array of the file", lambda value: isinstance(value, np.ndarray))
PADDINGS = Kind("a (before, after) pair of counts per dimension", _tuple_of(
    lambda pair: type(pair) is tuple and len(pair) == 2 and all(map(_count, pair))))
SIZES = Kind("a tuple of sizes (strides, dilations, window sizes)",
             _tuple_of(_integer(1, MAX_DIM)))

# Every attribute of every op a graph can save, by name.
KINDS: dict[str, Kind] = {
    "dtype": DTYPE, "output_type": DTYPE, "out_type": DTYPE,
    "axis": AXES, "perm": AXES,
    "shape": SHAPE, "element_shape": SHAPE,
    "n": COUNT, "m": COUNT, "num": COUNT, "index": COUNT, "num_vars": COUNT,
    "max_length": INT64,
    "seed": OPTIONAL_INT, "counter_max": OPTIONAL_INT,
    "maximum_iterations": LOOP_LIMIT,
    "keepdims": FLAG, "dynamic": FLAG, "exclusive": FLAG, "reverse": FLAG, "descending": FLAG,
    "alpha": NUMBER,
    "message": TEXT, "sep": TEXT, "end": TEXT, "stream": _one_of("stdout", "stderr"),
    "error": _one_of("out_of_range"),
    "mode": _one_of("assign", "add", "sub", "initialize"),
    "side": _one_of("left", "right"),
    "paddings": PADDINGS,
    "reader": _one_of("read", "gather", "stack", "concat"),
    "template": TEMPLATE,
    "equation": TEXT, "num_lower": INT64, "num_upper": INT64,
    "k": Kind("a (low, high) pair of diagonal offsets, low <= high", lambda value: (
        type(value) is tuple and len(value) == 2 and all(map(_int64, value))
        and value[0] <= value[1])),
    "num_rows": Kind("a size or -1 (inferred)", _integer(-1, MAX_DIM)),
    "num_cols": Kind("a size or -1 (inferred)", _integer(-1, MAX_DIM)),
    "padding_value": Kind("a number", lambda value: type(value) in (bool, float, complex)
                          or _int64(value)),
    "align": _one_of("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"),
    "batch_dims": Kind(f"a count from 0 to {MAX_RANK}", _integer(0, MAX_RANK)),
    "full_matrices": FLAG, "compute_uv": FLAG, "approximate": FLAG,
    "strides": SIZES, "dilations": SIZES, "ksize": SIZES,
    "padding": _one_of("SAME", "VALID"),
    "interpolation": _one_of(*INTERPOLATIONS), "fill_mode": _one_of(*FILL_MODES),
    "fill_value": NUMBER,
    "num_samples": COUNT,
    "spec": INDEX,
    "variable": VARIABLE,
    "value": ARRAY,
}


def check_attributes(attrs: dict) -> None:
    """Raises ValueError naming the first attribute that is unknown or not of its kind."""
    for name, value in attrs.items():
        kind = KINDS.get(name)
        if kind is None:
            raise ValueError(f"the attribute {name!r} is not one any op has")
        if not kind.accepts(value):
            raise ValueError(f"the attribute {name}={value!r} is not {kind.description}")
