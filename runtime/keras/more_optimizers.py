"""Keras 3's ``Lamb`` and ``Adafactor`` update rules on ``rt.optimizers.Optimizer`` (its
options, slots and traced steps), wrapped for ``keras.optimizers`` like the others."""

from __future__ import annotations

import numpy as np

from runtime.ops.array_ops import cast, constant, expand_dims, where
from runtime.ops.math_ops import greater, maximum, minimum, pow, sqrt, square
from runtime.ops.reduce_ops import reduce_mean, reduce_sum
from runtime.optimizers.base import MomentEstimates, Optimizer, move_toward, power_of_step
from runtime.optimizers.rows import dense


class Lamb(MomentEstimates):
    """Keras' ``Lamb`` (You et al.): Adam's step scaled per variable by the trust ratio
    ``||var|| / ||step||`` (1 when either norm is 0). With slots ``m`` and ``v`` and
    ``t = iterations + 1``::

        m += (g - m) * (1 - beta_1);  v += (g * g - v) * (1 - beta_2)
        step = (m / (1 - beta_1**t)) / (sqrt(v / (1 - beta_2**t)) + epsilon)
        var -= ratio * lr * step
    """

    slot_names = ("m", "v")

    def __init__(self, learning_rate=0.001, beta_1: float = 0.9, beta_2: float = 0.999,
                 epsilon: float = 1e-7, name: str = "Lamb", **options):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name, **options)

    def _step_size(self, learning_rate):
        t = self._step_number(learning_rate.dtype)
        return learning_rate, 1 - power_of_step(self._beta_1, t), \
            1 - power_of_step(self._beta_2, t)

    def _update(self, variable, gradient, slots, step_size) -> None:
        learning_rate, first_correction, second_correction = step_size
        gradient = dense(gradient)
        m, v = slots["m"], slots["v"]
        move_toward(m, gradient, self._beta_1)
        move_toward(v, square(gradient), self._beta_2)
        step = (m.value() / first_correction) \
            / (sqrt(v.value() / second_correction) + self._epsilon)
        weight_norm = sqrt(reduce_sum(square(variable.value())))
        step_norm = sqrt(reduce_sum(square(step)))
        ratio = where(greater(weight_norm, 0),
                      where(greater(step_norm, 0), weight_norm / step_norm, 1.0), 1.0)
        variable.assign_sub(ratio * learning_rate * step)


class Adafactor(Optimizer):
    """Keras' ``Adafactor`` (Shazeer and Stern): the second moment of a matrix kept as a row
    slot ``r`` and a column slot ``c`` (of its last two dimensions) instead of a full one;
    vectors and scalars keep a full ``v``. With ``t = iterations + 1``::

        rho = min(lr, 1 / sqrt(t));  alpha = max(epsilon_2, rms(var)) * rho
        beta_2_t = 1 - t ** beta_2_decay;  g2 = g * g + epsilon_1
        r = beta_2_t r + (1 - beta_2_t) mean(g2, -1);  c likewise over axis -2
        v = (r / mean(r)) outer c  (a vector: v = beta_2_t v + (1 - beta_2_t) g2)
        u = g / sqrt(v);  var -= alpha * u / max(1, rms(u) / clip_threshold)

    ``rho`` is ``min(lr, 1 / sqrt(t))`` whether or not ``relative_step`` is set, as in
    Keras 3 (the option is kept for the config).
    """

    slot_names = ("r", "c", "v")

    def __init__(self, learning_rate=0.001, beta_2_decay: float = -0.8, epsilon_1: float = 1e-30,
                 epsilon_2: float = 1e-3, clip_threshold: float = 1.0,
                 relative_step: bool = True, name: str = "Adafactor", **options):
        self._beta_2_decay, self._epsilon_1 = float(beta_2_decay), float(epsilon_1)
        self._epsilon_2, self._clip_threshold = float(epsilon_2), float(clip_threshold)
        self._relative_step = bool(relative_step)
        super().__init__(learning_rate, name, **options)

    beta_2_decay = property(lambda self: self._beta_2_decay)
    epsilon_1 = property(lambda self: self._epsilon_1)
    epsilon_2 = property(lambda self: self._epsilon_2)
    clip_threshold = property(lambda self: self._clip_threshold)
    relative_step = property(lambda self: self._relative_step)

    def _initial_slot(self, name, variable) -> np.ndarray:
        """``r`` and ``c`` drop the last and the second last dimension of a matrix (of
        anything smaller they are unused scalars); ``v`` has the variable's shape."""
        shape = tuple(variable.shape)
        if name == "v":
            return np.zeros(shape, variable.dtype)
        if len(shape) < 2:
            return np.zeros((), variable.dtype)
        return np.zeros(shape[:-1] if name == "r" else shape[:-2] + shape[-1:], variable.dtype)

    def _step_size(self, learning_rate):
        t = self._step_number(learning_rate.dtype)
        beta_2_t = 1 - pow(t, constant(self._beta_2_decay, t.dtype))
        return minimum(learning_rate, 1 / sqrt(t)), beta_2_t

    def _update(self, variable, gradient, slots, step_size) -> None:
        rho, beta_2_t = (cast(value, variable.dtype) for value in step_size)
        gradient = dense(gradient)
        alpha = maximum(self._epsilon_2, _rms(variable.value())) * rho
        squared = square(gradient) + self._epsilon_1
        v = slots["v"]
        if len(variable.shape) >= 2:
            r, c = slots["r"], slots["c"]
            r.assign(beta_2_t * r.value() + (1 - beta_2_t) * reduce_mean(squared, axis=-1))
            c.assign(beta_2_t * c.value() + (1 - beta_2_t) * reduce_mean(squared, axis=-2))
            row_share = r.value() / reduce_mean(r.value(), axis=-1, keepdims=True)
            v.assign(expand_dims(row_share, -1) * expand_dims(c.value(), -2))
        else:
            v.assign(beta_2_t * v.value() + (1 - beta_2_t) * squared)
        update = gradient / sqrt(v.value())
        clipped = update / maximum(1.0, _rms(update) / self._clip_threshold)
        variable.assign_sub(alpha * clipped)


def _rms(x):
    return sqrt(reduce_mean(square(x)))
