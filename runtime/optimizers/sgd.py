"""``rt.optimizers.SGD``: gradient descent, with optional (Nesterov) momentum."""

from __future__ import annotations

from runtime.optimizers.base import Optimizer
from runtime.optimizers.rows import dense, map_rows, subtract_from


class SGD(Optimizer):
    """Keras' ``SGD``. With ``momentum == 0``: ``v -= lr * g``. Otherwise, with a ``momentum``
    slot ``m`` (zeros at first): ``m = momentum * m - lr * g``, then ``v += m``, or with
    ``nesterov=True`` ``v += momentum * m - lr * g``.
    """

    def __init__(self, learning_rate=0.01, momentum: float = 0.0, nesterov: bool = False,
                 name: str = "SGD", **options):
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float)) \
                or not 0 <= momentum <= 1:
            raise ValueError(f"{name}: momentum must be a number in [0, 1], got {momentum!r}.")
        self._momentum = float(momentum)
        self._nesterov = bool(nesterov)
        self.slot_names = ("momentum",) if self._momentum else ()
        super().__init__(learning_rate, name, **options)

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    momentum = property(lambda self: self._momentum)
    nesterov = property(lambda self: self._nesterov)

    def _update(self, variable, gradient, slots, learning_rate) -> None:
        step = map_rows(lambda g: g * learning_rate, gradient)
        if not slots:
            subtract_from(variable, step)
            return
        step = dense(step)
        m = slots["momentum"]
        m.assign(m * self._momentum - step)
        if self._nesterov:
            variable.assign_add(m * self._momentum - step)
        else:
            variable.assign_add(m.value())
