"""The functions of ``rt.math`` (and TensorFlow's ``saturate_cast``) that are exact
compositions of existing ops: each traces to those ops, so its gradient, constant folding,
serialization and export come with them."""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from runtime import dtypes
from runtime.ops.array_ops import cast, clip_by_value, reshape, where, zeros_like
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.math_ops import (RECIPROCAL, RSQRT, add, divide, equal, greater,
                                  greater_equal, log, log1p, mod, multiply, not_equal, sqrt,
                                  square, subtract)
from runtime.ops.reduce_ops import reduce_all, reduce_mean, reduce_sum
from runtime.ops.special_math_ops import truncatediv
from runtime.tensor import Tensor, format_shape

floormod = mod  # TensorFlow's floormod is Python's %, which rt.mod already is


def _floating(op_name: str, x) -> Tensor:
    x = convert_to_tensor(x)
    if x.dtype.kind not in "fc":
        raise TypeError(f"{op_name}: the input must be a float or complex tensor, got "
                        f"{x.dtype.name}; use rt.cast to convert.")
    return x


def reduce_variance(input_tensor, axis=None, keepdims: bool = False) -> Tensor:
    """The population variance (divided by n) over ``axis``."""
    x = _floating("reduce_variance", input_tensor)
    deviation = subtract(x, reduce_mean(x, axis, keepdims=True))
    return reduce_mean(square(deviation), axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims: bool = False) -> Tensor:
    """The population standard deviation over ``axis``."""
    x = _floating("reduce_std", input_tensor)
    return sqrt(reduce_variance(x, axis, keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims: bool = False) -> Tensor:
    """``sqrt(sum(x²))`` over ``axis``; integers keep their dtype (the root truncates), as in
    TensorFlow."""
    x = convert_to_tensor(input_tensor)
    total = reduce_sum(square(x), axis, keepdims=keepdims)
    if x.dtype.kind in "iu":
        return cast(sqrt(cast(total, dtypes.float64)), x.dtype)
    return sqrt(total)


def add_n(inputs: Sequence) -> Tensor:
    """The elementwise sum of tensors of one shape and dtype."""
    tensors = [convert_to_tensor(value) for value in inputs]
    if not tensors:
        raise ValueError("add_n: inputs must be a non-empty list of tensors.")
    first = tensors[0]
    for position, value in enumerate(tensors[1:], 1):
        if value.dtype != first.dtype:
            raise TypeError(f"add_n: input {position} has dtype {value.dtype.name} but input 0 "
                            f"has {first.dtype.name}; all inputs must have the same dtype.")
        if value.shape is not None and first.shape is not None and (
                len(value.shape) != len(first.shape) or any(
                    a is not None and b is not None and a != b
                    for a, b in zip(value.shape, first.shape))):
            raise ValueError(f"add_n: input {position} has shape {format_shape(value.shape)} but "
                             f"input 0 has {format_shape(first.shape)}; all inputs must have "
                             f"the same shape.")
    total = first
    for value in tensors[1:]:
        total = add(total, value)
    return total


def squared_difference(x, y) -> Tensor:
    """``(x - y)²`` elementwise, with broadcasting."""
    return square(subtract(x, y))


def reciprocal(x) -> Tensor:
    """``1 / x``; integers divide rounding toward zero and keep their dtype, as in TensorFlow."""
    x = convert_to_tensor(x)
    if x.dtype.kind in "iu":
        return truncatediv(1, x)
    return apply_op(RECIPROCAL, (x,)) if x.dtype.kind in "fc" else divide(1, x)


def rsqrt(x) -> Tensor:
    """``1 / sqrt(x)``; integers compute in the float dtype ``sqrt`` gives them."""
    return apply_op(RSQRT, (x,))


def divide_no_nan(x, y) -> Tensor:
    """``x / y``, and 0 wherever ``y`` is 0 (even for an infinite or NaN ``x``). The divisor
    is made safe first, so the gradient is finite too."""
    y = convert_to_tensor(y)
    zero = equal(y, 0)
    quotient = divide(x, where(zero, 1, y))
    return where(zero, zeros_like(quotient), quotient)


def multiply_no_nan(x, y) -> Tensor:
    """``x * y``, and 0 wherever ``y`` is 0 (even for an infinite or NaN ``x``)."""
    y = convert_to_tensor(y)
    zero = equal(y, 0)
    # Multiplied by 1 there instead (inf * 0 would warn, and its NaN is thrown away anyway).
    product = multiply(x, where(zero, 1, y))
    return where(zero, zeros_like(product), product)


def count_nonzero(input, axis=None, keepdims: bool = False, dtype=dtypes.int64) -> Tensor:  # noqa: A002
    """The number of non-zero elements over ``axis`` (``False``, ``0``, ``0.0`` count as zero)."""
    x = convert_to_tensor(input)
    return reduce_sum(cast(not_equal(x, zeros_like(x)), dtype), axis, keepdims=keepdims)


def polyval(coeffs: Sequence, x) -> Tensor:
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule; no coefficients give 0."""
    x = convert_to_tensor(x)
    if not coeffs:
        return zeros_like(x)
    result = coeffs[0]  # Python numbers stay weak: they take x's dtype
    for coefficient in coeffs[1:]:
        result = add(multiply(result, x), coefficient)
    return convert_to_tensor(result)


def reciprocal_no_nan(x) -> Tensor:
    """``1 / x``, and 0 where ``x`` is 0 (floats only, as in TensorFlow)."""
    x = _floating("reciprocal_no_nan", x)
    return divide_no_nan(1, x)


def _times_log_of(op_name: str, log_of: Callable, neutral: int, x, y) -> Tensor:
    """``x * log_of(y)``, and 0 wherever ``x`` is 0 (even for a ``y`` whose log is infinite
    or NaN): there ``y`` is replaced by ``neutral``, whose log is 0, so gradients stay finite
    too (0 for both arguments, as in TensorFlow)."""
    dtype = dtypes.result_type(x, y)
    if dtype.kind not in "fc":
        raise TypeError(f"{op_name}: x and y must be float or complex, got {dtype.name}; use "
                        f"rt.cast to convert.")
    # ``neutral`` in the result's dtype, so that a Python number ``y`` takes that dtype too
    return multiply(x, log_of(where(equal(x, 0), np.asarray(neutral, dtype), y)))


def xlogy(x, y) -> Tensor:
    """``x * log(y)``, and 0 where ``x`` is 0."""
    return _times_log_of("xlogy", log, 1, x, y)


def xlog1py(x, y) -> Tensor:
    """``x * log1p(y)``, and 0 where ``x`` is 0."""
    return _times_log_of("xlog1py", log1p, 0, x, y)


def xdivy(x, y) -> Tensor:
    """``x / y``, and 0 where ``x`` is 0 (even where ``y`` is 0 too): there ``y`` is replaced
    by infinity, so that neither the value nor the gradients are NaN and both gradients are
    0 there, as in TensorFlow."""
    dtype = dtypes.result_type(x, y)
    if dtype.kind not in "fc":
        raise TypeError(f"xdivy: x and y must be float or complex, got {dtype.name}; use "
                        f"rt.cast to convert.")
    return divide(x, where(equal(x, 0), np.asarray(np.inf, dtype), y))


def _in_order(op_name: str, holds: Callable, x) -> Tensor:
    """Whether ``holds(next, previous)`` for every pair of neighbours of ``x`` flattened."""
    x = convert_to_tensor(x)
    if x.dtype.kind not in "iuf":
        raise TypeError(f"{op_name}: x must be numeric, got {x.dtype.name}.")
    flat = reshape(x, [-1])
    return reduce_all(holds(flat[1:], flat[:-1]))


def is_non_decreasing(x) -> Tensor:
    """Whether each element of ``x`` (flattened) is at least the one before it (True for
    fewer than two elements)."""
    return _in_order("is_non_decreasing", greater_equal, x)


def is_strictly_increasing(x) -> Tensor:
    """Whether each element of ``x`` (flattened) is greater than the one before it (True for
    fewer than two elements)."""
    return _in_order("is_strictly_increasing", greater, x)


def _limits(dtype: np.dtype) -> tuple:
    """The smallest and largest values of ``dtype``, as Python numbers (exact)."""
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return int(info.min), int(info.max)
    info = np.finfo(dtype)
    return float(info.min), float(info.max)


def _representable_within(bound, dtype: np.dtype):
    """``bound`` in ``dtype``, moved toward zero if rounding took it past ``bound`` (the
    float32 nearest to int32's largest value is 2**31, which does not fit)."""
    value = np.array(bound, dtype)
    exact = value.item()  # compared as Python numbers, which compare exactly
    if (exact > bound) if bound > 0 else (exact < bound):
        return np.nextafter(value, np.zeros_like(value)).item()
    return exact


def saturate_cast(value, dtype) -> Tensor:
    """``value`` cast to ``dtype``, clamped to its range first (300.0 to uint8 is 255, -1e10
    to int32 is its smallest value) instead of wrapping around."""
    x, target = convert_to_tensor(value), dtypes.as_dtype(dtype)
    if x.dtype.kind not in "iuf" or target.kind not in "iuf":
        raise TypeError(f"saturate_cast: from {x.dtype.name} to {target.name} is not supported: "
                        f"it clamps integers and floats only (bool has no range, and complex "
                        f"values would need their parts clamped); use rt.cast.")
    (low, high), (lowest, highest) = _limits(target), _limits(x.dtype)
    if low <= lowest and high >= highest:
        return cast(x, target)
    clamped = clip_by_value(x, _representable_within(max(low, lowest), x.dtype),
                            _representable_within(min(high, highest), x.dtype))
    return cast(clamped, target)


def zero_fraction(value) -> Tensor:
    """The fraction of ``value``'s elements that are 0, as a float32 scalar."""
    return reduce_mean(cast(equal(convert_to_tensor(value), 0), dtypes.float32))
