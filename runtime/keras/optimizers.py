"""``rt.keras.optimizers``: the runtime's optimizers (one implementation, Keras' formulas),
``get`` by name, and ``schedules``."""

from __future__ import annotations

from runtime.keras import schedules
from runtime.optimizers import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Ftrl, Lion, Nadam,
                                Optimizer, RMSprop)
from runtime.keras.missing import missing as _missing

_BY_NAME = {"sgd": SGD, "adadelta": Adadelta, "adagrad": Adagrad, "adam": Adam,
            "adamax": Adamax, "adamw": AdamW, "ftrl": Ftrl, "lion": Lion, "nadam": Nadam,
            "rmsprop": RMSprop}


def get(identifier) -> Optimizer:
    """An optimizer from a name (``"adam"``, ``"sgd"``, ``"rmsprop"``, ``"adamw"``,
    ``"adagrad"``, ``"adadelta"``, ``"adamax"``, ``"nadam"``, ``"ftrl"``, ``"lion"``, with
    Keras' default settings) or an optimizer instance."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, type) and issubclass(identifier, Optimizer):
        return identifier()
    raise ValueError(f"unknown optimizer {identifier!r}; give one of "
                     f"{', '.join(sorted(_BY_NAME))} or an optimizer object.")


__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl", "Lion", "Nadam",
           "RMSprop", "Optimizer", "get", "schedules"]


__getattr__ = _missing("keras.optimizers")
