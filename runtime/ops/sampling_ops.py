"""``rt.random.shuffle``, ``categorical``, ``truncated_normal``, ``gamma`` and ``poisson``:
draws from the global (or per-op seeded) generator of ``random_ops``, effects like the other
draws. The ``*_draws`` functions take the generator, so the stateless ops
(``stateless_random_ops``) draw the same way from a seed's generator. The values are NumPy's
draws, not TensorFlow's (its streams are not NumPy's), with the same distributions.

None has a gradient but ``gamma``: TensorFlow differentiates its samples with respect to
``alpha`` and ``beta``; here asking for that gradient is an error, not a silent None."""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import cast
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.random_ops import _generator_for
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.ops.shapes import broadcast, static_shape_arg
from runtime.tensor import Tensor, format_shape


def _shuffle(value, seed):
    return _generator_for(seed).permutation(value) if value.ndim else value.copy()


def categorical_draws(generator: np.random.Generator, logits, num_samples, dtype):
    """Gumbel-max sampling: the argmax of ``logits + Gumbel noise`` is a draw from
    ``softmax(logits)`` (a ``-inf`` logit is never drawn)."""
    uniform = generator.random(size=(logits.shape[0], num_samples, logits.shape[1]))
    gumbel = -np.log(-np.log(np.maximum(uniform, np.finfo(np.float64).tiny)))
    return np.argmax(logits[:, None, :] + gumbel, axis=-1).astype(dtype)


def truncated_normal_draws(generator: np.random.Generator, mean, stddev, shape, dtype):
    """Standard normal draws redrawn until within two standard deviations."""
    draws = generator.standard_normal(size=shape)
    outside = np.abs(draws) > 2
    while outside.any():
        draws[outside] = generator.standard_normal(size=int(outside.sum()))
        outside = np.abs(draws) > 2
    return (mean + stddev * draws).astype(dtype)


def gamma_draws(generator: np.random.Generator, alpha, beta, shape, dtype):
    """Gamma draws of shape ``alpha`` and rate ``beta`` (mean ``alpha / beta``), of shape
    ``shape`` (which ends with the shape ``alpha`` and ``beta`` broadcast to)."""
    alpha, beta = np.broadcast_arrays(alpha, beta)
    return (generator.standard_gamma(np.broadcast_to(alpha, shape)) / beta).astype(dtype)


def poisson_draws(generator: np.random.Generator, lam, shape, dtype):
    """Poisson draws of rate ``lam`` (broadcast to ``shape``)."""
    return generator.poisson(np.broadcast_to(lam, shape)).astype(dtype)


def _categorical(logits, num_samples, dtype, seed):
    return categorical_draws(_generator_for(seed), logits, num_samples, dtype)


def _truncated_normal(mean, stddev, shape, dtype, seed):
    return truncated_normal_draws(_generator_for(seed), mean, stddev, shape, dtype)


def _gamma(alpha, beta, shape, dtype, seed):
    return gamma_draws(_generator_for(seed), alpha, beta, shape, dtype)


def _poisson(lam, shape, dtype, seed):
    return poisson_draws(_generator_for(seed), lam, shape, dtype)


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
GAMMA = register(OpDef("random_gamma", _gamma, lambda a, b, shape, dtype, seed: (dtype, shape),
                       effect=True))
POISSON = register(OpDef("random_poisson", _poisson, lambda lam, shape, dtype, seed: (dtype, shape),
                         effect=True, gradient=NOT_DIFFERENTIABLE))


def parameter_shape(op_name: str, shape, *parameters: Tensor) -> tuple:
    """``shape`` followed by the shape the distribution's parameters broadcast to (each
    draw of ``shape`` is made for every parameter), as TensorFlow's ``gamma`` and
    ``poisson`` shape their results; the parameters' shapes must be known."""
    dims = static_shape_arg(op_name, shape)
    if any(p.shape is None or None in p.shape for p in parameters):
        raise ShapeError(f"{op_name}: the shapes of the distribution's parameters must be "
                         f"known while tracing.")
    return tuple(dims) + broadcast(op_name, *(p.shape for p in parameters))


def shuffle(value, seed: int | None = None) -> Tensor:
    """``value`` with its first dimension randomly permuted."""
    return apply_op(SHUFFLE, (convert_to_tensor(value),), {"seed": seed})


def categorical_arguments(op_name: str, logits, num_samples: int, dtype) -> tuple[Tensor, dict]:
    """The logits as a float tensor and the checked attributes of a categorical draw."""
    logits = convert_to_tensor(logits)
    if logits.dtype.kind != "f":
        raise TypeError(f"{op_name} needs float logits, got {logits.dtype.name}.")
    dtype = dtypes.int64 if dtype is None else dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(f"{op_name}: dtype must be int32 or int64, got {dtype.name}.")
    if not isinstance(num_samples, (int, np.integer)) or num_samples < 0:
        raise ValueError(f"{op_name}: num_samples must be a non-negative int, got "
                         f"{num_samples!r}.")
    return logits, {"num_samples": int(num_samples), "dtype": dtype}


def categorical(logits, num_samples: int, dtype=None, seed: int | None = None) -> Tensor:
    """``num_samples`` class indices per row of ``logits`` ``[batch, num_classes]``, drawn
    from ``softmax(logits)``; int64 unless ``dtype`` says int32."""
    logits, attrs = categorical_arguments("categorical", logits, num_samples, dtype)
    return apply_op(CATEGORICAL, (logits,), {**attrs, "seed": seed})


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                     seed: int | None = None) -> Tensor:
    """Normal values, those more than two standard deviations from the mean redrawn."""
    dtype = float_dtype("truncated_normal", dtype)
    attrs = {"shape": static_shape_arg("truncated_normal", shape), "dtype": dtype, "seed": seed}
    return apply_op(TRUNCATED_NORMAL, (cast(mean, dtype), cast(stddev, dtype)), attrs)


def float_dtype(op_name: str, dtype) -> np.dtype:
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"{op_name} needs a float dtype, got {dtype.name}.")
    return dtype


def gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed: int | None = None) -> Tensor:
    """Gamma-distributed values of shape parameter ``alpha`` and rate ``beta`` (default 1),
    of shape ``shape + broadcast(alpha, beta).shape``."""
    dtype = float_dtype("gamma", dtype)
    alpha = cast(alpha, dtype)
    beta = cast(1 if beta is None else beta, dtype)
    attrs = {"shape": parameter_shape("gamma", shape, alpha, beta), "dtype": dtype, "seed": seed}
    return apply_op(GAMMA, (alpha, beta), attrs)


def poisson(shape, lam, dtype=dtypes.float32, seed: int | None = None) -> Tensor:
    """Poisson-distributed counts of rate ``lam``, in ``dtype`` (float32 by default, as in
    TensorFlow), of shape ``shape + lam.shape``."""
    dtype = dtypes.as_dtype(dtype)
    lam = convert_to_tensor(lam)
    if lam.dtype.kind != "f":
        lam = cast(lam, dtypes.float32)
    attrs = {"shape": parameter_shape("poisson", shape, lam), "dtype": dtype, "seed": seed}
    return apply_op(POISSON, (lam,), attrs)
