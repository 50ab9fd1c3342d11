"""Text built by f-strings, ``str.format`` and ``%`` inside ``print``, with tensors filled in
when the print runs.

With Python values (eager tensors included) each function returns exactly the string Python
would build. When a symbolic tensor takes part, it returns a ``StagedText``: the literal pieces
and the tensors in order, which ``print`` hands to ``rt.print`` so that each tensor prints as
NumPy prints its value (``str(array)``), like ``print(f"{array}")`` in plain Python. A format
spec or %-directive on a scalar tensor (``{x:.3f}``, ``%5d``) is applied when the print runs,
to the value Python would have formatted. On an array (where Python raises), or with ``!r``,
it warns at the user's line and the value prints as with ``{x}``. A PyTorch tensor being
traced has no value when converted code prints (while PyTorch traces): a number format on it
shows it as ``str`` does, with a warning.
"""

from __future__ import annotations

import re
import string
from typing import Any

from runtime.control_flow import is_symbolic
from runtime.ops.io_ops import FormattedValue, is_print_style
from runtime.tensor import format_shape
from transpiler.errors import ConversionWarning
from transpiler.operators.staging import is_jax_tracer, is_torch_traced
from transpiler.operators.user_warnings import warn_at_user_line


def _staged(value) -> bool:
    """A value known only when the function runs: a symbolic tensor or a JAX tracer."""
    return is_symbolic(value) or is_jax_tracer(value)


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
    if not any(isinstance(p, Field) and _staged(p.value) for p in parts):
        return "".join(_python_field(p) if isinstance(p, Field) else p for p in parts)
    pieces = []
    for part in parts:
        if not isinstance(part, Field):
            pieces.append(part)
        elif _staged(part.value):
            pieces.append(_staged_field(part.value, part.conversion, part.spec, "{x}"))
        else:
            pieces.append(_python_field(part))
    return StagedText(pieces)


def str_format(template: str, *args, **kwargs) -> str | StagedText:
    """``template.format(*args, **kwargs)``."""
    values = (*args, *kwargs.values())
    if not any(_staged(v) or is_torch_traced(v) for v in values):
        return template.format(*args, **kwargs)
    formatter, pieces, automatic = string.Formatter(), [], 0
    for literal, field_name, spec, conversion in formatter.parse(template):
        pieces.append(literal)
        if field_name is None:
            continue
        if field_name == "":
            field_name, automatic = str(automatic), automatic + 1
        value, _ = formatter.get_field(field_name, args, kwargs)
        if _staged(value):
            pieces.append(_staged_field(value, conversion or "", spec or "", "{}"))
        else:
            pieces.append(_python_format(formatter.convert_field(value, conversion),
                                         formatter.vformat(spec or "", args, kwargs)))
    return StagedText(pieces) if any(map(_staged, values)) else "".join(pieces)


# One %-directive: optional mapping key, flags, width, precision, length, conversion type.
_DIRECTIVE = re.compile(r"%(?:\((?P<key>[^)]*)\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?"
                        r"(?P<type>[diouxXeEfFgGcrsa%])")


def percent_format(template: str, values: Any) -> str | StagedText:
    """``template % values``."""
    items = values if isinstance(values, tuple) else (values,)
    mapping = values if isinstance(values, dict) else None
    formatted_values = list(mapping.values() if mapping else items)
    if not any(_staged(v) or is_torch_traced(v) for v in formatted_values):
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
        directive = match.group() if match["key"] is None \
            else match.group().replace(f"({match['key']})", "", 1)
        if is_torch_traced(value) and match["type"] not in "sra":
            pieces.append(_unknown_while_tracing(value, match.group()))
        elif not _staged(value):
            pieces.append(match.group() % ((value,) if mapping is None else {match["key"]: value}))
        elif directive == "%s":
            pieces.append(value)
        elif value.shape == () and is_print_style(directive):
            pieces.append(FormattedValue(value, directive))
        else:
            warn_at_user_line(
                f"'{match.group()}' cannot format this tensor: a %-directive formats one number, "
                f"and the tensor has shape {format_shape(value.shape)}, so it prints as NumPy prints it "
                f"instead. Format one element (x[0]), or write '%s' to print the array.",
                ConversionWarning)
            pieces.append(value)
    pieces.append(template[position:])
    return StagedText(pieces) if any(map(_staged, formatted_values)) else "".join(pieces)


def _python_field(part: Field) -> str:
    value = part.value
    if part.conversion == "r":
        value = repr(value)
    elif part.conversion == "s":
        value = str(value)
    elif part.conversion == "a":
        value = ascii(value)
    return _python_format(value, part.spec)


def _python_format(value, spec: str) -> str:
    """``format(value, spec)``. A PyTorch tensor being traced has no value while PyTorch
    traces, which is when converted code prints (``staging.torch_builtins``): a number format
    cannot apply, and the tensor shows as ``str`` shows it, with a warning."""
    if spec and is_torch_traced(value):
        return _unknown_while_tracing(value, "{x:" + spec + "}")
    return format(value, spec)


def _unknown_while_tracing(value, written: str) -> str:
    warn_at_user_line(
        f"The format {written} cannot be applied to a PyTorch tensor being traced: converted "
        f"code prints while PyTorch traces, when the tensor has no value yet, so it prints as "
        f"str(x) shows it. Print the value outside the compiled or exported function.",
        ConversionWarning)
    return str(value)


def _staged_field(value, conversion: str, spec: str, plain: str):
    style = "{" + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
    if not spec and conversion in ("", "s"):
        return value
    if conversion in ("", "s") and value.shape == () and is_print_style(style):
        return FormattedValue(value, style)
    written = style.replace("{", "{x", 1)
    if conversion in ("", "s") and value.shape != ():
        why = (f"a format applies to one number, and this tensor has shape "
               f"{format_shape(value.shape)} (Python raises for an array), so it prints as NumPy prints "
               f"it. Format one element (x[0]), or write {plain} to print the array")
    else:
        why = (f"the graph has the tensor's value only when it runs, not the tensor object "
               f"{written} would show, so it prints as NumPy prints the value. Write {plain}")
    warn_at_user_line(f"The format {written} cannot be applied here: {why}.", ConversionWarning)
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
