"""Stateless random numbers (``rt.random.stateless_uniform``, ``stateless_normal``,
``stateless_truncated_normal``, ``stateless_categorical``, ``stateless_poisson``,
``stateless_gamma``) and the derivation of new seed pairs (``split``, ``fold_in``): the
values are a function of the shape, the dtype and a seed pair, so the same seed gives the
same values eagerly, in graphs and after a save and load. The ops are pure (not effects): a
graph that calls one twice with one seed may share the result, as TensorFlow may.

The seed pair is the key of NumPy's Philox counter-based generator; the values differ from
TensorFlow's (whose Philox stream NumPy does not expose) but have the same properties.
"""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.errors import ShapeError
from runtime.ops.array_ops import cast, constant, stack
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.math_ops import add
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.ops.sampling_ops import (categorical_arguments, categorical_draws, float_dtype,
                                      gamma_draws, poisson_draws, truncated_normal_draws)
from runtime.ops.shapes import broadcast, static_shape_arg
from runtime.tensor import Tensor, format_shape


def generator_for_seed(seed: np.ndarray) -> np.random.Generator:
    """The generator a seed pair names (each seed reinterpreted as an unsigned 64-bit word)."""
    key = np.asarray(seed).astype(np.int64).view(np.uint64)
    return np.random.Generator(np.random.Philox(key=key))


def uniform_values(generator: np.random.Generator, minval, maxval, shape, dtype):
    if dtype.kind in "iu":
        return generator.integers(minval, maxval, size=shape, dtype=dtype)
    return (minval + (maxval - minval) * generator.random(size=shape)).astype(dtype)


def _uniform(seed, minval, maxval, shape, dtype):
    return uniform_values(generator_for_seed(seed), minval, maxval, shape, dtype)


def _normal(seed, mean, stddev, shape, dtype):
    draws = generator_for_seed(seed).standard_normal(size=shape)
    return (mean + stddev * draws).astype(dtype)


def _infer(seed, a, b, shape, dtype):
    if seed.shape is not None and seed.shape != (2,):
        raise ShapeError(f"stateless random ops need a seed of shape (2,), got "
                         f"{format_shape(seed.shape)}.")
    return dtype, shape


def _truncated_normal(seed, mean, stddev, shape, dtype):
    return truncated_normal_draws(generator_for_seed(seed), mean, stddev, shape, dtype)


def _categorical(seed, logits, num_samples, dtype):
    return categorical_draws(generator_for_seed(seed), logits, num_samples, dtype)


def _poisson(seed, lam, shape, dtype):
    return poisson_draws(generator_for_seed(seed), lam, shape, dtype)


def _gamma(seed, alpha, beta, shape, dtype):
    return gamma_draws(generator_for_seed(seed), alpha, beta, shape, dtype)


def _categorical_infer(seed, logits, num_samples, dtype):
    if logits.shape is not None and len(logits.shape) != 2:
        raise ShapeError(f"stateless_categorical: logits must have shape [batch, "
                         f"num_classes], got {format_shape(logits.shape)}.")
    return dtype, None if logits.shape is None else (logits.shape[0], num_samples)


STATELESS_UNIFORM = register(OpDef("stateless_random_uniform", _uniform, _infer,
                                   gradient=NOT_DIFFERENTIABLE))
STATELESS_NORMAL = register(OpDef("stateless_random_normal", _normal, _infer,
                                  gradient=NOT_DIFFERENTIABLE))
STATELESS_TRUNCATED_NORMAL = register(OpDef("stateless_truncated_normal", _truncated_normal,
                                            _infer, gradient=NOT_DIFFERENTIABLE))
STATELESS_CATEGORICAL = register(OpDef("stateless_categorical", _categorical,
                                       _categorical_infer, gradient=NOT_DIFFERENTIABLE))
STATELESS_POISSON = register(OpDef("stateless_random_poisson", _poisson,
                                   lambda seed, lam, shape, dtype: (dtype, shape),
                                   gradient=NOT_DIFFERENTIABLE))
# No gradient rule: TensorFlow differentiates the samples; here asking is an error.
STATELESS_GAMMA = register(OpDef("stateless_random_gamma", _gamma, _infer))


def _seed(op_name: str, seed) -> Tensor:
    seed = convert_to_tensor(seed)
    if seed.dtype.kind not in "iu" or (seed.shape is not None and seed.shape != (2,)):
        raise ValueError(f"{op_name}: seed must be a pair of integers (shape (2,)), got "
                         f"{seed.dtype.name} of shape {format_shape(seed.shape)}.")
    return cast(seed, dtypes.int64)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32) -> Tensor:
    """Uniform values in ``[minval, maxval)`` determined by ``seed`` (a pair of integers);
    integer dtypes need ``maxval``."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.kind in "iu":
            raise ValueError("stateless_uniform: integer dtypes need an explicit maxval.")
        maxval = 1
    attrs = {"shape": static_shape_arg("stateless_uniform", shape), "dtype": dtype}
    return apply_op(STATELESS_UNIFORM, (_seed("stateless_uniform", seed), cast(minval, dtype),
                                        cast(maxval, dtype)), attrs)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32) -> Tensor:
    """Normally distributed values determined by ``seed`` (a pair of integers)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"stateless_normal needs a float dtype, got {dtype.name}.")
    attrs = {"shape": static_shape_arg("stateless_normal", shape), "dtype": dtype}
    return apply_op(STATELESS_NORMAL, (_seed("stateless_normal", seed), cast(mean, dtype),
                                       cast(stddev, dtype)), attrs)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0,
                               dtype=dtypes.float32) -> Tensor:
    """``stateless_normal`` values, those more than two standard deviations from the mean
    redrawn."""
    dtype = float_dtype("stateless_truncated_normal", dtype)
    attrs = {"shape": static_shape_arg("stateless_truncated_normal", shape), "dtype": dtype}
    return apply_op(STATELESS_TRUNCATED_NORMAL, (_seed("stateless_truncated_normal", seed),
                                                 cast(mean, dtype), cast(stddev, dtype)), attrs)


def stateless_categorical(logits, num_samples: int, seed, dtype=dtypes.int64) -> Tensor:
    """``categorical``'s draws, determined by ``seed`` (a pair of integers)."""
    logits, attrs = categorical_arguments("stateless_categorical", logits, num_samples, dtype)
    return apply_op(STATELESS_CATEGORICAL, (_seed("stateless_categorical", seed), logits), attrs)


def _full_shape_parameter(op_name: str, value, shape: tuple, dtype) -> Tensor:
    """A distribution parameter, which must broadcast to the result's ``shape``."""
    value = cast(value, dtype)
    if value.shape is not None and broadcast(op_name, value.shape, shape) != shape:
        raise ShapeError(f"{op_name}: a parameter of shape {format_shape(value.shape)} does not "
                         f"broadcast to the shape {format_shape(shape)} of the result.")
    return value


def stateless_poisson(shape, seed, lam, dtype=dtypes.int32) -> Tensor:
    """Poisson counts of rate ``lam`` (broadcast to ``shape``), determined by ``seed``."""
    dtype = dtypes.as_dtype(dtype)
    dims = static_shape_arg("stateless_poisson", shape)
    lam = convert_to_tensor(lam)
    lam = _full_shape_parameter("stateless_poisson", lam,
                                dims, lam.dtype if lam.dtype.kind == "f" else dtypes.float64)
    return apply_op(STATELESS_POISSON, (_seed("stateless_poisson", seed), lam),
                    {"shape": dims, "dtype": dtype})


def stateless_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32) -> Tensor:
    """Gamma values of shape ``alpha`` and rate ``beta`` (default 1; both broadcast to
    ``shape``), determined by ``seed``."""
    dtype = float_dtype("stateless_gamma", dtype)
    dims = static_shape_arg("stateless_gamma", shape)
    alpha = _full_shape_parameter("stateless_gamma", alpha, dims, dtype)
    beta = _full_shape_parameter("stateless_gamma", 1 if beta is None else beta, dims, dtype)
    return apply_op(STATELESS_GAMMA, (_seed("stateless_gamma", seed), alpha, beta),
                    {"shape": dims, "dtype": dtype})


def _seed_words(dtype: np.dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def split(seed, num: int = 2) -> Tensor:
    """``num`` new seed pairs (shape ``[num, 2]``, ``seed``'s dtype) derived from ``seed``:
    stateless integers drawn with it, so they are independent of one another."""
    seed = convert_to_tensor(seed)
    _seed("split", seed)  # checked: a pair of integers
    return stateless_uniform([int(num), 2], seed, *_seed_words(seed.dtype), dtype=seed.dtype)


def fold_in(seed, data) -> Tensor:
    """A new seed pair derived from ``seed`` and the integer ``data`` (a step, an example's
    index), in ``data``'s dtype as in TensorFlow: ``seed`` is first hashed to a pair of
    random words, ``data`` added to the first, and the sum hashed again."""
    data = convert_to_tensor(data)
    if data.dtype.kind not in "iu" or (data.shape is not None and data.shape != ()):
        raise ValueError(f"fold_in: data must be an integer scalar, got {data.dtype.name} of "
                         f"shape {format_shape(data.shape)}.")
    words = stateless_uniform([2], seed, *_seed_words(np.dtype(np.int64)), dtype=dtypes.int64)
    mixed = add(words, stack([cast(data, dtypes.int64), constant(0, dtypes.int64)]))
    return stateless_uniform([2], mixed, *_seed_words(data.dtype), dtype=data.dtype)
