"""Keras' decoupled weight decay, an option of every optimizer (``AdamW``'s by default):
before a variable's update, ``var -= var * weight_decay * lr``, with the learning rate of
the step (not an optimizer's own step size)."""

from __future__ import annotations

from runtime.tensor import Tensor
from runtime.variables import Variable


class WeightDecay:
    """The weight decay an optimizer was given (None or 0: none), and the variables left out
    (``exclude``)."""

    def __init__(self, name: str, weight_decay=None):
        if weight_decay is not None and (isinstance(weight_decay, bool)
                                         or not isinstance(weight_decay, (int, float))):
            raise TypeError(f"{name}: weight_decay must be a number or None, got "
                            f"{weight_decay!r}.")
        self.rate = None if weight_decay is None else float(weight_decay)
        self._excluded_ids: set[int] = set()
        self._excluded_names: tuple[str, ...] = ()

    def exclude(self, var_list=None, var_names=None) -> None:
        """Leaves out the variables given, and those whose name contains a string given."""
        self._excluded_ids.update(id(v) for v in var_list or ())
        self._excluded_names += tuple(var_names or ())

    def apply(self, variable: Variable, learning_rate: Tensor) -> None:
        """Decays ``variable`` (``learning_rate`` in its dtype) unless it is left out."""
        if self.rate and id(variable) not in self._excluded_ids \
                and not any(part in variable.name for part in self._excluded_names):
            variable.assign_sub(variable.value() * self.rate * learning_rate)
