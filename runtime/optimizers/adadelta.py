"""``rt.optimizers.Adadelta``: steps sized by running averages of past squared gradients and
past squared steps (Zeiler)."""

from __future__ import annotations

from runtime.ops.math_ops import negative, sqrt, square
from runtime.optimizers.base import Optimizer, decayed
from runtime.optimizers.rows import add_to, map_rows, map_rows_with


class Adadelta(Optimizer):
    """Keras' ``Adadelta``. With slots ``accumulated_grad`` and ``accumulated_delta_var``
    (zeros at first) and ``rms(x) = sqrt(x + epsilon)``::

        accumulated_grad = rho * accumulated_grad + (1 - rho) * g**2
        delta = -rms(accumulated_delta_var) * g / rms(accumulated_grad)
        accumulated_delta_var = rho * accumulated_delta_var + (1 - rho) * delta**2
        var += lr * delta

    The ratio of the two averages gives the step the units of the variable, so the paper's
    method needs no learning rate: ``learning_rate=1.0`` is the paper's; Keras' default 0.001
    scales it down. Of a gradient of rows, ``delta`` is made of rows too (each divided by its
    id's averages), squared row by row into ``accumulated_delta_var`` and added to the
    variable one row at a time, as Keras does on TensorFlow.
    """

    slot_names = ("accumulated_grad", "accumulated_delta_var")

    def __init__(self, learning_rate=0.001, rho: float = 0.95, epsilon: float = 1e-7,
                 name: str = "Adadelta", **options):
        self._rho, self._epsilon = float(rho), float(epsilon)
        super().__init__(learning_rate, name, **options)

    # Read-only: a traced step holds them as constants, so a change would not reach it.
    rho = property(lambda self: self._rho)
    epsilon = property(lambda self: self._epsilon)

    def _update(self, variable, gradient, slots, learning_rate) -> None:
        accumulated_grad = slots["accumulated_grad"]
        accumulated_delta = slots["accumulated_delta_var"]
        accumulated_grad.assign(decayed(accumulated_grad, self._rho, gradient, square))
        scaled = map_rows_with(lambda g, r: r * g, gradient,
                               sqrt(accumulated_delta.value() + self._epsilon))
        delta = map_rows_with(lambda s, r: negative(s / r), scaled,
                              sqrt(accumulated_grad.value() + self._epsilon))
        accumulated_delta.assign(decayed(accumulated_delta, self._rho, delta, square))
        add_to(variable, map_rows(lambda d: learning_rate * d, delta))
