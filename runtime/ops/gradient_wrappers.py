"""TensorFlow's wrappers that change how a function is differentiated, not what it computes:
``grad_pass_through`` (the gradient of the identity in place of the function's own) and
``recompute_grad`` (TensorFlow recomputes the function in the backward pass to save memory;
the values and gradients are the same, which is all this runtime keeps of it)."""

from __future__ import annotations

import functools
from typing import Callable

from runtime.autodiff.custom_gradient import custom_gradient


def grad_pass_through(f: Callable) -> Callable:
    """``f`` of one tensor, whose gradient is passed through unchanged, as if ``f`` were the
    identity (a straight-through estimator, for ``round`` or a quantizer); variables ``f``
    reads get no gradient."""
    @functools.wraps(f)
    def passed_through(x):
        @custom_gradient
        def identity_gradient(value):
            def gradient(dy, variables=None):
                return dy if variables is None else (dy, [None] * len(variables))
            return f(value), gradient
        return identity_gradient(x)

    return passed_through


def recompute_grad(f: Callable) -> Callable:
    """``f`` itself: its values and gradients are what TensorFlow's recomputing wrapper gives
    (here nothing is dropped from memory to be recomputed)."""
    return f
