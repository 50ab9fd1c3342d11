"""Printing and runtime assertions: effects that run on every call, in program order."""

from __future__ import annotations

import re
import sys

import numpy as np

from runtime.errors import AssertionFailedError
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor


# The one-value formats a print can apply when it runs: a ``str.format`` field (``{:.3f}``,
# ``{!s:>8}``) or a %-directive (``%5.2f``, ``%d``). Widths and precisions have at most three
# digits, so a saved graph cannot ask for a gigabyte of padding.
_FORMAT_FIELD = re.compile(r"\{(?:!s)?(?::(?:[^{}]?[<>=^])?[+\- ]?z?#?0?\d{0,3}[,_]?(?:\.\d{1,3})?"
                           r"[bcdeEfFgGnosxX%]?)?\}")
_PERCENT = re.compile(r"%[#0\- +]*\d{0,3}(?:\.\d{1,3})?[hlL]?[diouxXeEfFgGcs]")


def is_print_style(style: str) -> bool:
    """Whether ``style`` is a format a print may apply to one value (see ``FormattedValue``)."""
    return type(style) is str and (style == "" or _FORMAT_FIELD.fullmatch(style) is not None
                                   or _PERCENT.fullmatch(style) is not None)


class _Slot:
    """Where a tensor input goes in a print template, and the format it prints with ("" for
    NumPy's own)."""

    __slots__ = ("index", "style")

    def __init__(self, index: int, style: str = ""):
        self.index, self.style = index, style

    def __eq__(self, other):
        return isinstance(other, _Slot) and (other.index, other.style) == (self.index, self.style)

    def __hash__(self):
        return hash(("slot", self.index, self.style))

    def __repr__(self):
        return f"${self.index}{self.style}"


class FormattedValue:
    """A scalar tensor to print with a format (``f"{x:.3f}"``, ``"%d" % x``) applied when the
    print runs, to the value Python would have formatted."""

    __slots__ = ("value", "style")

    def __init__(self, value, style: str):
        if not is_print_style(style):
            raise ValueError(f"{style!r} is not a format rt.print can apply to one value; use a "
                             f"field such as '{{:.3f}}' or a %-directive such as '%5.2f'.")
        self.value, self.style = value, style


def format_value(array: np.ndarray, style: str = "") -> str:
    """How a tensor prints: like NumPy (``5``, ``2.5``, ``[1 2 3]``), or with ``style``."""
    value = array[()] if array.ndim == 0 else array
    if not style:
        return str(value)
    return style % value if style.startswith("%") else style.format(value)


def _print_kernel(*arrays, template, sep, end):
    pieces = [format_value(arrays[item.index], item.style) if isinstance(item, _Slot)
              else str(item) for item in template]
    sys.stdout.write(sep.join(pieces) + end)


PRINT = register(OpDef("print", _print_kernel, lambda *inputs, **attrs: (), effect=True, num_outputs=0))


def print(*values, sep: str = " ", end: str = "\n") -> None:  # noqa: A001
    """Prints when the op runs: at once eagerly, on every call of a graph."""
    inputs, template = [], []
    for value in values:
        if isinstance(value, FormattedValue):
            inputs.append(value.value)
            template.append(_Slot(len(inputs) - 1, value.style))
        elif isinstance(value, Tensor) or hasattr(value, "_read_value_for_op"):
            inputs.append(value)
            template.append(_Slot(len(inputs) - 1))
        else:
            template.append(value if isinstance(value, str) else str(value))
    apply_op(PRINT, inputs, {"template": tuple(template), "sep": str(sep), "end": str(end)})


def _assert_kernel(condition, *data, message):
    if not np.all(condition):
        details = " ".join(format_value(d) for d in data)
        raise AssertionFailedError(message + (f" {details}" if details else ""))


ASSERT = register(OpDef("assert", _assert_kernel, lambda *inputs, **attrs: (), effect=True,
                        num_outputs=0))


def assert_(condition, message: str = "Assertion failed.", data=()) -> None:
    """Raises ``AssertionFailedError(message)`` (an ``InvalidArgumentError`` and an
    ``AssertionError``) when the op runs and ``condition`` is false."""
    apply_op(ASSERT, (condition,) + tuple(data), {"message": str(message)})
