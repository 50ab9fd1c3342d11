"""``rt.keras.optimizers``: the runtime's optimizers (one implementation, Keras' formulas) as
Keras 3 shows them (``runtime.keras.optimizer_base``), ``get`` by name, and ``schedules``."""

from __future__ import annotations

from runtime import optimizers as runtime_optimizers
from runtime.keras import more_optimizers, schedules
from runtime.keras.optimizer_base import Optimizer, keras_optimizer
from runtime.keras.missing import missing as _missing

SGD = keras_optimizer(runtime_optimizers.SGD)
Adadelta = keras_optimizer(runtime_optimizers.Adadelta)
Adagrad = keras_optimizer(runtime_optimizers.Adagrad)
Adam = keras_optimizer(runtime_optimizers.Adam)
Adamax = keras_optimizer(runtime_optimizers.Adamax)
AdamW = keras_optimizer(runtime_optimizers.AdamW)
Ftrl = keras_optimizer(runtime_optimizers.Ftrl)
Lion = keras_optimizer(runtime_optimizers.Lion)
Nadam = keras_optimizer(runtime_optimizers.Nadam)
RMSprop = keras_optimizer(runtime_optimizers.RMSprop)
Lamb = keras_optimizer(more_optimizers.Lamb)
Adafactor = keras_optimizer(more_optimizers.Adafactor)

_BY_NAME = {"sgd": SGD, "adadelta": Adadelta, "adagrad": Adagrad, "adam": Adam,
            "adamax": Adamax, "adamw": AdamW, "ftrl": Ftrl, "lion": Lion, "nadam": Nadam,
            "rmsprop": RMSprop}


def get(identifier) -> runtime_optimizers.Optimizer:
    """An optimizer from a name (``"adam"``, ``"sgd"``, ``"rmsprop"``, ``"adamw"``,
    ``"adagrad"``, ``"adadelta"``, ``"adamax"``, ``"nadam"``, ``"ftrl"``, ``"lion"``, with
    Keras' default settings; Keras 3 knows ``Lamb`` and ``Adafactor`` by class only) or an
    optimizer instance (of ``rt.optimizers`` too)."""
    if isinstance(identifier, runtime_optimizers.Optimizer):
        return identifier
    if isinstance(identifier, str) and identifier.lower() in _BY_NAME:
        return _BY_NAME[identifier.lower()]()
    if isinstance(identifier, type) and issubclass(identifier, runtime_optimizers.Optimizer):
        return identifier()
    raise ValueError(f"unknown optimizer {identifier!r}; give one of "
                     f"{', '.join(sorted(_BY_NAME))} or an optimizer object.")


__all__ = ["SGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl", "Lamb",
           "Lion", "Nadam", "RMSprop", "Optimizer", "get", "schedules"]


__getattr__ = _missing("keras.optimizers")
