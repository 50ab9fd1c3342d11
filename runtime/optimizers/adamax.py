"""``rt.optimizers.Adamax``: Adam with the infinity norm in place of the second moment (Kingma
and Ba, section 7.1)."""

from __future__ import annotations

from runtime.ops.math_ops import abs, maximum  # noqa: A004
from runtime.optimizers.base import MomentEstimates, move_toward, power_of_step
from runtime.optimizers.rows import dense, map_rows


class Adamax(MomentEstimates):
    """Keras' ``Adamax``. With slots ``momentum`` and ``norm`` (zeros at first) and
    ``t = iterations + 1``::

        momentum = momentum + (g - momentum) * (1 - beta_1)
        norm = maximum(beta_2 * norm, abs(g))
        var -= lr * momentum / ((1 - beta_1**t) * (norm + epsilon))

    ``norm`` decays the largest gradient seen instead of averaging squares, so one large
    gradient does not shrink later steps for long; only the first moment needs its bias
    corrected. Of a gradient of rows, Keras on TensorFlow takes the absolute value of each
    row and then adds a repeated id's rows, so such an id's ``norm`` may grow by the sum of
    their magnitudes (not the magnitude of their sum); ``momentum`` sees the dense gradient.
    """

    slot_names = ("momentum", "norm")

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "Adamax", **options):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **options)

    def _step_size(self, learning_rate):
        """``lr`` and the bias correction ``1 - beta_1**t``, in the learning rate's dtype."""
        t = self._step_number(learning_rate.dtype)
        return learning_rate, 1 - power_of_step(self._beta_1, t)

    def _update(self, variable, gradient, slots, step_size) -> None:
        learning_rate, correction = step_size
        momentum, norm = slots["momentum"], slots["norm"]
        move_toward(momentum, dense(gradient), self._beta_1)
        norm.assign(maximum(norm.value() * self._beta_2, dense(map_rows(abs, gradient))))
        variable.assign_sub((learning_rate * momentum.value())
                            / (correction * (norm.value() + self._epsilon)))
