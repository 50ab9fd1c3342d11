"""``tf.errors``: TensorFlow's classes, constructors, codes, and errors that survive pickling
(values compared with TensorFlow are in tests/tf_programs/names.py)."""

import pickle

import pytest

import transpiler.tf as tf
from runtime.errors import IntegerDivisionByZeroError


@pytest.mark.parametrize("error", [
    tf.errors.NotFoundError(None, "read_file", "no such file"),
    tf.errors.OpError(None, None, "generic", tf.errors.ABORTED),
    tf.errors.InvalidArgumentError("raised by the runtime"),
    IntegerDivisionByZeroError.in_op("mod"),
], ids=lambda error: type(error).__name__)
def test_errors_pickle_with_their_message_op_and_code(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert (str(copy), copy.message, copy.op, copy.error_code) == \
        (str(error), error.message, error.op, error.error_code)


def test_the_runtime_errors_are_tensorflows_classes_with_their_codes():
    assert issubclass(tf.errors.ResourceExhaustedError, tf.errors.OpError)
    assert tf.errors.InvalidArgumentError("x").error_code == tf.errors.INVALID_ARGUMENT == 3
    assert tf.errors.OutOfRangeError("x").error_code == tf.errors.OUT_OF_RANGE == 11
    with pytest.raises(TypeError):
        tf.errors.UnimplementedError("the message alone is not TensorFlow's signature")
