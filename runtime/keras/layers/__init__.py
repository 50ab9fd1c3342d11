"""``rt.keras.layers``."""

from runtime.keras.functional import Input, KerasTensor
from runtime.keras.layers.base import Layer
from runtime.keras.layers.core import (Activation, Add, Concatenate, Dense, Dropout, Flatten,
                                       Lambda, Reshape, add, concatenate)

__all__ = ["Activation", "Add", "Concatenate", "Dense", "Dropout", "Flatten", "Input",
           "KerasTensor", "Lambda", "Layer", "Reshape", "add", "concatenate"]
