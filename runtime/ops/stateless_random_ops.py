"""Stateless random numbers (``rt.random.stateless_uniform``, ``stateless_normal``): the
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
from runtime.ops.array_ops import cast
from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register
from runtime.ops.shapes import static_shape_arg
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


STATELESS_UNIFORM = register(OpDef("stateless_random_uniform", _uniform, _infer,
                                   gradient=NOT_DIFFERENTIABLE))
STATELESS_NORMAL = register(OpDef("stateless_random_normal", _normal, _infer,
                                  gradient=NOT_DIFFERENTIABLE))


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
