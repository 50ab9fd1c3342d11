"""``rt.keras.optimizers.schedules``: learning rates as functions of the step."""

from __future__ import annotations

from runtime.ops.array_ops import cast, constant
from runtime.ops.math_ops import floor, pow  # noqa: A004


class LearningRateSchedule:
    """A callable ``schedule(step) -> learning rate``; optimizers call it with their
    ``iterations`` before each update."""

    def __call__(self, step):
        raise NotImplementedError


class ExponentialDecay(LearningRateSchedule):
    """``initial_learning_rate * decay_rate ** (step / decay_steps)``, in float32; with
    ``staircase=True`` the exponent is rounded down to an integer."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"ExponentialDecay: decay_steps must be positive, got {decay_steps}.")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps, self.decay_rate = decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step):
        initial = constant(self.initial_learning_rate, "float32")
        exponent = cast(step, "float32") / constant(self.decay_steps, "float32")
        if self.staircase:
            exponent = floor(exponent)
        return initial * pow(constant(self.decay_rate, "float32"), exponent)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}
