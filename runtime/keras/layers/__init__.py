"""``rt.keras.layers``."""

from runtime.keras.functional import Input, KerasTensor
from runtime.keras.layers.activation_layers import ELU, LeakyReLU, ReLU, Softmax
from runtime.keras.layers.attention import MultiHeadAttention
from runtime.keras.layers.base import Layer
from runtime.keras.layers.bidirectional import Bidirectional
from runtime.keras.layers.convolutional import (AveragePooling2D, Conv2D, GlobalAveragePooling1D,
                                                GlobalAveragePooling2D, GlobalMaxPooling1D,
                                                GlobalMaxPooling2D, MaxPooling2D)
from runtime.keras.layers.cells import GRUCell, LSTMCell, SimpleRNNCell
from runtime.keras.layers.category_encoding import CategoryEncoding
from runtime.keras.layers.conv_transpose import Conv1DTranspose, Conv2DTranspose
from runtime.keras.layers.convolutional_1d import AveragePooling1D, Conv1D, MaxPooling1D
from runtime.keras.layers.core import (Activation, Add, Concatenate, Dense, Dropout, Flatten,
                                       Lambda, Reshape, add, concatenate)
from runtime.keras.layers.dot import Dot, dot
from runtime.keras.layers.dot_attention import AdditiveAttention, Attention
from runtime.keras.layers.einsum_dense import EinsumDense
from runtime.keras.layers.embedding import Embedding
from runtime.keras.layers.gru import GRU
from runtime.keras.layers.image_augmentation import (RandomBrightness, RandomContrast, RandomCrop,
                                                     RandomRotation, RandomTranslation,
                                                     RandomZoom)
from runtime.keras.layers.image_preprocessing import CenterCrop, RandomFlip, Resizing
from runtime.keras.layers.integer_lookup import IntegerLookup
from runtime.keras.layers.input_layer import InputLayer
from runtime.keras.layers.lstm import LSTM
from runtime.keras.layers.masking import Masking
from runtime.keras.layers.merging import (Average, Maximum, Minimum, Multiply, Subtract, average,
                                         maximum, minimum, multiply, subtract)
from runtime.keras.layers.normalization import (BatchNormalization, GroupNormalization,
                                                LayerNormalization)
from runtime.keras.layers.preprocessing import Discretization, Normalization
from runtime.keras.layers.reshaping import Permute, RepeatVector
from runtime.keras.layers.rnn import RNN
from runtime.keras.layers.separable import DepthwiseConv2D, SeparableConv2D
from runtime.keras.layers.simple_layers import (ActivityRegularization, GaussianDropout,
                                                GaussianNoise, Identity, PReLU, Rescaling,
                                                SpatialDropout1D, SpatialDropout2D,
                                                UnitNormalization)
from runtime.keras.layers.simple_rnn import SimpleRNN
from runtime.keras.layers.spatial import (Cropping1D, Cropping2D, UpSampling1D, UpSampling2D,
                                          ZeroPadding1D, ZeroPadding2D)
from runtime.keras.layers.time_distributed import TimeDistributed
from runtime.keras.missing import missing as _missing

# Keras' other spellings of the same layers.
MaxPool2D, AvgPool2D = MaxPooling2D, AveragePooling2D
MaxPool1D, AvgPool1D = MaxPooling1D, AveragePooling1D
GlobalAvgPool2D, GlobalMaxPool2D = GlobalAveragePooling2D, GlobalMaxPooling2D
GlobalAvgPool1D, GlobalMaxPool1D = GlobalAveragePooling1D, GlobalMaxPooling1D
Convolution2D, Convolution1D, Convolution2DTranspose = Conv2D, Conv1D, Conv2DTranspose
Convolution1DTranspose = Conv1DTranspose
SeparableConvolution2D = SeparableConv2D

__all__ = ["Activation", "ActivityRegularization", "Add", "AdditiveAttention", "Attention",
           "Average", "AveragePooling1D", "AveragePooling2D", "AvgPool1D", "AvgPool2D",
           "BatchNormalization", "Bidirectional", "CategoryEncoding", "CenterCrop", "Concatenate",
           "Conv1D", "Conv1DTranspose", "Conv2D", "Conv2DTranspose", "Convolution1D",
           "Convolution1DTranspose", "Convolution2D", "Convolution2DTranspose", "Cropping1D",
           "Cropping2D", "Dense", "DepthwiseConv2D", "Discretization", "Dot", "Dropout", "ELU",
           "EinsumDense", "Embedding", "Flatten", "GRU", "GRUCell", "GaussianDropout",
           "GaussianNoise", "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalAvgPool1D",
           "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "GroupNormalization", "Identity", "Input", "InputLayer",
           "IntegerLookup", "KerasTensor", "LSTM", "LSTMCell", "Lambda", "Layer",
           "LayerNormalization", "LeakyReLU", "Masking", "MaxPool1D", "MaxPool2D", "MaxPooling1D",
           "MaxPooling2D", "Maximum", "Minimum", "MultiHeadAttention", "Multiply", "Normalization",
           "PReLU", "Permute", "RNN", "RandomBrightness", "RandomContrast", "RandomCrop",
           "RandomFlip", "RandomRotation", "RandomTranslation", "RandomZoom", "ReLU",
           "RepeatVector", "Rescaling", "Reshape", "Resizing", "SeparableConv2D",
           "SeparableConvolution2D", "SimpleRNN", "SimpleRNNCell", "Softmax", "SpatialDropout1D",
           "SpatialDropout2D", "Subtract", "TimeDistributed", "UnitNormalization", "UpSampling1D",
           "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D", "add", "average", "concatenate", "dot",
           "maximum", "minimum", "multiply", "subtract"]

__getattr__ = _missing("keras.layers")
