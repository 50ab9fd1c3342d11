"""``rt.optimizers``: Keras' optimizers, applying gradients to ``rt.Variable`` objects eagerly
or inside a traced training step.

    opt = rt.optimizers.Adam(learning_rate=0.01)

    @rt.function
    def train_step(x, y):
        with rt.GradientTape() as tape:
            loss = loss_fn(model(x), y)
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss
"""

from runtime.optimizers.adadelta import Adadelta
from runtime.optimizers.adagrad import Adagrad
from runtime.optimizers.adam import Adam
from runtime.optimizers.adamax import Adamax
from runtime.optimizers.adamw import AdamW
from runtime.optimizers.base import Optimizer
from runtime.optimizers.ftrl import Ftrl
from runtime.optimizers.lion import Lion
from runtime.optimizers.nadam import Nadam
from runtime.optimizers.rmsprop import RMSprop
from runtime.optimizers.sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "Ftrl", "Lion", "Nadam",
           "Optimizer", "RMSprop", "SGD"]
