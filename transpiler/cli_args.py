"""The ``--args`` text of the command line: tensor specs and Python values, per argument.

    "f32[50], float32[None, 3], i32[], 3, 0.5, 'relu', (1, 2), None"

A tensor spec is a dtype, short (``f32``) or full (``float32``), then its dims in brackets
(integers, or None for a dimension of any size; ``[]`` for a scalar). Anything else is read as
a Python literal and passed as it is, so it is part of the trace key, as in a real call.
"""

from __future__ import annotations

import ast
import re

import runtime as rt

_SHORT = {"f16": rt.float16, "f32": rt.float32, "f64": rt.float64, "i8": rt.int8,
          "i16": rt.int16, "i32": rt.int32, "i64": rt.int64, "u8": rt.uint8, "bool": rt.bool,
          "c64": rt.complex64, "c128": rt.complex128}
DTYPES = {**_SHORT, **{dtype.name: dtype for dtype in _SHORT.values()}}
_EMPTY_DIMS = re.compile(r"(?<=\w)\[\s*\]")  # f32[] is not Python; f32[()] is


class ArgumentsError(ValueError):
    """The ``--args`` text cannot be read; the message says what to write."""


_FORMAT = (f"write one entry per argument, separated by commas: a tensor spec <dtype>[<dims>] "
           f"with dtype one of {', '.join(DTYPES)} and dims integers or None (e.g. f32[None,3], "
           f"i32[]), or a Python value (e.g. 3, 0.5, 'relu', (1, 2)).")


def parse_arguments(text: str) -> list:
    """``"f32[None,3], i32[], 3"`` -> ``[TensorSpec([None, 3], float32), TensorSpec([],
    int32), 3]``."""
    if not text.strip():
        return []
    try:
        tree = ast.parse(f"({_EMPTY_DIMS.sub('[()]', text)},)", mode="eval")
    except SyntaxError:
        raise ArgumentsError(f"cannot read the arguments {text!r}: {_FORMAT}") from None
    return [_argument(entry, text) for entry in tree.body.elts]


def _argument(entry: ast.expr, text: str):
    if isinstance(entry, ast.Subscript) and isinstance(entry.value, ast.Name):
        return _spec(entry)
    if isinstance(entry, ast.Name) and entry.id in DTYPES:
        raise ArgumentsError(f"the tensor spec {entry.id!r} has no shape: add its dims in "
                             f"brackets, e.g. {entry.id}[] for a scalar or {entry.id}[None] for "
                             f"a vector.")
    try:
        return ast.literal_eval(entry)
    except ValueError:
        raise ArgumentsError(f"cannot read {ast.unparse(entry)!r} in the arguments {text!r}: "
                             f"{_FORMAT}") from None


def _spec(entry: ast.Subscript) -> rt.TensorSpec:
    name = entry.value.id
    if name not in DTYPES:
        raise ArgumentsError(f"unknown dtype {name!r} in {ast.unparse(entry)!r}: use one of "
                             f"{', '.join(DTYPES)}.")
    dims = entry.slice.elts if isinstance(entry.slice, ast.Tuple) else [entry.slice]
    shape = []
    for dim in dims:
        value = dim.value if isinstance(dim, ast.Constant) else dim
        if value is not None and (type(value) is not int or value < 0):
            raise ArgumentsError(f"the shape of {ast.unparse(entry)!r} must list integers or "
                                 f"None, e.g. {name}[None, 3].")
        shape.append(value)
    return rt.TensorSpec(shape, DTYPES[name])
