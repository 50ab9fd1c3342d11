"""``rt.keras.optimizers.schedules``: learning rates as functions of the step."""

from __future__ import annotations

import math

from runtime.ops.array_ops import cast, constant, where
from runtime.ops.math_ops import (ceil, cos, equal, floor, less, less_equal, log, maximum,
                                  minimum, pow)  # noqa: A004
from runtime.keras.missing import missing as _missing


class LearningRateSchedule:
    """A callable ``schedule(step) -> learning rate``; optimizers call it with their
    ``iterations`` before each update."""

    def __call__(self, step):
        raise NotImplementedError

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} must define get_config() (the "
                                  f"arguments that rebuild it) to be serialized.")

    @classmethod
    def from_config(cls, config: dict) -> "LearningRateSchedule":
        return cls(**config)


def serialize(schedule: LearningRateSchedule) -> dict:
    """``schedule`` as Keras 3 serializes it: ``{"module", "class_name", "config",
    "registered_name"}``, JSON-compatible."""
    return {"module": "keras.optimizers.schedules", "class_name": type(schedule).__name__,
            "config": schedule.get_config(), "registered_name": None}


def deserialize(config: dict, custom_objects=None) -> LearningRateSchedule:
    """The schedule ``serialize`` described (``{"class_name": ..., "config": ...}``); a
    schedule class of one's own is found in ``custom_objects``."""
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _SCHEDULES.get(name)
    if cls is None:
        raise ValueError(f"unknown learning rate schedule {name!r}: give its class in "
                         f"custom_objects={{{name!r}: {name}}}.")
    return cls.from_config(config["config"])


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


def _float(value):
    return constant(value, "float32")


class PiecewiseConstantDecay(LearningRateSchedule):
    """``values[0]`` while ``step <= boundaries[0]``, ``values[1]`` while ``step <=
    boundaries[1]``, ..., ``values[-1]`` after the last boundary."""

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(values) != len(boundaries) + 1:
            raise ValueError(f"PiecewiseConstantDecay: values needs one more entry than "
                             f"boundaries, got {len(boundaries)} boundaries and {len(values)} "
                             f"values.")
        self.boundaries, self.values, self.name = list(boundaries), list(values), name

    def __call__(self, step):
        step = cast(step, "float32")
        rate = _float(self.values[-1])
        for boundary, value in reversed(list(zip(self.boundaries, self.values))):
            rate = where(less_equal(step, _float(boundary)), _float(value), rate)
        return rate

    def get_config(self) -> dict:
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class InverseTimeDecay(LearningRateSchedule):
    """``initial_learning_rate / (1 + decay_rate * step / decay_steps)``; with
    ``staircase=True`` the quotient ``step / decay_steps`` is rounded down."""

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        if decay_steps <= 0:
            raise ValueError(f"InverseTimeDecay: decay_steps must be positive, got "
                             f"{decay_steps}.")
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps, self.decay_rate = decay_steps, decay_rate
        self.staircase, self.name = staircase, name

    def __call__(self, step):
        progress = cast(step, "float32") / _float(self.decay_steps)
        if self.staircase:
            progress = floor(progress)
        return _float(self.initial_learning_rate) / (1.0 + _float(self.decay_rate) * progress)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """From ``initial_learning_rate`` to ``end_learning_rate`` over ``decay_steps`` steps:
    ``(initial - end) * (1 - step / decay_steps) ** power + end``, then ``end``; with
    ``cycle=True`` the decay restarts over a multiple of ``decay_steps`` instead."""

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name="PolynomialDecay"):
        if decay_steps <= 0:
            raise ValueError(f"PolynomialDecay: decay_steps must be positive, got "
                             f"{decay_steps}.")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.end_learning_rate, self.power = end_learning_rate, power
        self.cycle, self.name = cycle, name

    def __call__(self, step):
        step = cast(step, "float32")
        steps = _float(self.decay_steps)
        if self.cycle:
            multiple = ceil(step / steps)
            steps = steps * where(equal(step, 0.0), _float(1.0), multiple)
        else:
            step = minimum(step, steps)
        initial, end = _float(self.initial_learning_rate), _float(self.end_learning_rate)
        return (initial - end) * pow(1.0 - step / steps, _float(self.power)) + end

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class CosineDecay(LearningRateSchedule):
    """A linear warmup from ``initial_learning_rate`` to ``warmup_target`` over
    ``warmup_steps`` (when given), then a cosine from there down to ``alpha`` times it over
    ``decay_steps``: ``rate * ((1 - alpha) * 0.5 * (1 + cos(pi * t)) + alpha)``."""

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        if decay_steps <= 0:
            raise ValueError(f"CosineDecay: decay_steps must be positive, got {decay_steps}.")
        self.initial_learning_rate, self.decay_steps = initial_learning_rate, decay_steps
        self.alpha, self.name = alpha, name
        self.warmup_target, self.warmup_steps = warmup_target, warmup_steps

    def _decayed(self, step, rate):
        done = minimum(step, _float(self.decay_steps)) / _float(self.decay_steps)
        cosine = 0.5 * (1.0 + cos(_float(math.pi) * done))
        return rate * ((1.0 - _float(self.alpha)) * cosine + _float(self.alpha))

    def __call__(self, step):
        step = cast(step, "float32")
        initial = _float(self.initial_learning_rate)
        if self.warmup_target is None:
            return self._decayed(step, initial)
        warmup_steps, target = _float(self.warmup_steps), _float(self.warmup_target)
        warm = initial + (target - initial) * (step / maximum(warmup_steps, 1.0))
        decayed = self._decayed(maximum(step - warmup_steps, 0.0), target)
        return where(less(step, warmup_steps), warm, decayed)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """A cosine decay (as ``CosineDecay``'s, down to ``alpha`` times the rate) that restarts:
    the first period lasts ``first_decay_steps``, each next one ``t_mul`` times longer, and
    each restart begins at ``m_mul`` times the rate the previous one began at (Loshchilov and
    Hutter's SGDR)."""

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        if first_decay_steps <= 0:
            raise ValueError(f"CosineDecayRestarts: first_decay_steps must be positive, got "
                             f"{first_decay_steps}.")
        self.initial_learning_rate, self.first_decay_steps = initial_learning_rate, \
            first_decay_steps
        self.t_mul, self.m_mul, self.alpha, self.name = t_mul, m_mul, alpha, name

    def _period_and_progress(self, periods_done):
        """Which period ``periods_done`` (the step in first periods) falls in, and how far
        into it (0 to 1): periods grow geometrically by ``t_mul``."""
        t_mul = _float(self.t_mul)
        if self.t_mul == 1.0:
            restart = floor(periods_done)
            return restart, periods_done - restart
        restart = floor(log(1.0 - periods_done * (1.0 - t_mul)) / log(t_mul))
        before = (1.0 - pow(t_mul, restart)) / (1.0 - t_mul)  # first periods before it
        return restart, (periods_done - before) / pow(t_mul, restart)

    def __call__(self, step):
        periods_done = cast(step, "float32") / _float(self.first_decay_steps)
        restart, progress = self._period_and_progress(periods_done)
        cosine = 0.5 * pow(_float(self.m_mul), restart) * (1.0 + cos(_float(math.pi) * progress))
        alpha = _float(self.alpha)
        return _float(self.initial_learning_rate) * ((1.0 - alpha) * cosine + alpha)

    def get_config(self) -> dict:
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self.t_mul,
                "m_mul": self.m_mul, "alpha": self.alpha, "name": self.name}


_SCHEDULES = {cls.__name__: cls for cls in (ExponentialDecay, PiecewiseConstantDecay,
                                             InverseTimeDecay, PolynomialDecay, CosineDecay,
                                             CosineDecayRestarts)}

__getattr__ = _missing("keras.optimizers.schedules")
