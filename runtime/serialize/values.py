"""The tagged JSON encoding of the Python values a graph carries besides its tensors.

Attributes (and the literals of the signature) hold tuples, slices, dtypes, floats (NaN and
infinities included), index markers and variables, which JSON cannot say directly. Each
becomes a one-entry object ``{tag: content}``; JSON strings, ints, booleans and null stand for
themselves. Decoding goes through fixed tables of tags, so nothing in a file can name a Python
type, module or function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from runtime.errors import SavedGraphError
from runtime.ops.indexing import _Input
from runtime.ops.io_ops import _Slot, is_slot_style
from runtime.serialize.npz import ARRAY_KINDS
from runtime.variables import Variable


class Writer:
    """Collects the arrays and variables that encoded values refer to."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}
        self.variables: list[Variable] = []

    def array(self, value: np.ndarray) -> str:
        name = f"constant{len(self.arrays)}"
        self.arrays[name] = value
        return name

    def variable(self, variable: Variable) -> int:
        for index, known in enumerate(self.variables):
            if known is variable:
                return index
        self.variables.append(variable)
        return len(self.variables) - 1


class Reader:
    """The file's arrays and the variables made from them, for decoding values that refer to them."""

    def __init__(self, path: str, arrays: dict[str, np.ndarray]):
        self.path = path
        self.arrays = arrays
        self.variables: list[Variable] = []

    def error(self, problem: str) -> SavedGraphError:
        return SavedGraphError(f"{self.path} {problem}")

    def array(self, name: Any) -> np.ndarray:
        if type(name) is not str or name not in self.arrays:
            raise self.error(f"refers to an array {name!r} that it does not contain; the file is "
                             f"damaged. Save the function again.")
        return self.arrays[name]

    def dtype(self, name: Any) -> np.dtype:
        dtype = np.dtype(name) if type(name) is str else None
        if dtype is None or dtype.kind not in ARRAY_KINDS:
            raise self.error(f"declares the dtype {name!r}; a saved graph may only use numeric, "
                             f"boolean and string dtypes.")
        return dtype


# Checked reads of JSON values (their ValueErrors become "malformed graph description").


def index(value: Any) -> int:
    """A non-negative int (JSON booleans are not ints here)."""
    if type(value) is not int or value < 0:
        raise ValueError(f"expected a non-negative integer, found {value!r}")
    return value


def text(value: Any) -> str:
    if type(value) is not str:
        raise ValueError(f"expected a string, found {value!r}")
    return value


def as_list(value: Any) -> list:
    if type(value) is not list:
        raise ValueError(f"expected a list, found {value!r}")
    return value


# -- literals: None, bool, int, str, float, complex, bytes ---------------------------------


def encode_literal(value: Any) -> Any:
    if value is None or type(value) in (bool, int, str):
        return value
    if type(value) is float:
        return {"float": repr(value)}
    if type(value) is complex:
        return {"complex": [repr(value.real), repr(value.imag)]}
    if type(value) is bytes:
        return {"bytes": value.hex()}
    raise TypeError(f"its type {type(value).__name__} has no saved form")


_LITERAL_TAGS = {
    "float": lambda reader, content: float(text(content)),
    "complex": lambda reader, parts: complex(float(text(parts[0])), float(text(parts[1]))),
    "bytes": lambda reader, content: bytes.fromhex(text(content)),
}


def _decode_tagged(data, reader: Reader, tags: dict, what: str):
    if data is None or type(data) in (bool, int, str):
        return data
    if type(data) is dict and len(data) == 1:
        (tag, content), = data.items()
        decode = tags.get(tag)
        if decode is not None:
            return decode(reader, content)
    raise reader.error(f"has {what} {data!r} of an unknown kind; the file may come from a newer "
                       f"eager2graph, so upgrade eager2graph to load it.")


def decode_literal(data: Any, reader: Reader) -> Any:
    return _decode_tagged(data, reader, _LITERAL_TAGS, "a value")


# -- node attributes -------------------------------------------------------------------------


def encode_attr(value: Any, writer: Writer) -> Any:
    """Raises TypeError saying why ``value`` cannot be saved."""
    if isinstance(value, np.dtype):
        return {"dtype": value.str}
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in ARRAY_KINDS:
            raise TypeError(f"it is an array of dtype {value.dtype}, which cannot be saved safely")
        return {"array": writer.array(value)}
    if type(value) in (tuple, list):
        return {type(value).__name__: [encode_attr(item, writer) for item in value]}
    if isinstance(value, slice):
        return {"slice": [encode_attr(part, writer) for part in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"ellipsis": True}
    if isinstance(value, _Input):
        return {"input": value.index}
    if isinstance(value, _Slot):
        return {"slot": [value.index, value.style] if value.style else value.index}
    if isinstance(value, Variable):
        return {"variable": writer.variable(value)}
    return encode_literal(value)


def _slice(reader: Reader, parts) -> slice:
    start, stop, step = as_list(parts)
    return slice(decode_attr(start, reader), decode_attr(stop, reader), decode_attr(step, reader))


def _variable(reader: Reader, position) -> Variable:
    position = index(position)
    if position >= len(reader.variables):
        raise reader.error(f"refers to variable {position}, but it holds only "
                           f"{len(reader.variables)}; the file is damaged.")
    return reader.variables[position]


def _slot(reader: Reader, data) -> _Slot:
    """``3`` or ``[3, "{:.2f}"]``: a print's value and the format it prints with."""
    if type(data) is not list or len(data) != 2:
        return _Slot(index(data))
    position, style = data
    if not is_slot_style(style):
        raise reader.error(f"has a print format {style!r} that is not one a print applies to a "
                           f"value (a field such as '{{:.3f}}' or a directive such as '%5.2f', "
                           f"widths of at most three digits); the file is damaged or forged.")
    return _Slot(index(position), style)


_ATTR_TAGS = dict(_LITERAL_TAGS, **{
    "dtype": lambda reader, name: reader.dtype(name),
    "array": lambda reader, name: reader.array(name),
    "tuple": lambda reader, items: tuple(decode_attr(item, reader) for item in as_list(items)),
    "list": lambda reader, items: [decode_attr(item, reader) for item in as_list(items)],
    "slice": _slice,
    "ellipsis": lambda reader, _: Ellipsis,
    "input": lambda reader, position: _Input(index(position)),
    "slot": _slot,
    "variable": _variable,
})


def decode_attr(data: Any, reader: Reader) -> Any:
    return _decode_tagged(data, reader, _ATTR_TAGS, "an attribute")


def decode_shape(shape: Any) -> tuple | None:
    if shape is None:
        return None
    return tuple(None if dim is None else index(dim) for dim in as_list(shape))
