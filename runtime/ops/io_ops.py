"""Printing and runtime assertions: effects that run on every call, in program order."""

from __future__ import annotations

import sys

import numpy as np

from runtime.errors import AssertionFailedError
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor


class _Slot:
    """Where a tensor input goes in a print template."""

    __slots__ = ("index",)

    def __init__(self, index: int):
        self.index = index

    def __eq__(self, other):
        return isinstance(other, _Slot) and other.index == self.index

    def __hash__(self):
        return hash(("slot", self.index))

    def __repr__(self):
        return f"${self.index}"


def format_value(array: np.ndarray) -> str:
    """How a tensor prints: like NumPy (``5``, ``2.5``, ``[1 2 3]``)."""
    return str(array[()] if array.ndim == 0 else array)


def _print_kernel(*arrays, template, sep, end):
    pieces = [format_value(arrays[item.index]) if isinstance(item, _Slot) else str(item)
              for item in template]
    sys.stdout.write(sep.join(pieces) + end)


PRINT = register(OpDef("print", _print_kernel, lambda *inputs, **attrs: (), effect=True, num_outputs=0))


def print(*values, sep: str = " ", end: str = "\n") -> None:  # noqa: A001
    """Prints when the op runs: at once eagerly, on every call of a graph."""
    inputs, template = [], []
    for value in values:
        if isinstance(value, Tensor) or hasattr(value, "_read_value_for_op"):
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
