"""Text built by f-strings, ``str.format`` and ``%`` inside ``print``, with tensors filled in
when the print runs.

With Python values (eager tensors included) each function returns exactly the string Python
would build. When a symbolic tensor takes part, it returns a ``StagedText``: the literal pieces
and the tensors in order, which ``print`` hands to ``rt.print`` so that each tensor prints as
NumPy prints its value (``str(array)``), like ``print(f"{array}")`` in plain Python. Format
specs and ``!r`` cannot be applied to a value that only exists at run time: they warn at the
user's line and the value prints as with ``{x}``.
"""

from __future__ import annotations

import re
import string
from typing import Any

from runtime.control_flow import is_symbolic
from transpiler.errors import ConversionWarning
from transpiler.operators.user_warnings import warn_at_user_line


class Field:
    """One ``{value!conversion:spec}`` of an f-string."""

    __slots__ = ("value", "conversion", "spec")

    def __init__(self, value: Any, conversion: str, spec: str):
        self.value, self.conversion, self.spec = value, conversion, spec


class StagedText:
    """A formatted text whose tensors are printed at run time: literal strings and tensors."""

    __slots__ = ("pieces",)

    def __init__(self, pieces: list):
        self.pieces = pieces


def field(value: Any, conversion: str, spec: str) -> Field:
    return Field(value, conversion, spec)


def formatted(parts: tuple) -> str | StagedText:
    """An f-string: the pieces in order, ``Field``s for the ``{...}`` parts."""
    if not any(isinstance(p, Field) and is_symbolic(p.value) for p in parts):
        return "".join(_python_field(p) if isinstance(p, Field) else p for p in parts)
    pieces = []
    for part in parts:
        if not isinstance(part, Field):
            pieces.append(part)
        elif is_symbolic(part.value):
            pieces.append(_staged_field(part.value, part.conversion, part.spec, "{x}"))
        else:
            pieces.append(_python_field(part))
    return StagedText(pieces)


def str_format(template: str, *args, **kwargs) -> str | StagedText:
    """``template.format(*args, **kwargs)``."""
    if not any(is_symbolic(v) for v in (*args, *kwargs.values())):
        return template.format(*args, **kwargs)
    formatter, pieces, automatic = string.Formatter(), [], 0
    for literal, field_name, spec, conversion in formatter.parse(template):
        pieces.append(literal)
        if field_name is None:
            continue
        if field_name == "":
            field_name, automatic = str(automatic), automatic + 1
        value, _ = formatter.get_field(field_name, args, kwargs)
        if is_symbolic(value):
            pieces.append(_staged_field(value, conversion or "", spec or "", "{}"))
        else:
            pieces.append(formatter.format_field(formatter.convert_field(value, conversion),
                                                 formatter.vformat(spec or "", args, kwargs)))
    return StagedText(pieces)


# One %-directive: optional mapping key, flags, width, precision, length, conversion type.
_DIRECTIVE = re.compile(r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?"
                        r"(?P<type>[diouxXeEfFgGcrsa%])")


def percent_format(template: str, values: Any) -> str | StagedText:
    """``template % values``."""
    items = values if isinstance(values, tuple) else (values,)
    mapping = values if isinstance(values, dict) else None
    if not any(is_symbolic(v) for v in (mapping.values() if mapping else items)):
        return template % values
    pieces, position, index = [], 0, 0
    for match in _DIRECTIVE.finditer(template):
        pieces.append(template[position:match.start()])
        position = match.end()
        if match["type"] == "%":
            pieces.append("%")
            continue
        if mapping is not None:
            value = mapping[match["key"]]
        else:
            value, index = items[index], index + 1
        if not is_symbolic(value):
            pieces.append(match.group() % ((value,) if mapping is None else {match["key"]: value}))
        elif match.group() == "%s" or match["key"] is not None and match["type"] == "s" \
                and match.group() == f"%({match['key']})s":
            pieces.append(value)
        else:
            warn_at_user_line(
                f"'{match.group()}' cannot format a tensor of the graph: its value exists only "
                f"when the graph runs, so it prints as NumPy prints it instead. Write '%s' (or "
                f"f\"{{x}}\") to print the value, or convert it first where Python values "
                f"suffice (int(x) in eager code).", ConversionWarning)
            pieces.append(value)
    pieces.append(template[position:])
    return StagedText(pieces)


def _python_field(part: Field) -> str:
    value = part.value
    if part.conversion == "r":
        value = repr(value)
    elif part.conversion == "s":
        value = str(value)
    elif part.conversion == "a":
        value = ascii(value)
    return format(value, part.spec)


def _staged_field(value, conversion: str, spec: str, plain: str):
    if conversion not in ("", "s") or spec:
        written = "{x" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        warn_at_user_line(
            f"The format {written} cannot be applied to a tensor of the graph: its value "
            f"exists only when the graph runs, so it prints as NumPy prints it instead. Write {plain} "
            f"to print the value as it is, or round it in the graph first "
            f"(e.g. rt.round(x * 1000) / 1000).", ConversionWarning)
    return value


def flatten_print_values(values: tuple, sep: str) -> list:
    """``print``'s values as pieces for ``rt.print(*pieces, sep="")``: each StagedText's
    pieces in place, ``sep`` between the values."""
    pieces: list = []
    for position, value in enumerate(values):
        if position:
            pieces.append(sep)
        pieces.extend(value.pieces if isinstance(value, StagedText) else [value])
    return pieces
