"""``tf.errors``: the exceptions TensorFlow programs catch, as the runtime raises them, and
TensorFlow's error codes."""

from runtime.errors import (  # noqa: F401
    ABORTED, ALREADY_EXISTS, CANCELLED, DATA_LOSS, DEADLINE_EXCEEDED, FAILED_PRECONDITION, INTERNAL,
    INVALID_ARGUMENT, NOT_FOUND, OK, OUT_OF_RANGE, PERMISSION_DENIED, RESOURCE_EXHAUSTED,
    UNAUTHENTICATED, UNAVAILABLE, UNIMPLEMENTED, UNKNOWN, AbortedError, AlreadyExistsError,
    CancelledError, DataLossError, DeadlineExceededError, FailedPreconditionError, InternalError,
    InvalidArgumentError, NotFoundError, OperatorNotAllowedInGraphError, OpError, OutOfRangeError,
    PermissionDeniedError, ResourceExhaustedError, UnauthenticatedError, UnavailableError,
    UnimplementedError, UnknownError)
from transpiler.tf._names import missing as _missing

__getattr__ = _missing("tf.errors")
