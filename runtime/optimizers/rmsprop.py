"""``rt.optimizers.RMSprop``: gradients scaled by a running root mean square (Hinton)."""

from __future__ import annotations

from runtime.ops.math_ops import sqrt, square
from runtime.optimizers.base import Optimizer, decayed
from runtime.optimizers.rows import dense, map_rows_with, subtract_from


class RMSprop(Optimizer):
    """Keras' ``RMSprop``. With slot ``velocity`` (zeros at first)::

        velocity = rho * velocity + (1 - rho) * g**2
        increment = lr * g / sqrt(velocity + epsilon)
        var -= increment

    ``centered=True`` keeps ``average_gradient = rho * average_gradient + (1 - rho) * g`` and
    divides by ``sqrt(velocity - average_gradient**2 + epsilon)`` instead (an estimate of the
    variance rather than of the second moment). ``momentum > 0`` keeps a ``momentum`` slot
    ``m = momentum * m + increment`` and subtracts ``m`` instead of the increment. Note that
    ``epsilon`` is added under the square root, unlike in ``Adam``.
    """

    def __init__(self, learning_rate=0.001, rho: float = 0.9, momentum: float = 0.0,
                 epsilon: float = 1e-7, centered: bool = False, name: str = "RMSprop",
                 **options):
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) \
                or not 0 <= momentum <= 1:
            raise ValueError(f"{name}: momentum must be a number in [0, 1], got {momentum!r}.")
        self._rho, self._momentum = float(rho), float(momentum)
        self._epsilon, self._centered = float(epsilon), bool(centered)
        self.slot_names = ("velocity",) + (("momentum",) if self._momentum > 0 else ()) \
            + (("average_gradient",) if self._centered else ())
        super().__init__(learning_rate, name, **options)

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    rho = property(lambda self: self._rho)
    momentum = property(lambda self: self._momentum)
    epsilon = property(lambda self: self._epsilon)
    centered = property(lambda self: self._centered)

    def _update(self, variable, gradient, slots, learning_rate) -> None:
        rho = self._rho
        velocity = slots["velocity"]
        velocity.assign(decayed(velocity, rho, gradient, square))
        if self._centered:
            average = slots["average_gradient"]
            average.assign(decayed(average, rho, gradient))
            denominator = velocity.value() - square(average.value()) + self._epsilon
        else:
            denominator = velocity.value() + self._epsilon
        increment = map_rows_with(lambda g, d: (learning_rate * g) / d, gradient,
                                  sqrt(denominator))
        if self._momentum > 0:
            momentum = slots["momentum"]
            momentum.assign(momentum * self._momentum + dense(increment))
            variable.assign_sub(momentum.value())
        else:
            subtract_from(variable, increment)
