"""Layers that merge a list of tensors of one shape element by element: ``Subtract``
(exactly two), ``Multiply``, ``Average``, ``Maximum``, ``Minimum`` (``Add`` is in ``core``),
and their functional spellings ``subtract(inputs)``, ..."""

from __future__ import annotations

from functools import reduce

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import convert_to_tensor
from runtime.ops.math_ops import logical_and, maximum as _maximum, minimum as _minimum


def combined_mask(mask):
    """The mask of a merged output, as Keras computes it: a step is real where it is real in
    every masked input (unmasked inputs count as real everywhere)."""
    given = [convert_to_tensor(m) for m in mask or [] if m is not None] \
        if isinstance(mask, (list, tuple)) else ([mask] if mask is not None else [])
    return reduce(logical_and, given) if given else None


class _Merge(Layer):
    def _merge(self, inputs):
        raise NotImplementedError

    def compute_mask(self, inputs, mask=None):
        return combined_mask(mask)

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"{self.name}: {type(self).__name__} merges a list of at least two "
                             f"tensors, got {type(inputs).__name__}.")
        return self._merge(list(inputs))


class Subtract(_Merge):
    """``inputs[0] - inputs[1]``."""

    def _merge(self, inputs):
        if len(inputs) != 2:
            raise ValueError(f"{self.name}: Subtract takes exactly two tensors, got "
                             f"{len(inputs)}.")
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    def _merge(self, inputs):
        return reduce(lambda a, b: a * b, inputs)


class Average(_Merge):
    def _merge(self, inputs):
        return reduce(lambda a, b: a + b, inputs) / float(len(inputs))


class Maximum(_Merge):
    def _merge(self, inputs):
        return reduce(_maximum, inputs)


class Minimum(_Merge):
    def _merge(self, inputs):
        return reduce(_minimum, inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)
