"""``rt.debugging``: runtime checks with TensorFlow's names. Each is an assertion op (an
effect: it runs in program order in graphs, never pruned) that raises
``InvalidArgumentError`` with the message and the values when the check fails."""

from __future__ import annotations

from runtime.ops.array_ops import identity
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, less
from runtime.ops.reduce_ops import reduce_all
from runtime.ops.special_math_ops import is_finite
from runtime.tensor import Tensor


def _check(condition, message: str | None, default: str, data) -> None:
    text = f"{message}: {default}" if message else default
    assert_(reduce_all(condition), text, data)


def assert_equal(x, y, message: str | None = None, summarize=None) -> None:
    """Raises when ``x == y`` is false anywhere (the shapes must broadcast)."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    _check(equal(x, y), message, "assert_equal failed: x == y did not hold elementwise; "
           "x and y are", (x, y))


def assert_less(x, y, message: str | None = None, summarize=None) -> None:
    """Raises when ``x < y`` is false anywhere (the shapes must broadcast)."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    _check(less(x, y), message, "assert_less failed: x < y did not hold elementwise; x and "
           "y are", (x, y))


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
