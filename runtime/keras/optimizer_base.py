"""``keras.optimizers.Optimizer``: what Keras 3 shows of an optimizer beyond
``rt.optimizers``. ``learning_rate`` reads as the rate of the coming update (a schedule's
value at the current step, a tensor, so ``float(optimizer.learning_rate)`` works), where
``rt.optimizers`` give the schedule itself; and ``get_config`` / ``from_config`` describe the
optimizer by its constructor's arguments. ``keras.optimizers.Adam`` and the others are the
runtime's classes with this base added (``keras_optimizer``): the same update rules.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from runtime import optimizers as runtime_optimizers, tracing
from runtime.keras import schedules
from runtime.keras.layers.base import KerasVariable, snake_case, unique_name
from runtime.variables import Variable

# Keras 3's names for the runtime's optimizer variables and slots, where they differ.
_KERAS_NAMES = {"iterations": "iteration", "m": "momentum", "v": "velocity",
                "vhat": "velocity_hat"}

# The options every optimizer takes, in the order Keras 3's get_config lists them.
_OPTIONS = ("weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "use_ema",
            "ema_momentum", "ema_overwrite_frequency", "loss_scale_factor",
            "gradient_accumulation_steps")


class Optimizer(runtime_optimizers.Optimizer):
    """Base class of ``keras.optimizers``; see the module docstring."""

    @property
    def learning_rate(self):
        """The learning rate variable, or (given a schedule) the schedule's value for the
        coming update."""
        rate = self._learning_rate
        return rate if isinstance(rate, Variable) else self._learning_rate_value()

    @learning_rate.setter
    def learning_rate(self, value) -> None:
        runtime_optimizers.Optimizer.learning_rate.fset(self, value)

    def _new_variable(self, value: np.ndarray, name: str, slot_of: Variable | None = None
                      ) -> Variable:
        """A Keras variable named as Keras 3 names it, under the optimizer's name
        (``adam/iteration``); a slot, which the runtime names ``kernel/m``, after its
        variable's path (``adam/sequential_dense_kernel_momentum``). A learning rate given
        as a number is held in float32 as in Keras: 0.01 is 0.009999999776482582 (in
        ``float(optimizer.learning_rate)``, and in a float64 model's steps)."""
        if slot_of is not None:
            slot = name.rsplit("/", 1)[-1]
            key = getattr(slot_of, "path", None) or slot_of.name  # a tf.Variable: "w:0"
            name = f"{key.replace('/', '_').replace(':', '_')}_{_KERAS_NAMES.get(slot, slot)}"
        name = _KERAS_NAMES.get(name, name)
        if name == "learning_rate":
            value = np.float32(value)
        with tracing.eager_scope():  # see runtime.optimizers.base
            made = KerasVariable(value, name, self, trainable=False)
        self._variables.append(made)
        return made

    def get_config(self) -> dict:
        """The name, the learning rate (a number, or a serialized schedule), Keras' options,
        then the arguments of this optimizer's own update rule."""
        config = {"name": self.name, "learning_rate": _serialized_rate(self._learning_rate)}
        config.update((option, getattr(self, option)) for option in _OPTIONS)
        parameters = inspect.signature(type(self).__init__).parameters.values()
        config.update((p.name, getattr(self, p.name)) for p in parameters
                      if p.name not in ("self", "learning_rate", "name")
                      and p.kind is p.POSITIONAL_OR_KEYWORD and hasattr(self, p.name))
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects=None) -> "Optimizer":
        """The optimizer ``get_config`` described (a schedule of one's own is found in
        ``custom_objects``), with no slots yet."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects)
        return cls(**config)


def keras_optimizer(runtime_class: type) -> type:
    """``runtime_class`` (an ``rt.optimizers`` class) with ``Optimizer`` as a base: the same
    class name, docstring and update rule, Keras 3's ``learning_rate`` and config, and Keras'
    default instance names (the class name in snake case, numbered as layers are: ``adam``,
    ``adam_1``, ``rm_sprop``)."""
    default_name = snake_case(runtime_class.__name__)

    @functools.wraps(runtime_class.__init__)
    def __init__(self, *args, **kwargs):
        if kwargs.get("name") is None:
            kwargs["name"] = unique_name(default_name)
        runtime_class.__init__(self, *args, **kwargs)

    return type(runtime_class.__name__, (runtime_class, Optimizer),
                {"__init__": __init__, "__doc__": runtime_class.__doc__,
                 "__module__": "runtime.keras.optimizers"})


def _serialized_rate(rate):
    if isinstance(rate, Variable):
        return float(np.asarray(rate.numpy()))
    if isinstance(rate, schedules.LearningRateSchedule):
        return schedules.serialize(rate)
    return rate  # a function of the step: Python code, given back as it is
