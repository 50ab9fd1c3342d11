"""Two rules of TensorFlow's that the runtime's own ops do not follow, for ``transpiler.tf``
(and Keras' ops on TensorFlow) to apply to the functions they export.

Ops whose kernels exist for floating-point (and complex) dtypes only: ``tf.sqrt``,
``tf.exp``, ``tf.math.log``, ``tf.nn.softmax``, ... given an integer or bool tensor raise,
where the runtime's ops compute in a float dtype as NumPy and JAX do (``rt.sqrt(int32)`` is
float64). A program that passes integers by mistake must fail as it fails in TensorFlow, not
go on with floats: eagerly with ``InvalidArgumentError`` (no kernel is registered for the
dtype), while a ``tf.function`` is traced with ``TypeError`` (the graph op refuses the dtype).

Shapes that do not fit an op: the runtime raises ``ShapeError`` (a ``ValueError``) whether it
runs eagerly or traces, as TensorFlow does while tracing; eagerly TensorFlow's kernel raises
``InvalidArgumentError`` instead. So that the ``except`` clauses a program has catch the same
errors, an eager ``ShapeError`` leaves a TensorFlow function as ``InvalidArgumentError`` (the
class below, which is both).
"""

from __future__ import annotations

import functools
import inspect
from typing import Callable

from runtime import errors, tracing
from runtime.ops.dispatch import convert_to_tensor

_INEXACT_KINDS = frozenset("fc")


class InvalidArgumentError(errors.ShapeError, errors.InvalidArgumentError):
    """Shapes that do not fit an op run eagerly, as TensorFlow's kernels report them (and a
    ``ShapeError`` still, for code that catches the runtime's own class)."""


def floating_only(function: Callable) -> Callable:
    """``function`` (an op taking its tensor first), refusing integer and bool tensors as
    TensorFlow's kernels do; floating-point and complex tensors go through unchanged."""
    parameter = next(iter(inspect.signature(function).parameters))
    op_name = function.__name__

    @functools.wraps(function)
    def checked(*args, **kwargs):
        if args:
            args = (_inexact_tensor(op_name, args[0]),) + args[1:]
        elif parameter in kwargs:
            kwargs[parameter] = _inexact_tensor(op_name, kwargs[parameter])
        return function(*args, **kwargs)

    return checked


def _inexact_tensor(op_name: str, value):
    tensor = convert_to_tensor(value)
    if tensor.dtype.kind in _INEXACT_KINDS:
        return tensor
    error = TypeError if tracing.is_tracing() else errors.InvalidArgumentError
    raise error(f"{op_name} is defined for floating-point and complex tensors only, and was "
                f"given a tensor of dtype {tensor.dtype.name}. Cast it to a float dtype first, "
                f"for example with tf.cast(x, tf.float32).")


def kernel_errors(function: Callable) -> Callable:
    """``function``, whose ``ShapeError`` raised eagerly becomes ``InvalidArgumentError``
    (see the module docstring); while tracing it stays as it is."""
    @functools.wraps(function)
    def run(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except errors.ShapeError as error:
            if isinstance(error, errors.InvalidArgumentError) or tracing.is_tracing():
                raise
            raise InvalidArgumentError(str(error)).with_traceback(error.__traceback__) from None

    return run
