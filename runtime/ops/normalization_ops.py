"""Normalization helpers of ``rt.nn`` (``bias_add``, ``moments`` and its parts
``sufficient_statistics``/``normalize_moments``, ``weighted_moments``, ``batch_normalization``,
``l2_normalize``) and ``embedding_lookup``, composed from existing ops with TensorFlow's
formulas, so their gradients are those of the ops they are made of."""

from __future__ import annotations

from runtime.errors import ShapeError
from runtime.ops.array_ops import cast, gather, shape, squeeze, zeros_like
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.gradient_ops import stop_gradient
from runtime.ops.math_ops import add, divide, maximum, multiply, sqrt, square, subtract
from runtime.ops.nn_ops import _floating
from runtime.ops.norm_ops import clip_by_norm
from runtime.ops.reduce_ops import reduce_mean, reduce_prod, reduce_sum
from runtime.ops.shapes import normalize_axes
from runtime.tensor import Tensor, format_shape


def bias_add(value, bias, data_format=None) -> Tensor:
    """``value + bias`` with a 1-D ``bias`` the size of ``value``'s last (channel) axis."""
    if data_format not in (None, "NHWC", "N...C"):
        raise ValueError(f"bias_add: only channels-last data formats are supported, got "
                         f"{data_format!r}.")
    value, bias = convert_to_tensor(value), convert_to_tensor(bias)
    if bias.dtype != value.dtype:
        raise TypeError(f"bias_add: value ({value.dtype.name}) and bias ({bias.dtype.name}) "
                        f"must have the same dtype; use rt.cast.")
    if bias.ndim is not None and bias.ndim != 1 or value.ndim is not None and value.ndim < 1:
        raise ShapeError(f"bias_add: bias must be 1-D and value at least 1-D, got value "
                         f"{format_shape(value.shape)} and bias {format_shape(bias.shape)}.")
    if value.shape and bias.shape and None not in (value.shape[-1], bias.shape[0]) \
            and value.shape[-1] != bias.shape[0]:
        raise ShapeError(f"bias_add: the bias must be as long as value's last dimension, got "
                         f"value {format_shape(value.shape)} and bias {format_shape(bias.shape)}.")
    return add(value, bias)


def moments(x, axes, shift=None, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """``(mean, variance)`` of ``x`` over ``axes``. As in TensorFlow the variance is the mean
    squared difference from a stopped-gradient mean (which changes no value or gradient);
    ``shift`` is accepted and unused."""
    x = _floating("moments", x)
    axes = _moment_axes("moments", x, axes)
    mean = reduce_mean(x, axes, keepdims=True)
    variance = reduce_mean(square(subtract(x, stop_gradient(mean))), axes, keepdims=True)
    if keepdims:
        return mean, variance
    return squeeze(mean, list(axes)), squeeze(variance, list(axes))


def _moment_axes(op_name: str, x: Tensor, axes) -> tuple[int, ...]:
    axes = normalize_axes(op_name, axes, x.ndim)
    if axes is None:
        if x.ndim is None:
            raise ShapeError(f"{op_name}: axes=None needs a tensor of known rank while tracing.")
        axes = tuple(range(x.ndim))
    return axes


def sufficient_statistics(x, axes, shift=None, keepdims: bool = False) -> tuple:
    """``(count, sum(x - shift), sum((x - shift)²), shift)`` over ``axes``: the parts of the
    moments that add up across batches (``normalize_moments`` makes the moments of them).
    ``count`` is the number of elements reduced, in ``x``'s dtype."""
    x = _floating("sufficient_statistics", x)
    axes = _moment_axes("sufficient_statistics", x, axes)
    sizes = shape(x)
    count = reduce_prod(cast(gather(sizes, list(axes)), x.dtype))
    if shift is not None:
        shift = cast(convert_to_tensor(shift), x.dtype)
        x = subtract(x, shift)
    return (count, reduce_sum(x, axes, keepdims=keepdims),
            reduce_sum(square(x), axes, keepdims=keepdims), shift)


def normalize_moments(counts, mean_ss, variance_ss, shift) -> tuple[Tensor, Tensor]:
    """``(mean, variance)`` from ``sufficient_statistics``: the shifted sums divided by the
    count, the shift added back to the mean."""
    divisor = divide(1, counts)
    shifted_mean = multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else add(shifted_mean, shift)
    return mean, subtract(multiply(variance_ss, divisor), square(shifted_mean))


def weighted_moments(x, axes, frequency_weights, keepdims: bool = False) -> tuple[Tensor, Tensor]:
    """``(mean, variance)`` of ``x`` over ``axes``, each element counted
    ``frequency_weights`` times (the weights broadcast against ``x``)."""
    x = _floating("weighted_moments", x)
    axes = _moment_axes("weighted_moments", x, axes)
    weights = cast(convert_to_tensor(frequency_weights), x.dtype)
    sum_of_weights = reduce_sum(add(weights, zeros_like(x)), axes, keepdims=True)
    divisor = divide(1, sum_of_weights)
    mean = multiply(reduce_sum(multiply(weights, x), axes, keepdims=True), divisor)
    distance = square(subtract(x, mean))
    variance = multiply(reduce_sum(multiply(weights, distance), axes, keepdims=True), divisor)
    if keepdims:
        return mean, variance
    return squeeze(mean, list(axes)), squeeze(variance, list(axes))


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon) -> Tensor:
    """``(x - mean) * scale / sqrt(variance + variance_epsilon) + offset``, in TensorFlow's
    order of operations; ``offset`` and ``scale`` may be None."""
    x = _floating("batch_normalization", x)
    inv = divide(1.0, sqrt(add(variance, variance_epsilon)))
    if scale is not None:
        inv = multiply(inv, scale)
    shift = multiply(mean, inv)
    shift = subtract(offset, shift) if offset is not None else multiply(shift, -1.0)
    return add(multiply(x, cast(inv, x.dtype)), cast(shift, x.dtype))


def l2_normalize(x, axis=None, epsilon: float = 1e-12) -> Tensor:
    """``x / sqrt(max(reduce_sum(x ** 2, axis), epsilon))``: unit L2 norm along ``axis``
    (None: all of ``x``)."""
    x = _floating("l2_normalize", x)
    squares = reduce_sum(square(x), axis, keepdims=True)
    return multiply(x, divide(1.0, sqrt(maximum(squares, epsilon))))


def embedding_lookup(params, ids, max_norm=None) -> Tensor:
    """The rows of ``params`` at ``ids`` (``gather`` on axis 0); with ``max_norm`` each row is
    clipped to that L2 norm. A list of parameter shards must hold exactly one tensor."""
    if isinstance(params, (list, tuple)):
        if len(params) != 1:
            raise ValueError(f"embedding_lookup: sharded params (a list of {len(params)} "
                             f"tensors) are not supported; concatenate them first.")
        params = params[0]
    ids = convert_to_tensor(ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"embedding_lookup: ids must be integers, got {ids.dtype.name}.")
    rows = gather(params, ids)
    if max_norm is None:
        return rows
    return clip_by_norm(rows, max_norm, axes=[-1]) if rows.ndim else rows
