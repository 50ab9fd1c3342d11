"""``rt.keras.layers``."""

from runtime.keras.functional import Input, KerasTensor
from runtime.keras.layers.base import Layer
from runtime.keras.layers.convolutional import (AveragePooling2D, Conv2D, GlobalAveragePooling1D,
                                                GlobalAveragePooling2D, GlobalMaxPooling1D,
                                                GlobalMaxPooling2D, MaxPooling2D)
from runtime.keras.layers.core import (Activation, Add, Concatenate, Dense, Dropout, Flatten,
                                       Lambda, Reshape, add, concatenate)
from runtime.keras.layers.embedding import Embedding
from runtime.keras.layers.normalization import BatchNormalization, LayerNormalization
from runtime.keras.missing import missing as _missing

# Keras' other spellings of the same layers.
MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
Convolution2D = Conv2D

__all__ = ["Activation", "Add", "AveragePooling2D", "AvgPool2D", "BatchNormalization",
           "Concatenate", "Conv2D", "Convolution2D", "Dense", "Dropout", "Embedding", "Flatten",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "Input", "KerasTensor", "Lambda", "Layer", "LayerNormalization",
           "MaxPool2D", "MaxPooling2D", "Reshape", "add", "concatenate"]

__getattr__ = _missing("keras.layers")
