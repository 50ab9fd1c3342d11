"""Random numbers (``rt.random``): effects, so every call of a graph draws new values.

``set_seed`` makes a program reproducible: it resets the global generator, and ops given their
own ``seed`` use a generator derived from (global seed, op seed) that persists across calls,
so a sequence of draws repeats exactly after the next ``set_seed``.
"""

from __future__ import annotations

import threading

import numpy as np

from runtime import dtypes
from runtime.ops.array_ops import cast, shape_from_operand, shape_operand
from runtime.ops.dispatch import apply_op
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef, register

_lock = threading.Lock()
_global_seed: int | None = None
_generator = np.random.default_rng()
# op seed -> its generator. An op seed may also be a pair (seed, stream): one stream's own
# generator, seeded as ``seed`` alone, so that streams of equal seeds draw the same sequence
# (each dataset's shuffle has one, as in TensorFlow).
_op_generators: dict[int | tuple[int, int], np.random.Generator] = {}


def set_seed(seed: int | None) -> None:
    """Resets the random state so that the following draws are reproducible."""
    global _global_seed, _generator
    with _lock:
        _global_seed = seed
        _generator = np.random.default_rng(seed)
        _op_generators.clear()


def _generator_for(op_seed: int | None) -> np.random.Generator:
    if op_seed is None:
        return _generator
    with _lock:
        generator = _op_generators.get(op_seed)
        if generator is None:
            seed = op_seed[0] if isinstance(op_seed, tuple) else op_seed
            generator = np.random.default_rng([seed, _global_seed or 0])
            _op_generators[op_seed] = generator
        return generator


def drawn_seed() -> int:
    """A seed drawn from the global stream: the same sequence of them after the same
    ``set_seed`` (a Keras ``fit``'s shuffling), different ones otherwise."""
    with _lock:
        return int(_generator.integers(2**63 - 1))


def forget_stream(op_seed: tuple[int, int]) -> None:
    """Drops the generator of a stream that will not draw again (its owner is gone)."""
    with _lock:
        _op_generators.pop(op_seed, None)


# The shape is an attribute when known while tracing, else a tensor input (``rt.shape(x)``
# of an ``x`` with unknown dimensions), as for ``rt.fill``.

def _uniform(minval, maxval, shape_input=None, *, shape=None, dtype, seed):
    size = shape if shape is not None else tuple(shape_input)
    generator = _generator_for(seed)
    if dtype.kind in "iu":
        return generator.integers(minval, maxval, size=size, dtype=dtype)
    return (minval + (maxval - minval) * generator.random(size=size)).astype(dtype)


def _normal(mean, stddev, shape_input=None, *, shape=None, dtype, seed):
    size = shape if shape is not None else tuple(shape_input)
    return (mean + stddev * _generator_for(seed).standard_normal(size=size)).astype(dtype)


def _infer(a, b, shape_input=None, *, shape=None, dtype, seed):
    return dtype, shape_from_operand(shape_input, shape)


# Draws carry no gradient, to their bounds or parameters either (as in TensorFlow); write
# ``mean + stddev * normal(...)`` for a reparameterized draw.
UNIFORM = register(OpDef("random_uniform", _uniform, _infer, effect=True,
                         gradient=NOT_DIFFERENTIABLE))
NORMAL = register(OpDef("random_normal", _normal, _infer, effect=True,
                        gradient=NOT_DIFFERENTIABLE))


def uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None):
    """Uniform values in ``[minval, maxval)``; integer dtypes need ``maxval``."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.kind in "iu":
            raise ValueError("random.uniform: integer dtypes need an explicit maxval.")
        maxval = 1
    shape_input, attrs = shape_operand("random.uniform", shape)
    return apply_op(UNIFORM, (cast(minval, dtype), cast(maxval, dtype)) + shape_input,
                    {**attrs, "dtype": dtype, "seed": seed})


def normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None):
    """Normally distributed values."""
    dtype = dtypes.as_dtype(dtype)
    shape_input, attrs = shape_operand("random.normal", shape)
    return apply_op(NORMAL, (cast(mean, dtype), cast(stddev, dtype)) + shape_input,
                    {**attrs, "dtype": dtype, "seed": seed})
