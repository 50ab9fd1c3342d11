"""``rt.keras.regularizers``: penalties on weights or outputs that ``fit`` adds to the loss.

A layer given ``kernel_regularizer=`` / ``bias_regularizer=`` adds ``regularizer(weight)`` to
``layer.losses`` (computed when asked, from the weight's current value, while the weight is
trainable); ``activity_regularizer=`` adds ``regularizer(output)`` for each call. ``fit`` and
``evaluate`` add the sum of ``model.losses`` to the compiled loss, as Keras does, so the loss
they show includes the penalties.
"""

from __future__ import annotations

from runtime.ops.array_ops import convert_to_tensor
from runtime.ops.math_ops import abs, square  # noqa: A004
from runtime.ops.reduce_ops import reduce_sum
from runtime.keras.missing import missing as _missing


class Regularizer:
    """Base class: ``regularizer(x)`` is a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> "Regularizer":
        return cls(**config)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.get_config()})"


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x ** 2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0):
        self.l1, self.l2 = float(_checked("l1", l1)), float(_checked("l2", l2))

    def __call__(self, x):
        x = convert_to_tensor(x)
        penalty = None
        if self.l1:
            penalty = self.l1 * reduce_sum(abs(x))
        if self.l2:
            term = self.l2 * reduce_sum(square(x))
            penalty = term if penalty is None else penalty + term
        return penalty if penalty is not None else reduce_sum(x * 0.0)

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1: float = 0.01):
        super().__init__(l1=l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """``l2 * sum(x ** 2)``."""

    def __init__(self, l2: float = 0.01):
        super().__init__(l2=l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


l1, l2, l1_l2 = L1, L2, L1L2
_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": L1L2, "l1l2": L1L2}


def _checked(name: str, value) -> float:
    if not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"the {name} factor of a regularizer must be a number >= 0, got "
                         f"{value!r}.")
    return value


def get(identifier) -> Regularizer | None:
    """A regularizer from ``None``, a name (``"l1"``, ``"l2"``, ``"l1_l2"``, with Keras'
    default factors), a regularizer or a function of one tensor."""
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, str):
        if identifier.lower() in _BY_NAME:
            return _BY_NAME[identifier.lower()]()
        raise ValueError(f"unknown regularizer {identifier!r}; give one of l1, l2, l1_l2 or a "
                         f"regularizer object.")
    if callable(identifier):
        return identifier
    raise TypeError(f"a regularizer is a name, a Regularizer or a function of one tensor, got "
                    f"{type(identifier).__name__}.")


def serialize(regularizer) -> dict | None:
    if regularizer is None:
        return None
    if not isinstance(regularizer, Regularizer):
        raise NotImplementedError(f"a regularizer given as a function ({regularizer!r}) cannot "
                                  f"be saved; use rt.keras.regularizers.L1/L2/L1L2.")
    return {"class_name": type(regularizer).__name__, "config": regularizer.get_config()}


def deserialize(config) -> Regularizer | None:
    if config is None:
        return None
    classes = {"L1": L1, "L2": L2, "L1L2": L1L2}
    return classes[config["class_name"]].from_config(config["config"])


__all__ = ["L1", "L1L2", "L2", "Regularizer", "get", "l1", "l1_l2", "l2"]


__getattr__ = _missing("keras.regularizers")
