"""Exceptions raised by the runtime, each naming what failed and how to fix it."""

from __future__ import annotations


class RuntimeErrorBase(Exception):
    """Base class of every error the runtime raises on purpose."""


# TensorFlow's error codes (``tf.errors.OK``, ...): the numbers of its canonical status codes.
(OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS,
 PERMISSION_DENIED, RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE,
 UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS, UNAUTHENTICATED) = range(17)


class OpError(RuntimeErrorBase):
    """An op failed when it ran (TensorFlow's ``tf.errors.OpError``, the base of the errors
    below that TensorFlow programs catch).

    The runtime raises it with a message alone; programs construct it as TensorFlow does,
    ``OpError(node_def, op, message, error_code)`` and ``NotFoundError(node_def, op,
    message)``, and read ``message``, ``op``, ``node_def`` and ``error_code``."""

    error_code = UNKNOWN

    def __init__(self, *args) -> None:
        if len(args) < 3:  # the runtime's own: (message,)
            message, node_def, op = (args[0] if args else ""), None, None
        else:
            node_def, op, message = args[:3]
            if len(args) > 3 and type(self) is OpError:
                self.error_code = args[3]
        super().__init__(message)
        self.message, self.node_def, self.op = message, node_def, op
        self.experimental_payloads: dict = {}

    def __reduce__(self):
        """Pickled with all it was given (an exception's default keeps the message only)."""
        code = (self.error_code,) if type(self) is OpError else ()
        return type(self), (self.node_def, self.op, self.message) + code


class InvalidArgumentError(OpError, ValueError):
    """An op received values it cannot compute with (eagerly or when a graph runs)."""

    error_code = INVALID_ARGUMENT


class OutOfRangeError(OpError):
    """An iterator was asked for an element past the end of its dataset inside a graph
    (eagerly, Python's ``StopIteration``), as TensorFlow raises it."""

    error_code = OUT_OF_RANGE


def _op_error(name: str, code: int, doc: str) -> type:
    """A class TensorFlow programs raise themselves: its constructor is TensorFlow's."""
    def __init__(self, node_def, op, message, *args) -> None:
        OpError.__init__(self, node_def, op, message)

    return type(name, (OpError,), {"__doc__": doc, "error_code": code, "__module__": __name__,
                                   "__init__": __init__})


# The rest of TensorFlow's error classes: the runtime raises none of them; programs raise and
# catch them (a custom loop that stops on ``tf.errors.NotFoundError``, say).
CancelledError = _op_error("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _op_error("UnknownError", UNKNOWN, "An error of no other kind.")
DeadlineExceededError = _op_error("DeadlineExceededError", DEADLINE_EXCEEDED,
                                  "A deadline passed before the operation completed.")
NotFoundError = _op_error("NotFoundError", NOT_FOUND, "A file or other entity was not found.")
AlreadyExistsError = _op_error("AlreadyExistsError", ALREADY_EXISTS,
                               "An entity to be created exists already.")
PermissionDeniedError = _op_error("PermissionDeniedError", PERMISSION_DENIED,
                                  "The caller may not run the operation.")
ResourceExhaustedError = _op_error("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                                   "A resource (memory, a quota) ran out.")
FailedPreconditionError = _op_error("FailedPreconditionError", FAILED_PRECONDITION,
                                    "The system is not in a state the operation needs.")
AbortedError = _op_error("AbortedError", ABORTED, "The operation was aborted.")
UnimplementedError = _op_error("UnimplementedError", UNIMPLEMENTED,
                               "The operation is not implemented or not supported.")
InternalError = _op_error("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _op_error("UnavailableError", UNAVAILABLE, "A service is unavailable.")
DataLossError = _op_error("DataLossError", DATA_LOSS, "Data were lost or corrupted.")
UnauthenticatedError = _op_error("UnauthenticatedError", UNAUTHENTICATED,
                                 "The request has no valid credentials.")


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
