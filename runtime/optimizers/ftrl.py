"""``rt.optimizers.Ftrl``: Follow The Regularized Leader (McMahan et al.), for wide sparse
linear models."""

from __future__ import annotations

from runtime.ops.array_ops import clip_by_value
from runtime.ops.math_ops import pow, square  # noqa: A004
from runtime.optimizers.base import Optimizer, non_negative
from runtime.optimizers.rows import dense, map_rows


class Ftrl(Optimizer):
    """Keras' ``Ftrl``. With slots ``accumulator`` (``initial_accumulator_value`` at first)
    and ``linear`` (zeros), ``p = -learning_rate_power`` and
    ``l2 = l2_regularization_strength + beta / (2 * lr)``::

        new_accumulator = accumulator + g**2
        linear += g + 2 * l2_shrinkage_regularization_strength * var
                  - (new_accumulator**p - accumulator**p) / lr * var
        quadratic = new_accumulator**p / lr + 2 * l2
        var = (clip(linear, -l1, l1) - linear) / quadratic
        accumulator = new_accumulator

    The variable is not moved but solved for: ``linear`` sums the gradients (less what the
    changing per-entry learning rates have already accounted for), and the variable is the
    minimizer of that linear term plus the L1 and L2 penalties, so an entry whose ``linear``
    stays within ``l1`` is exactly zero. Of a gradient of rows, Keras on TensorFlow squares
    each row into the accumulator and uses the dense gradient elsewhere, so the shrinkage
    applies to every entry, not only to the rows given.
    """

    slot_names = ("accumulator", "linear")

    def __init__(self, learning_rate=0.001, learning_rate_power: float = -0.5,
                 initial_accumulator_value: float = 0.1,
                 l1_regularization_strength: float = 0.0,
                 l2_regularization_strength: float = 0.0,
                 l2_shrinkage_regularization_strength: float = 0.0, beta: float = 0.0,
                 name: str = "Ftrl", **options):
        if isinstance(learning_rate_power, bool) \
                or not isinstance(learning_rate_power, (int, float)) or learning_rate_power > 0:
            raise ValueError(f"{name}: learning_rate_power must be a number of at most 0, got "
                             f"{learning_rate_power!r}.")
        self._learning_rate_power = float(learning_rate_power)
        self._initial_accumulator_value = non_negative(name, "initial_accumulator_value",
                                                       initial_accumulator_value)
        self.initial_slot_values = {"accumulator": self._initial_accumulator_value}
        self._l1 = non_negative(name, "l1_regularization_strength", l1_regularization_strength)
        self._l2 = non_negative(name, "l2_regularization_strength", l2_regularization_strength)
        self._l2_shrinkage = non_negative(name, "l2_shrinkage_regularization_strength",
                                          l2_shrinkage_regularization_strength)
        if isinstance(beta, bool) or not isinstance(beta, (int, float)):
            raise TypeError(f"{name}: beta must be a number, got {beta!r}.")
        self._beta = float(beta)
        super().__init__(learning_rate, name, **options)

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    learning_rate_power = property(lambda self: self._learning_rate_power)
    initial_accumulator_value = property(lambda self: self._initial_accumulator_value)
    l1_regularization_strength = property(lambda self: self._l1)
    l2_regularization_strength = property(lambda self: self._l2)
    l2_shrinkage_regularization_strength = property(lambda self: self._l2_shrinkage)
    beta = property(lambda self: self._beta)

    def _update(self, variable, gradient, slots, learning_rate) -> None:
        accumulator, linear = slots["accumulator"], slots["linear"]
        power = -self._learning_rate_power
        l2 = self._l2 + self._beta / (2.0 * learning_rate)
        shrunk = dense(gradient) + (2 * self._l2_shrinkage) * variable.value()
        old = accumulator.value()
        new = old + dense(map_rows(square, gradient))
        new_power = pow(new, power)
        linear.assign_add(shrunk - ((new_power - pow(old, power)) / learning_rate)
                          * variable.value())
        quadratic = new_power / learning_rate + 2 * l2
        variable.assign((clip_by_value(linear.value(), -self._l1, self._l1) - linear.value())
                        / quadratic)
        accumulator.assign(new)
