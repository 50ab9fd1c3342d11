"""``rt.keras``: Keras' layers, models and training loop on the runtime.

    import runtime as rt
    keras = rt.keras

    inputs = keras.Input(shape=(5,))
    x = keras.layers.Dense(32, activation="tanh")(inputs)
    model = keras.Model(inputs, keras.layers.Dense(1)(x))
    model.compile(keras.optimizers.Adam(1e-3), "mse", metrics=["mae"])
    history = model.fit(x_train, y_train, epochs=10, batch_size=32)

Layers are ``rt.Module``s holding ``rt.Variable`` weights; the optimizers are
``rt.optimizers``; ``fit`` runs one traced training step per batch. Given the same initial
weights and batches, losses and weights follow TensorFlow's Keras 3 to float32 rounding.
"""

from runtime.keras import (activations, backend, callbacks, constraints, initializers, layers,
                           losses, metrics, ops, optimizers, preprocessing, regularizers, utils)
from runtime.keras.functional import Input, KerasTensor
from runtime.keras.models import Model, Sequential
from runtime.keras import models  # noqa: F401  (keras.models.Model, keras.models.Sequential)
from runtime.keras import schedules as _schedules

from runtime.keras.missing import missing as _missing

optimizers.schedules = _schedules

# Keras 3's top-level spellings of the base classes.
Layer = layers.Layer
Loss, Metric, Optimizer = losses.Loss, metrics.Metric, optimizers.Optimizer
Initializer, Regularizer = initializers.Initializer, regularizers.Regularizer

__all__ = ["Initializer", "Input", "KerasTensor", "Layer", "Loss", "Metric", "Model", "Optimizer",
           "Regularizer", "Sequential", "activations", "backend", "callbacks",
           "constraints", "initializers", "layers", "losses", "metrics", "models",
           "ops", "optimizers", "preprocessing", "regularizers", "utils"]

__getattr__ = _missing("keras")
