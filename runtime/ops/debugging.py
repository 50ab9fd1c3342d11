"""``rt.debugging``: runtime checks with TensorFlow's names. Each is an assertion op (an
effect: it runs in program order in graphs, never pruned) that raises
``InvalidArgumentError`` with the message and the values when the check fails. The rank and
shape assertions raise a ``ValueError`` at once when the static shapes already decide, as
TensorFlow's do."""

from __future__ import annotations

from runtime.ops.array_ops import identity, rank as rank_of, shape as shape_of, zeros_like
from runtime.ops.dispatch import constant_value, convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, greater, greater_equal, less, less_equal
from runtime.ops.reduce_ops import reduce_all
from runtime.ops.special_math_ops import is_finite
from runtime.tensor import Tensor, format_shape as _format_shape


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


assert_equal = _compare(equal, "==", "assert_equal")
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
