"""``rt.debugging``: runtime checks with TensorFlow's names. Each is an assertion op (an
effect: it runs in program order in graphs, never pruned) that raises
``InvalidArgumentError`` with the message and the values when the check fails. The rank and
shape assertions raise a ``ValueError`` at once when the static shapes already decide, and the
dtype assertions a ``TypeError`` (dtypes are always known while tracing), as TensorFlow's do.
Also TensorFlow's debugging switches: traceback filtering (``runtime.config``'s) and the
device placement log (remembered; every op runs on the CPU)."""

from __future__ import annotations

import threading

import numpy as np

from runtime import config
from runtime.errors import InvalidArgumentError
from runtime.ops import dispatch
from runtime.ops.array_ops import (identity, rank as rank_of, shape as shape_of, stack,
                                   zeros_like)
from runtime.ops.dispatch import constant_value, convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import (abs, add, equal, greater, greater_equal, less,  # noqa: A004
                                  less_equal, multiply, not_equal, subtract)
from runtime.ops.reduce_ops import reduce_all, reduce_any
from runtime.ops.special_math_ops import is_finite
from runtime.tensor import EagerTensor, Tensor, format_shape as _format_shape


def _check(condition, message: str | None, default: str, data) -> None:
    text = f"{message}: {default}" if message else default
    assert_(reduce_all(condition), text, data)


def _compare(relation, symbol: str, name: str):
    """An assertion that ``relation(x, y)`` holds elementwise (the shapes must broadcast)."""
    def check(x, y, message: str | None = None, summarize=None, name=None) -> None:
        x, y = convert_to_tensor(x), convert_to_tensor(y)
        _check(relation(x, y), message, f"{name_text} failed: x {symbol} y did not hold "
               f"elementwise; x and y are", (x, y))
    name_text = name
    check.__name__ = check.__qualname__ = name
    check.__doc__ = f"Raises when ``x {symbol} y`` is false anywhere (the shapes must broadcast)."
    return check


def _sign(relation, what: str, name: str):
    """An assertion that every element of ``x`` is ``what`` (compared with zero)."""
    def check(x, message: str | None = None, summarize=None, name=None) -> None:
        x = convert_to_tensor(x)
        _check(relation(x, zeros_like(x)), message, f"{name_text} failed: x has elements "
               f"that are not {what}; x is", (x,))
    name_text = name
    check.__name__ = check.__qualname__ = name
    check.__doc__ = f"Raises when an element of ``x`` is not {what}."
    return check


def Assert(condition, data, summarize=None, name=None) -> None:  # noqa: N802 - TensorFlow's name
    """TensorFlow's ``tf.Assert``: raises ``InvalidArgumentError`` when the scalar bool
    ``condition`` is false, with ``data`` in the message; strings are written as they are,
    tensors with their values when the check runs (in program order, in graphs too)."""
    texts = [f"[{item}]" for item in data if isinstance(item, str)]
    tensors = [convert_to_tensor(item) for item in data if not isinstance(item, str)]
    assert_(condition, " ".join(["assertion failed:"] + texts), tensors)


assert_equal = _compare(equal, "==", "assert_equal")
_assert_not_equal = _compare(not_equal, "!=", "assert_none_equal")
assert_less = _compare(less, "<", "assert_less")
assert_greater = _compare(greater, ">", "assert_greater")
assert_greater_equal = _compare(greater_equal, ">=", "assert_greater_equal")
assert_less_equal = _compare(less_equal, "<=", "assert_less_equal")
assert_positive = _sign(greater, "positive", "assert_positive")
assert_negative = _sign(less, "negative", "assert_negative")
assert_non_negative = _sign(greater_equal, "non-negative", "assert_non_negative")
assert_non_positive = _sign(less_equal, "non-positive", "assert_non_positive")


def _rank_check(x, rank, message, at_least: bool, name: str) -> None:
    """Checks the rank now when it is known (a ``ValueError``, as TensorFlow), else when the
    graph runs."""
    x = convert_to_tensor(x)
    wanted = constant_value(convert_to_tensor(rank))
    relation = "at least " if at_least else ""
    prefix = f"{message}: " if message else ""
    if x.shape is not None and wanted is not None:
        if (len(x.shape) >= int(wanted)) if at_least else (len(x.shape) == int(wanted)):
            return
        raise ValueError(f"{prefix}{name} failed: the tensor has rank {len(x.shape)} (shape "
                         f"{_format_shape(x.shape)}), but rank {relation}{int(wanted)} was "
                         f"expected.")
    compare = greater_equal if at_least else equal
    _check(compare(rank_of(x), rank), message,
           f"{name} failed: the tensor does not have rank {relation}the one given; its shape and "
           f"the rank are", (shape_of(x), convert_to_tensor(rank)))


def assert_rank(x, rank, message: str | None = None, name=None) -> None:
    """Raises unless ``x`` has rank ``rank`` (a ``ValueError`` at once when both are known)."""
    _rank_check(x, rank, message, False, "assert_rank")


def assert_rank_at_least(x, rank, message: str | None = None, name=None) -> None:
    """Raises unless ``x`` has rank ``rank`` or more."""
    _rank_check(x, rank, message, True, "assert_rank_at_least")


def assert_shapes(shapes, data=None, summarize=None, message: str | None = None,
                  name=None) -> None:
    """Checks each ``(tensor, spec)`` of ``shapes``: ``spec`` lists a tensor's dimensions as
    ints, or names (``'N'``) that must mean the same size in every tensor, or ``None``/``'.'``
    for any size; a leading ``'*'`` matches any number of leading dimensions. What the static
    shapes decide raises a ``ValueError`` at once; the rest is checked when the graph runs."""
    sizes: dict[str, object] = {}
    pairs = shapes.items() if isinstance(shapes, dict) else shapes
    for tensor, spec in pairs:
        _check_shape_spec(convert_to_tensor(tensor), list(spec), sizes, message)


def _check_shape_spec(x: Tensor, spec: list, sizes: dict, message: str | None) -> None:
    prefix = f"{message}: " if message else ""
    leading_any = bool(spec) and spec[0] == "*"
    spec = spec[1:] if leading_any else spec
    if x.shape is not None and (len(x.shape) < len(spec) if leading_any
                                else len(x.shape) != len(spec)):
        raise ValueError(f"{prefix}assert_shapes failed: a tensor of shape "
                         f"{_format_shape(x.shape)} was expected to have "
                         f"{'at least ' if leading_any else ''}{len(spec)} dimensions "
                         f"({spec}).")
    offset = len(x.shape) - len(spec) if x.shape is not None else None
    for position, wanted in enumerate(spec):
        if wanted is None or wanted == ".":
            continue
        static = x.shape[offset + position] if offset is not None else None
        size = static if static is not None else shape_of(x)[position - len(spec)]
        if isinstance(wanted, str):
            if wanted not in sizes:
                sizes[wanted] = size
                continue
            wanted = sizes[wanted]
        _check_size(x, size, wanted, prefix, message)


def _check_size(x: Tensor, size, wanted, prefix: str, message: str | None) -> None:
    """Raises now when both sizes are known and differ; checks when the graph runs otherwise."""
    if isinstance(size, int) and isinstance(wanted, int):
        if size != wanted:
            raise ValueError(f"{prefix}assert_shapes failed: a tensor of shape "
                             f"{_format_shape(x.shape)} has a dimension of size {size} where "
                             f"{wanted} was expected.")
        return
    _check(equal(size, wanted), message, "assert_shapes failed: a dimension differs from the "
           "size expected; the tensor's shape is", (shape_of(x),))


def assert_none_equal(x, y, summarize=None, message: str | None = None, name=None) -> None:
    """Raises when ``x == y`` anywhere (TensorFlow's argument order: ``summarize`` third)."""
    _assert_not_equal(x, y, message)


def assert_near(x, y, rtol=None, atol=None, message: str | None = None, summarize=None,
                name=None) -> None:
    """Raises unless ``|x - y| <= atol + rtol * |y|`` everywhere; both tolerances default to
    10 machine epsilons of the (floating-point) dtype, as in TensorFlow."""
    x = convert_to_tensor(x)
    y = convert_to_tensor(y, x.dtype)
    if x.dtype.kind not in "fc":
        raise ValueError(f"assert_near compares floating-point tensors, got {x.dtype.name}; "
                         f"use assert_equal for integers.")
    eps = 10 * float(np.finfo(x.dtype).eps)
    rtol = eps if rtol is None else rtol
    atol = eps if atol is None else atol
    _check(less_equal(abs(subtract(x, y)), add(multiply(abs(y), rtol), atol)), message,
           "assert_near failed: x and y are not equal to the tolerance; x and y are", (x, y))


def assert_all_finite(x, message: str, name=None) -> Tensor:
    """``x`` itself after checking that it holds no NaN or infinity (``check_numerics``)."""
    return check_numerics(x, message)


def assert_type(tensor, tf_type, message: str | None = None, name=None) -> None:
    """Raises ``TypeError`` unless ``tensor`` has the dtype ``tf_type`` (known while tracing,
    so checked at once)."""
    dtype = convert_to_tensor(tensor).dtype
    if dtype != np.dtype(tf_type):
        prefix = f"{message}: " if message else ""
        raise TypeError(f"{prefix}the tensor must be of type {np.dtype(tf_type).name}, got "
                        f"{dtype.name}.")


def assert_integer(x, message: str | None = None, name=None) -> None:
    """Raises ``TypeError`` unless ``x`` has an integer dtype."""
    dtype = convert_to_tensor(x).dtype
    if dtype.kind not in "iu":
        prefix = f"{message}: " if message else ""
        raise TypeError(f"{prefix}expected an integer tensor, got one of dtype {dtype.name}.")


def assert_scalar(tensor, message: str | None = None, name=None) -> None:
    """Raises unless ``tensor`` is a scalar (a ``ValueError`` at once when its rank is
    known)."""
    _rank_check(tensor, 0, message, False, "assert_scalar")


def assert_rank_in(x, ranks, message: str | None = None, name=None) -> None:
    """Raises unless the rank of ``x`` is one of ``ranks`` (a ``ValueError`` at once when the
    rank and ``ranks`` are known, else when the graph runs)."""
    x = convert_to_tensor(x)
    wanted = [constant_value(convert_to_tensor(r)) for r in ranks]
    prefix = f"{message}: " if message else ""
    if x.shape is not None and all(w is not None for w in wanted):
        if len(x.shape) not in [int(w) for w in wanted]:
            raise ValueError(f"{prefix}assert_rank_in failed: the tensor has rank {len(x.shape)} "
                             f"(shape {_format_shape(x.shape)}), not one of "
                             f"{[int(w) for w in wanted]}.")
        return
    matches = [equal(rank_of(x), convert_to_tensor(r)) for r in ranks]
    _check(reduce_any(stack(matches)), message, "assert_rank_in failed: the tensor's rank is "
           "none of the ranks given; its shape is", (shape_of(x),))


def assert_same_float_dtype(tensors=None, dtype=None) -> np.dtype:
    """The floating-point dtype that ``tensors`` share (and ``dtype``, when given), float32
    when there is nothing to go by; ``ValueError`` when they differ or are not floats."""
    found = [convert_to_tensor(t).dtype for t in tensors or ()]
    expected = np.dtype(dtype) if dtype is not None else (found[0] if found else None)
    for got in found:
        if got != expected:
            raise ValueError(f"assert_same_float_dtype: the tensors must all have dtype "
                             f"{expected.name}, one has {got.name}.")
    expected = np.dtype(np.float32) if expected is None else expected
    if expected.kind != "f":
        raise ValueError(f"assert_same_float_dtype: expected a floating-point dtype, got "
                         f"{expected.name}.")
    return expected


def is_numeric_tensor(tensor) -> bool:
    """Whether ``tensor`` is a tensor (not a variable or an array) of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.kind in "iufc"


def enable_traceback_filtering() -> None:
    """Errors leaving traced functions show the user's frames only (the default)."""
    config.set_traceback_filtering(True)


def disable_traceback_filtering() -> None:
    """Errors leaving traced functions show every frame, eager2graph's too."""
    config.set_traceback_filtering(False)


def is_traceback_filtering_enabled() -> bool:
    """Whether errors leaving traced functions show the user's frames only."""
    return config.traceback_filtering()


class _DevicePlacementLog:
    enabled = False


def set_log_device_placement(enabled: bool) -> None:
    """Remembered for ``get_log_device_placement``; there is nothing to log: every op runs
    on the CPU."""
    _DevicePlacementLog.enabled = bool(enabled)


def get_log_device_placement() -> bool:
    """What ``set_log_device_placement`` was last given (False at first)."""
    return _DevicePlacementLog.enabled


class _NumericsChecking(threading.local):
    checking = False  # inside a check: the ops it adds are not checked themselves


_numerics_checking = _NumericsChecking()


def _check_outputs(op, inputs, outputs) -> None:
    """Raises ``InvalidArgumentError`` (eagerly, or when the graph runs) where a float output
    of ``op`` holds NaN or an infinity; ops without inputs (constants, variable reads) make
    no new values and are not checked."""
    if not inputs or _numerics_checking.checking:
        return
    for index, output in enumerate(outputs):
        if output.dtype.kind != "f":
            continue
        message = (f"!!! Detected Infinity or NaN in output {index} of op {op.name!r} !!! "
                   f"(tf.debugging.enable_check_numerics is on; find where the value "
                   f"overflows or divides by zero, or turn the check off with "
                   f"disable_check_numerics)")
        if type(output) is EagerTensor:
            if not np.all(np.isfinite(output.numpy())):
                raise InvalidArgumentError(message)
            continue
        _numerics_checking.checking = True
        try:
            assert_(reduce_all(is_finite(output)), message)
        finally:
            _numerics_checking.checking = False


def enable_check_numerics(stack_height_limit=30, path_length_limit=50) -> None:
    """From now on, every op whose float output holds NaN or an infinity raises
    ``InvalidArgumentError``: eagerly at once, in functions traced from now on when they
    run. (TensorFlow's limits on the stack shown in the message change nothing here.)"""
    if _check_outputs not in dispatch.output_checks:
        dispatch.output_checks.append(_check_outputs)


def disable_check_numerics() -> None:
    """Turns ``enable_check_numerics`` off (functions traced while it was on keep their
    checks, as in TensorFlow)."""
    if _check_outputs in dispatch.output_checks:
        dispatch.output_checks.remove(_check_outputs)


def check_numerics(tensor, message: str) -> Tensor:
    """``tensor`` itself, after checking that it holds no NaN or infinity (the gradient
    passes through unchanged)."""
    tensor = convert_to_tensor(tensor)
    if tensor.dtype.kind != "f":
        raise TypeError(f"check_numerics needs a floating-point tensor, got "
                        f"{tensor.dtype.name}.")
    assert_(reduce_all(is_finite(tensor)), f"{message}: check_numerics found NaN or Inf "
            f"values in a tensor of shape {tensor.shape}.")
    return identity(tensor)
