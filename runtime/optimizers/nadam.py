"""``rt.optimizers.Nadam``: Adam with Nesterov momentum (Dozat)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from runtime.ops.array_ops import cast, constant
from runtime.ops.math_ops import pow, sqrt, square  # noqa: A004
from runtime.optimizers.base import MomentEstimates, move_toward, power_of_step
from runtime.optimizers.rows import dense, map_rows
from runtime.tensor import Tensor
from runtime.variables import Variable

# The momentum schedule's decay: u_t = beta_1 * (1 - 0.5 * 0.96**t), as in Keras.
_SCHEDULE_DECAY = 0.96


class _Step(NamedTuple):
    """The numbers of one update, in one variable dtype."""

    learning_rate: Tensor
    beta_1: Tensor
    beta_2: Tensor
    u_t: Tensor            # the momentum of this update
    u_next: Tensor         # the momentum of the next one
    u_product: Tensor      # u_1 * ... * u_t
    u_product_next: Tensor  # u_1 * ... * u_(t+1)
    beta_2_power: Tensor


class Nadam(MomentEstimates):
    """Keras' ``Nadam``. With slots ``momentum`` and ``velocity`` (zeros at first), the
    optimizer's ``u_product`` (1 at first, multiplied by ``u_t`` once per update) and
    ``t = iterations + 1``::

        u_t = beta_1 * (1 - 0.5 * 0.96**t)
        momentum = momentum + (g - momentum) * (1 - beta_1)
        velocity = velocity + (g * g - velocity) * (1 - beta_2)
        m_hat = u_(t+1) * momentum / (1 - u_product * u_(t+1))
                + (1 - u_t) * g / (1 - u_product)
        var -= lr * m_hat / (sqrt(velocity / (1 - beta_2**t)) + epsilon)

    The moments are Adam's (``move_toward``); the Nesterov step looks ahead by using the next
    momentum ``u_(t+1)`` on the first moment and the current gradient's own share, each
    corrected by its product of the schedule instead of ``1 - beta_1**t``. ``u_product``
    has the dtype of the first variable built, as in Keras. Of a gradient of rows, each
    row is squared into ``velocity`` and scaled into ``m_hat`` before a repeated id's rows
    are added up, as Keras does on TensorFlow.
    """

    slot_names = ("momentum", "velocity")

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "Nadam", **options):
        self._u_product: Variable | None = None
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **options)

    def _build_state(self, variables: list[Variable]) -> None:
        """``u_product``, 1 in the dtype of the first variable built."""
        if self._u_product is None:
            with self._lock:
                if self._u_product is None:
                    self._u_product = self._new_variable(np.ones((), variables[0].dtype),
                                                         "u_product")

    def _begin_update(self, variables: list[Variable]) -> None:
        """``u_product *= u_t``."""
        product = self._u_product
        t = self._step_number(product.dtype)
        schedule = 1.0 - 0.5 * pow(constant(_SCHEDULE_DECAY, product.dtype), t)
        product.assign(product.value() * self._beta_1 * schedule)

    def _step_size(self, learning_rate) -> _Step:
        dtype = learning_rate.dtype
        t, t_next = self._step_number(dtype), self._step_number(dtype, ahead=2)
        beta_1 = constant(self._beta_1, dtype)
        decay = constant(_SCHEDULE_DECAY, dtype)
        u_t = beta_1 * (1.0 - 0.5 * pow(decay, t))
        u_next = beta_1 * (1.0 - 0.5 * pow(decay, t_next))
        u_product = cast(self._u_product.value(), dtype)
        return _Step(learning_rate, beta_1, constant(self._beta_2, dtype), u_t, u_next,
                     u_product, u_product * u_next, power_of_step(self._beta_2, t))

    def _update(self, variable, gradient, slots, step: _Step) -> None:
        momentum, velocity = slots["momentum"], slots["velocity"]
        move_toward(momentum, dense(gradient), step.beta_1)
        move_toward(velocity, dense(map_rows(square, gradient)), step.beta_2)
        m_hat = (step.u_next * momentum.value()) / (1 - step.u_product_next) + dense(
            map_rows(lambda g: ((1 - step.u_t) * g) / (1 - step.u_product), gradient))
        v_hat = velocity.value() / (1 - step.beta_2_power)
        variable.assign_sub((m_hat * step.learning_rate) / (sqrt(v_hat) + self._epsilon))
