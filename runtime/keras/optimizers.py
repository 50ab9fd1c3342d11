"""``rt.keras.optimizers``: the runtime's optimizers (one implementation, Keras' formulas),
``get`` by name, and ``schedules``."""

from __future__ import annotations

from runtime.keras import schedules
from runtime.optimizers import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from runtime.keras.missing import missing as _missing

_BY_NAME = {"sgd": SGD, "adagrad": Adagrad, "adam": Adam, "adamw": AdamW, "rmsprop": RMSprop}


def get(identifier) -> Optimizer:
    """An optimizer from a name (``"adam"``, ``"sgd"``, ``"rmsprop"``, ``"adamw"``,
    ``"adagrad"``, with Keras' default settings) or an optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    raise ValueError(f"unknown optimizer {identifier!r}; give one of "
                     f"{', '.join(sorted(_BY_NAME))} or an optimizer object.")


__all__ = ["SGD", "Adagrad", "Adam", "AdamW", "RMSprop", "Optimizer", "get", "schedules"]


__getattr__ = _missing("keras.optimizers")
