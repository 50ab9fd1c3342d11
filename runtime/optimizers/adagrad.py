"""``rt.optimizers.Adagrad``: steps scaled down by the sum of past squared gradients (Duchi
et al.)."""

from __future__ import annotations

from runtime.ops.math_ops import sqrt, square
from runtime.optimizers.base import Optimizer, non_negative
from runtime.optimizers.rows import add_to, map_rows, map_rows_with, subtract_from


class Adagrad(Optimizer):
    """Keras' ``Adagrad``. With slot ``accumulator`` (``initial_accumulator_value`` at
    first)::

        accumulator += g**2
        var -= lr * g / sqrt(accumulator + epsilon)

    A variable's entries that get large gradients often take smaller steps. Of a gradient of
    rows (an embedding's), each row is squared into the accumulator and applied on its own.
    """

    slot_names = ("accumulator",)

    def __init__(self, learning_rate=0.001, initial_accumulator_value: float = 0.1,
                 epsilon: float = 1e-7, name: str = "Adagrad", **options):
        self._initial_accumulator_value = non_negative(name, "initial_accumulator_value",
                                                       initial_accumulator_value)
        self.initial_slot_values = {"accumulator": self._initial_accumulator_value}
        self._epsilon = float(epsilon)
        super().__init__(learning_rate, name, **options)

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    initial_accumulator_value = property(lambda self: self._initial_accumulator_value)
    epsilon = property(lambda self: self._epsilon)

    def _update(self, variable, gradient, slots, learning_rate) -> None:
        accumulator = slots["accumulator"]
        add_to(accumulator, map_rows(square, gradient))
        increment = map_rows_with(lambda g, d: (learning_rate * g) / d, gradient,
                                  sqrt(accumulator.value() + self._epsilon))
        subtract_from(variable, increment)
