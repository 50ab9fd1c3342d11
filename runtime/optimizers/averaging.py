"""Keras' ``use_ema`` option of every optimizer: an exponential moving average of each variable,
kept in a slot ``average`` and written into the variable every ``ema_overwrite_frequency``
updates and when ``fit`` ends (``finalize_variable_values``).

After each ``apply_gradients``, with ``momentum`` 0 on the first update (the average starts as
the variable) and ``ema_momentum`` after it::

    average = momentum * average + (1 - momentum) * var

``iterations`` here is the optimizer's count of updates, so with gradient accumulation the
average moves on every call but counts as a first update for the whole first cycle, as in
Keras.
"""

from __future__ import annotations

from typing import Callable, Sequence

from runtime.control_flow import cond
from runtime.ops.array_ops import cast
from runtime.ops.math_ops import equal, not_equal
from runtime.tensor import Tensor
from runtime.variables import Variable


class MovingAverage:
    """The moving average an optimizer was given (``use_ema``), or none."""

    def __init__(self, name: str, use_ema: bool = False, ema_momentum: float = 0.99,
                 ema_overwrite_frequency: int | None = None):
        self.enabled = bool(use_ema)
        if isinstance(ema_momentum, bool) or not isinstance(ema_momentum, (int, float)):
            raise TypeError(f"{name}: ema_momentum must be a number, got {ema_momentum!r}.")
        if self.enabled and not 0 <= ema_momentum <= 1:
            raise ValueError(f"{name}: ema_momentum must be in [0, 1], got {ema_momentum!r}.")
        if ema_overwrite_frequency is not None and self.enabled and (
                isinstance(ema_overwrite_frequency, bool)
                or not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1):
            raise ValueError(f"{name}: ema_overwrite_frequency must be an integer of at least 1 "
                             f"or None, got {ema_overwrite_frequency!r}.")
        self.momentum = float(ema_momentum)
        self.overwrite_frequency = ema_overwrite_frequency or None

    def update(self, variables: Sequence[Variable], iterations: Tensor,
               average_of: Callable[[Variable], Variable]) -> None:
        """Moves the averages of ``variables`` toward them (``iterations``: the updates made
        before this one); every ``overwrite_frequency``-th update, writes them back."""
        if not self.enabled:
            return
        averages = [average_of(v) for v in variables]
        not_first = not_equal(iterations, 0)
        for variable, average in zip(variables, averages):
            momentum = cast(not_first, variable.dtype) * self.momentum
            average.assign(momentum * average.value() + (1 - momentum) * variable.value())
        if self.overwrite_frequency:
            cond(equal((iterations + 1) % self.overwrite_frequency, 0),
                 lambda: overwrite(variables, averages), lambda: None)


def overwrite(variables: Sequence[Variable], averages: Sequence[Variable]) -> None:
    """Assigns each average to its variable."""
    for variable, average in zip(variables, averages):
        variable.assign(average.value())
