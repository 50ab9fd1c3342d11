"""``rt.optimizers.Adam``: adaptive moment estimation (Kingma and Ba), optionally AMSGrad."""

from __future__ import annotations

from runtime.ops.math_ops import maximum, sqrt, square
from runtime.optimizers.base import MomentEstimates, move_toward, power_of_step
from runtime.optimizers.rows import dense, map_rows


class Adam(MomentEstimates):
    """Keras' ``Adam``. With slots ``m`` and ``v`` (zeros at first) and ``t = iterations + 1``::

        lr_t = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g * g - v) * (1 - beta_2)
        var -= lr_t * m / (sqrt(v) + epsilon)

    ``amsgrad=True`` keeps a third slot ``vhat = maximum(vhat, v)`` and divides by
    ``sqrt(vhat)`` instead. ``epsilon`` is added after the square root, as in Keras (the
    "epsilon hat" of the paper).
    """

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, amsgrad: bool = False, name: str = "Adam", **options):
        self._amsgrad = bool(amsgrad)
        self.slot_names = ("m", "v", "vhat") if self._amsgrad else ("m", "v")
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **options)

    amsgrad = property(lambda self: self._amsgrad)  # read-only, as the others (see the base)

    def _step_size(self, learning_rate):
        """``lr_t``, from ``t = iterations + 1`` in the learning rate's dtype."""
        t = self._step_number(learning_rate.dtype)
        return learning_rate * sqrt(1 - power_of_step(self._beta_2, t)) \
            / (1 - power_of_step(self._beta_1, t))

    def _update(self, variable, gradient, slots, step_size) -> None:
        m, v = slots["m"], slots["v"]
        move_toward(m, dense(gradient), self._beta_1)
        # Of rows, each is squared: a repeated id adds the squares of its rows.
        move_toward(v, dense(map_rows(square, gradient)), self._beta_2)
        if self._amsgrad:
            vhat = slots["vhat"]
            vhat.assign(maximum(vhat, v))
            v = vhat
        variable.assign_sub((m * step_size) / (sqrt(v) + self._epsilon))
