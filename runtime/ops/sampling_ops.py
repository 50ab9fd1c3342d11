"""``rt.random.shuffle``, ``categorical`` and ``truncated_normal``: draws from the global (or
per-op seeded) generator of ``random_ops``, effects like the other draws, without gradients
(as in TensorFlow)."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import cast
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.random_ops import _generator_for
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.ops.shapes import static_shape_arg
from runtime.tensor import Tensor, format_shape


def _shuffle(value, seed):
    return _generator_for(seed).permutation(value) if value.ndim else value.copy()


def _categorical(logits, num_samples, dtype, seed):
    """Gumbel-max sampling: the argmax of ``logits + Gumbel noise`` is a draw from
    ``softmax(logits)`` (a ``-inf`` logit is never drawn)."""
    uniform = _generator_for(seed).random(size=(logits.shape[0], num_samples, logits.shape[1]))
    gumbel = -np.log(-np.log(np.maximum(uniform, np.finfo(np.float64).tiny)))
    return np.argmax(logits[:, None, :] + gumbel, axis=-1).astype(dtype)


def _truncated_normal(mean, stddev, shape, dtype, seed):
    """Standard normal draws redrawn until within two standard deviations."""
    generator = _generator_for(seed)
    draws = generator.standard_normal(size=shape)
    outside = np.abs(draws) > 2
    while outside.any():
        draws[outside] = generator.standard_normal(size=int(outside.sum()))
        outside = np.abs(draws) > 2
    return (mean + stddev * draws).astype(dtype)


def _categorical_infer(logits, num_samples, dtype, seed):
    if logits.shape is not None and len(logits.shape) != 2:
        raise ShapeError(f"categorical: logits must have shape [batch, num_classes], got "
                         f"{format_shape(logits.shape)}.")
    return dtype, None if logits.shape is None else (logits.shape[0], num_samples)


SHUFFLE = register(OpDef("random_shuffle", _shuffle, lambda x, seed: (x.dtype, x.shape),
                         effect=True, gradient=NOT_DIFFERENTIABLE))
CATEGORICAL = register(OpDef("random_categorical", _categorical, _categorical_infer,
                             effect=True, gradient=NOT_DIFFERENTIABLE))
TRUNCATED_NORMAL = register(OpDef("truncated_normal", _truncated_normal,
                                  lambda a, b, shape, dtype, seed: (dtype, shape), effect=True,
                                  gradient=NOT_DIFFERENTIABLE))


def shuffle(value, seed: int | None = None) -> Tensor:
    """``value`` with its first dimension randomly permuted."""
    return apply_op(SHUFFLE, (convert_to_tensor(value),), {"seed": seed})


def categorical(logits, num_samples: int, dtype=None, seed: int | None = None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ``[batch, num_classes]``, drawn
    from ``softmax(logits)``; int64 unless ``dtype`` says int32."""
    logits = convert_to_tensor(logits)
    if logits.dtype.kind != "f":
        raise TypeError(f"categorical needs float logits, got {logits.dtype.name}.")
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"categorical: dtype must be int32 or int64, got {dtype.name}.")
    if not isinstance(num_samples, (int, np.integer)) or num_samples < 0:
        raise ValueError(f"categorical: num_samples must be a non-negative int, got "
                         f"{num_samples!r}.")
    return apply_op(CATEGORICAL, (logits,),
                    {"num_samples": int(num_samples), "dtype": dtype, "seed": seed})


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                     seed: int | None = None) -> Tensor:
    """Normal values, those more than two standard deviations from the mean redrawn."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"truncated_normal needs a float dtype, got {dtype.name}.")
    attrs = {"shape": static_shape_arg("truncated_normal", shape), "dtype": dtype, "seed": seed}
    return apply_op(TRUNCATED_NORMAL, (cast(mean, dtype), cast(stddev, dtype)), attrs)
