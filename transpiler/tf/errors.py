"""``tf.errors``: the exceptions TensorFlow programs catch, as the runtime raises them."""

from runtime.errors import (InvalidArgumentError, OperatorNotAllowedInGraphError,  # noqa: F401
                            OpError, OutOfRangeError)
from transpiler.tf._names import missing as _missing

__getattr__ = _missing("tf.errors")
