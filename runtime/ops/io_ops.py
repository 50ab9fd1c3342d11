"""Printing and runtime assertions: effects that run on every call, in program order."""

from __future__ import annotations

import re
import sys
import time

import numpy as np

from runtime.errors import AssertionFailedError, OutOfRangeError
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


# ``print_tensors`` prints each tensor as TensorFlow's ``tf.print`` does: the style
# ``tensorflow:N`` (N elements kept at each end of every dimension, -1 for all).
_TENSORFLOW_STYLE = re.compile(r"tensorflow:(-1|\d{1,6})")


def is_slot_style(style: str) -> bool:
    """Whether a print template may hold a value with ``style`` (a saved graph is checked)."""
    return is_print_style(style) or (type(style) is str
                                     and _TENSORFLOW_STYLE.fullmatch(style) is not None)


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
    if style.startswith("tensorflow:"):
        return tensorflow_text(np.asarray(array), int(style[len("tensorflow:"):]))
    value = array[()] if array.ndim == 0 else array
    if not style:
        return str(value)
    return style % value if style.startswith("%") else style.format(value)


def tensorflow_text(array: np.ndarray, summarize: int = 3) -> str:
    """A tensor as TensorFlow's ``tf.print`` writes it: ``[1 2.5 3]``, nested rows as NumPy
    lays them out, ``summarize`` elements at each end of a longer dimension around ``...``
    (all for -1), floats in the fewest of 6 or 9 digits (15 or 17 for float64) that give the
    value back, booleans as 1 and 0."""
    return _tensorflow_rows(array, summarize, 1)


def _tensorflow_rows(array: np.ndarray, summarize: int, depth: int) -> str:
    if array.ndim == 0:
        return _tensorflow_scalar(array[()])
    count = array.shape[0]
    rows: list = list(range(count))
    if 0 <= summarize and 2 * summarize < count:
        rows = rows[:summarize] + [None] + rows[count - summarize:]
    parts = ["..." if row is None else _tensorflow_rows(array[row], summarize, depth + 1)
             for row in rows]
    separator = " " if array.ndim == 1 else "\n" * (array.ndim - 1) + " " * depth
    return "[" + separator.join(parts) + "]"


def _tensorflow_scalar(value) -> str:
    if isinstance(value, (np.bool_, bool)):
        return "1" if value else "0"
    if isinstance(value, np.floating):
        if np.isnan(value):
            return "nan"
        if np.isinf(value):
            return "inf" if value > 0 else "-inf"
        kind = np.float64 if value.dtype == np.float64 else np.float32
        short, long = (15, 17) if kind is np.float64 else (6, 9)
        number = float(value)
        text = f"{number:.{short}g}"
        return text if kind(float(text)) == kind(number) else f"{number:.{long}g}"
    return str(value)


_STREAMS = {"stdout": lambda: sys.stdout, "stderr": lambda: sys.stderr}


def _print_kernel(*arrays, template, sep, end, stream="stdout"):
    pieces = [format_value(arrays[item.index], item.style) if isinstance(item, _Slot)
              else str(item) for item in template]
    _STREAMS[stream]().write(sep.join(pieces) + end)


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


class _Mark:
    """Stands for a tensor inside a structure printed by ``print_tensors``."""

    def __init__(self, index: int):
        self.index = index

    def __repr__(self):
        return f"\0{self.index}\0"


def print_tensors(*inputs, output_stream=None, summarize: int = 3, sep: str = " ",
                  end: str = "\n", name=None) -> None:
    """TensorFlow's ``tf.print``: prints when the op runs (at once eagerly, on every call of
    a graph), each tensor as TensorFlow writes it (``tensorflow_text``), Python structures of
    tensors as Python writes them with the tensors' text inside, to standard error unless
    ``output_stream`` is ``sys.stdout`` (or ``"stdout"``)."""
    stream = "stderr"
    if output_stream is sys.stdout or output_stream == "stdout" or output_stream is sys.__stdout__:
        stream = "stdout"
    elif not (output_stream is None or output_stream is sys.stderr or output_stream == "stderr"
              or output_stream is sys.__stderr__):
        raise ValueError(f"output_stream must be sys.stdout or sys.stderr, got {output_stream!r} "
                         f"(eager2graph does not write to logs or files from tf.print).")
    if type(summarize) is not int or summarize < -1:
        raise ValueError(f"summarize must be an int, -1 for all elements, got {summarize!r}")
    style = f"tensorflow:{summarize}"
    tensors, template = [], []
    for value in inputs:
        if _is_tensor(value):
            tensors.append(value)
            template.append(_Slot(len(tensors) - 1, style))
        elif isinstance(value, (list, tuple, dict)):
            text = str(_marked(value, tensors))
            for number, piece in enumerate(re.split("\0", text)):
                if number % 2:
                    template.append(_Slot(int(piece), style))
                elif piece:
                    template.append(piece)
            template.append(_Separator)
            continue
        else:
            template.append(str(value))
        template.append(_Separator)
    # The separator goes between inputs only (a structure is several pieces), so the pieces
    # are joined with "" and the separators written out.
    pieces = [sep if item is _Separator else item for item in template[:-1]]
    attrs = {"template": tuple(pieces), "sep": "", "end": str(end)}
    if stream != "stdout":
        attrs["stream"] = stream
    apply_op(PRINT, tensors, attrs)


_Separator = object()


def _is_tensor(value) -> bool:
    return isinstance(value, Tensor) or hasattr(value, "_read_value_for_op")


def _marked(value, tensors: list):
    if _is_tensor(value):
        tensors.append(value)
        return _Mark(len(tensors) - 1)
    if isinstance(value, dict):
        return {key: _marked(item, tensors) for key, item in value.items()}
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(_marked(item, tensors) for item in value)
    return value


_ERRORS = {"out_of_range": OutOfRangeError}


def _assert_kernel(condition, *data, message, error=None):
    if not np.all(condition):
        details = " ".join(format_value(d) for d in data)
        raise _ERRORS.get(error, AssertionFailedError)(message + (f" {details}" if details else ""))


ASSERT = register(OpDef("assert", _assert_kernel, lambda *inputs, **attrs: (), effect=True,
                        num_outputs=0))


def assert_(condition, message: str = "Assertion failed.", data=(), error: str | None = None) -> None:
    """Raises ``AssertionFailedError(message)`` (an ``InvalidArgumentError`` and an
    ``AssertionError``) when the op runs and ``condition`` is false; with
    ``error="out_of_range"``, an ``OutOfRangeError`` (an iterator past its end)."""
    attrs = {"message": str(message)}
    if error is not None:
        attrs["error"] = _ERRORS[error] and error
    apply_op(ASSERT, (condition,) + tuple(data), attrs)


def _timestamp_kernel() -> np.ndarray:
    return np.asarray(time.time(), dtype=np.float64)


# Reading the clock is an effect: run on every call, in program order, never folded.
TIMESTAMP = register(OpDef("timestamp", _timestamp_kernel,
                           lambda: (np.dtype(np.float64), ()), effect=True))


def timestamp(name=None) -> Tensor:
    """The time in seconds since the epoch, as a float64 scalar, read when the op runs (on
    every call of a function, as in TensorFlow)."""
    return apply_op(TIMESTAMP, ())
