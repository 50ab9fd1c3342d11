"""``rt.optimizers.Lion``: steps of the sign of an interpolated momentum (Chen et al., found
by program search)."""

from __future__ import annotations

from runtime.ops.array_ops import constant
from runtime.ops.math_ops import sign
from runtime.optimizers.base import Optimizer, decayed


class Lion(Optimizer):
    """Keras' ``Lion``. With slot ``momentum`` (zeros at first)::

        var -= lr * sign(beta_1 * momentum + (1 - beta_1) * g)
        momentum = beta_2 * momentum + (1 - beta_2) * g

    Every entry moves by exactly ``lr`` (or not at all), so the step does not depend on the
    gradient's scale and Lion keeps one slot where Adam keeps two; its learning rate is
    usually several times smaller than Adam's. Keras computes ``1 - beta`` in the variable's
    dtype. Of a gradient of rows, each row is scaled before a repeated id's rows are added
    into the dense sums, as Keras does on TensorFlow.
    """

    slot_names = ("momentum",)

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.99,
                 name: str = "Lion", **options):
        if isinstance(beta_1, bool) or not isinstance(beta_1, (int, float)) \
                or not 0 < beta_1 <= 1:
            raise ValueError(f"{name}: beta_1 must be a number in (0, 1] (at 0 Lion would be "
                             f"signSGD), got {beta_1!r}.")
        self._beta_1, self._beta_2 = float(beta_1), float(beta_2)
        super().__init__(learning_rate, name, **options)

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    beta_1 = property(lambda self: self._beta_1)
    beta_2 = property(lambda self: self._beta_2)

    def _step_size(self, learning_rate):
        """``lr``, ``beta_1`` and ``beta_2`` in the learning rate's dtype."""
        dtype = learning_rate.dtype
        return learning_rate, constant(self._beta_1, dtype), constant(self._beta_2, dtype)

    def _update(self, variable, gradient, slots, step_size) -> None:
        learning_rate, beta_1, beta_2 = step_size
        momentum = slots["momentum"]
        variable.assign_sub(learning_rate * sign(decayed(momentum, beta_1, gradient)))
        momentum.assign(decayed(momentum, beta_2, gradient))
