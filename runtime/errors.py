"""Exceptions raised by the runtime, each naming what failed and how to fix it."""

from __future__ import annotations


class RuntimeErrorBase(Exception):
    """Base class of every error the runtime raises on purpose."""


class OpError(RuntimeErrorBase):
    """An op failed when it ran (TensorFlow's ``tf.errors.OpError``, the base of the errors
    below that TensorFlow programs catch)."""


class InvalidArgumentError(OpError, ValueError):
    """An op received values it cannot compute with (eagerly or when a graph runs)."""


class OutOfRangeError(OpError):
    """An iterator was asked for an element past the end of its dataset inside a graph
    (eagerly, Python's ``StopIteration``), as TensorFlow raises it."""


class IntegerDivisionByZeroError(InvalidArgumentError, ZeroDivisionError):
    """An integer division or remainder had a zero divisor. NumPy would give 0 with a warning;
    Python raises ZeroDivisionError and TensorFlow InvalidArgumentError, and this is both."""

    @classmethod
    def in_op(cls, op: str) -> IntegerDivisionByZeroError:
        return cls(f"integer division by zero in {op}: a divisor is 0. Python and TensorFlow "
                   f"raise here (NumPy would give 0); make sure the divisor is not 0, or divide "
                   f"floats.")


class AssertionFailedError(InvalidArgumentError, AssertionError):
    """``rt.assert_`` (and a converted ``assert``) found its condition false. It is also an
    AssertionError, so code that catches what a Python ``assert`` raises still catches it."""


class OperatorNotAllowedInGraphError(RuntimeErrorBase, TypeError):
    """A symbolic tensor was used where Python needs a concrete value (``if``, ``bool``, ``len``)."""


class ShapeError(RuntimeErrorBase, ValueError):
    """Shapes are incompatible for an op; raised while a graph is being traced."""


class GraphTypeError(RuntimeErrorBase, TypeError):
    """Values of control flow (branch outputs, loop variables) disagree in structure or dtype."""


class GraphStructureError(GraphTypeError, ValueError):
    """The branches of a conditional give differently nested values. Both a TypeError (as
    for loops) and a ValueError (as TensorFlow raises for conditionals), so either catches it."""


class GraphValueError(RuntimeErrorBase, ValueError):
    """A value that graph control flow needs is missing: ``None`` on one path, or a variable
    that is assigned on some paths only."""


class LoopLimitError(RuntimeErrorBase, RuntimeError):
    """A loop of a graph loaded with a loop limit (``rt.load(..., max_loop_iterations=...,
    loop_time_limit=...)``) ran past it, and the call was stopped there."""


class RetracingWarning(UserWarning):
    """A function is traced again and again, which makes every call slow."""


class SavedGraphError(ValueError):
    """A saved graph file cannot be loaded: corrupt, truncated, changed, or from a newer version."""


class GradientError(RuntimeErrorBase, LookupError):
    """A gradient was asked through an op that has no gradient rule, or through control flow
    whose backward pass cannot be built. A LookupError, as TensorFlow raises for the first."""


class GradientWarning(UserWarning):
    """A gradient is None although the target depends on the source: every path between them
    passes an op without a gradient (such as ``round``, or a cast to an integer)."""


class CompileWarning(UserWarning):
    """A part of a graph the compiled tier meant to compile failed to; it runs on the NumPy
    plan instead (results unchanged), and the warning says which part and why."""


class ExportError(RuntimeErrorBase):
    """A graph cannot be exported to another engine (an op or effect it cannot express); the
    message names the op and the user's line that created it."""
