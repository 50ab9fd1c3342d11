"""Labels made to meet predictions: their dtype, and their rank where they differ by a trailing
axis of 1, as Keras reconciles them.

A regression or binary classifier predicts shape ``(N, 1)`` and is often given labels of shape
``(N,)``. Subtracting them would broadcast to ``(N, N)`` and average the wrong numbers without
any error, so Keras' loss objects, and the loss and metric functions that compare values
elementwise, first give both the same rank (``squeeze_or_expand_to_same_rank``): the rank-1
one gains the axis, or the other loses it.
"""

from __future__ import annotations

from runtime.ops.array_ops import cast, convert_to_tensor, expand_dims, squeeze


def with_prediction_dtype(y_true, y_pred) -> tuple:
    """Both as tensors: predictions as floats (float32 unless already floating), labels cast
    to the predictions' dtype."""
    y_pred = convert_to_tensor(y_pred)
    if y_pred.dtype.kind != "f":
        y_pred = cast(y_pred, "float32")
    return cast(convert_to_tensor(y_true), y_pred.dtype), y_pred


def same_rank(first, second) -> tuple:
    """``first`` and ``second`` with equal ranks when one has a trailing axis of 1 the other
    lacks: a rank-1 tensor gains the axis, otherwise the extra axis is squeezed away. Other
    shapes are returned as they are (they broadcast, or fail, as Keras' do)."""
    first, second = convert_to_tensor(first), convert_to_tensor(second)
    first_rank, second_rank = first.ndim, second.ndim
    if first_rank is None or second_rank is None or first_rank == second_rank:
        return first, second
    if first_rank == second_rank + 1 and first.shape[-1] == 1:
        if second_rank == 1:
            return first, expand_dims(second, -1)
        return squeeze(first, -1), second
    if second_rank == first_rank + 1 and second.shape[-1] == 1:
        if first_rank == 1:
            return expand_dims(first, -1), second
        return first, squeeze(second, -1)
    return first, second


def prepared(y_true, y_pred) -> tuple:
    """``with_prediction_dtype``, then ``same_rank``: what elementwise losses compare."""
    return same_rank(*with_prediction_dtype(y_true, y_pred))
