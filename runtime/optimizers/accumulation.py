"""Keras' ``gradient_accumulation_steps`` option of every optimizer: gradients are added into a
slot ``gradient_accumulator`` per variable, and every ``steps``-th call of ``apply_gradients``
updates the variables once with the mean of the last ``steps`` gradients, then zeroes the
slots.

As in Keras, the update (clipping and weight decay included) sees the mean, and so does not
see rows: an embedding's rows are added up into the dense gradient as they are accumulated.
The optimizer's ``iterations`` counts updates (calls divided by ``steps``), while a learning
rate schedule still gets the number of calls.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from runtime.control_flow import cond
from runtime.ops.math_ops import equal
from runtime.optimizers.rows import dense
from runtime.variables import Variable


class Accumulation:
    """The accumulation an optimizer was given (``steps``), or none (``steps`` None)."""

    def __init__(self, name: str, gradient_accumulation_steps: int | None = None):
        steps = gradient_accumulation_steps
        if steps is not None and (isinstance(steps, bool) or not isinstance(steps, int)
                                  or steps < 2):
            raise ValueError(f"{name}: gradient_accumulation_steps must be an integer of at "
                             f"least 2 or None, got {steps!r}.")
        self.steps = steps

    def apply(self, pairs: Sequence[tuple], calls: Variable, update: Callable[[list], None],
              accumulator_of: Callable[[Variable], Variable]) -> None:
        """Adds the gradients of ``pairs`` (gradient, variable) into their accumulators, or,
        on every ``steps``-th call (``calls``: the calls made before this one), calls
        ``update`` with the mean gradients instead and zeroes the accumulators."""
        steps = self.steps
        accumulators = [accumulator_of(v) for _, v in pairs]

        def update_with_mean():
            update([((dense(g) + a.value()) / steps, v)
                    for (g, v), a in zip(pairs, accumulators)])
            for a in accumulators:
                a.assign(np.zeros(a.shape, a.dtype))

        def accumulate():
            for (g, _), a in zip(pairs, accumulators):
                a.assign(a.value() + dense(g))

        cond(equal((calls + 1) % steps, 0), update_with_mean, accumulate)

