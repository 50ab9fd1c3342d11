"""``rt.optimizers.AdamW``: Adam with decoupled weight decay (Loshchilov and Hutter)."""

from __future__ import annotations

from runtime.optimizers.adam import Adam


class AdamW(Adam):
    """Keras' ``AdamW``: before each Adam update, ``var -= var * weight_decay * lr`` (the
    learning rate of the step, not Adam's bias-corrected step size).

    ``exclude_from_weight_decay(var_list=None, var_names=None)`` leaves out the variables
    given, or those whose name contains one of the strings given.
    """

    def __init__(self, learning_rate=0.001, weight_decay: float = 0.004, beta_1: float = 0.9,
                 beta_2: float = 0.999, epsilon: float = 1e-7, amsgrad: bool = False,
                 name: str = "AdamW", **clipping):
        if isinstance(weight_decay, bool) or not isinstance(weight_decay, (int, float)):
            raise TypeError(f"{name}: weight_decay must be a number, got {weight_decay!r}.")
        self._weight_decay = float(weight_decay)
        self._excluded_ids: set[int] = set()
        self._excluded_names: tuple[str, ...] = ()
        super().__init__(learning_rate, beta_1, beta_2, epsilon, amsgrad, name, **clipping)

    weight_decay = property(lambda self: self._weight_decay)

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        self._excluded_ids.update(id(v) for v in var_list or ())
        self._excluded_names += tuple(var_names or ())

    def _decays(self, variable) -> bool:
        return self._weight_decay != 0 and id(variable) not in self._excluded_ids \
            and not any(part in variable.name for part in self._excluded_names)

    def _step_size(self, learning_rate):
        # The decay needs the plain learning rate; Adam's update needs its step size.
        return learning_rate, super()._step_size(learning_rate)

    def _update(self, variable, gradient, slots, step_size) -> None:
        learning_rate, adam_step = step_size
        if self._decays(variable):
            variable.assign_sub(variable.value() * self._weight_decay * learning_rate)
        super()._update(variable, gradient, slots, adam_step)
