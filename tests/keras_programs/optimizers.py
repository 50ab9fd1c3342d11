"""Keras' optimizers and learning-rate schedules, each training the same small model."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _train(tf, optimizer, epochs=3, seed=20):
    x, y = data(12, 3, seed=seed)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=seed)
    model.compile(optimizer, "mse")
    history = model.fit(x, y, epochs=epochs, batch_size=4, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights()


def sgd_plain(tf):
    return _train(tf, tf.keras.optimizers.SGD(learning_rate=0.1))


def sgd_momentum(tf):
    return _train(tf, tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9))


def sgd_nesterov(tf):
    return _train(tf, tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.8, nesterov=True))


def adam(tf):
    return _train(tf, tf.keras.optimizers.Adam(learning_rate=0.02))


def adam_amsgrad(tf):
    return _train(tf, tf.keras.optimizers.Adam(learning_rate=0.02, amsgrad=True))


def rmsprop(tf):
    return _train(tf, tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.8))


def rmsprop_centered_momentum(tf):
    return _train(tf, tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True))


def adamw(tf):
    return _train(tf, tf.keras.optimizers.AdamW(learning_rate=0.02, weight_decay=0.05))


def weight_decay_on_any_optimizer(tf):
    """Keras 3 gives every optimizer ``weight_decay`` (decoupled, as AdamW's), with variables
    left out by name."""
    adam = tf.keras.optimizers.Adam(0.02, weight_decay=0.1)
    adam.exclude_from_weight_decay(var_names=["bias"])
    optimizers = {"sgd": tf.keras.optimizers.SGD(0.1, momentum=0.9, weight_decay=0.05),
                  "rmsprop": tf.keras.optimizers.RMSprop(0.01, weight_decay=0.2),
                  "adam_without_biases": adam}
    return {name: (_train(tf, optimizer, epochs=2), optimizer.weight_decay)
            for name, optimizer in optimizers.items()}


def adagrad(tf):
    return _train(tf, tf.keras.optimizers.Adagrad(learning_rate=0.1,
                                                  initial_accumulator_value=0.2))


def optimizer_by_name_and_learning_rate(tf):
    x, y = data(8, 3, seed=21)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=21)
    model.compile("adam", "mse")
    model.fit(x, y, epochs=1, batch_size=4, shuffle=False, verbose=0)
    return (float(model.optimizer.learning_rate), int(model.optimizer.iterations),
            model.get_weights())


def exponential_decay_staircase(tf):
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2,
                                                              decay_rate=0.5, staircase=True)
    return _train(tf, tf.keras.optimizers.SGD(schedule)), [float(schedule(s)) for s in range(5)]


def piecewise_constant_decay(tf):
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([3, 6], [0.1, 0.05, 0.01])
    return _train(tf, tf.keras.optimizers.SGD(schedule)), [float(schedule(s)) for s in range(8)]


def inverse_time_and_cosine_decay(tf):
    inverse = tf.keras.optimizers.schedules.InverseTimeDecay(0.05, decay_steps=2, decay_rate=0.5)
    cosine = tf.keras.optimizers.schedules.CosineDecay(0.05, decay_steps=6, alpha=0.1)
    polynomial = tf.keras.optimizers.schedules.PolynomialDecay(0.05, decay_steps=5,
                                                               end_learning_rate=0.01, power=2.0)
    values = [[float(s(step)) for step in range(8)] for s in (inverse, cosine, polynomial)]
    return _train(tf, tf.keras.optimizers.Adam(cosine)), values


def embedding_rows_with_each_optimizer(tf):
    """Batches that repeat ids: TensorFlow gives each optimizer the embedding's gradient as
    rows (IndexedSlices, one per id looked up), which SGD subtracts one by one and Adam,
    RMSprop and Adagrad square one by one before adding them into their slots."""
    optimizers = {
        "sgd": tf.keras.optimizers.SGD(0.3),
        "nesterov": tf.keras.optimizers.SGD(0.3, momentum=0.7, nesterov=True),
        "adam_amsgrad": tf.keras.optimizers.Adam(0.1, amsgrad=True),
        "adamw": tf.keras.optimizers.AdamW(0.1, weight_decay=0.1),
        "rmsprop": tf.keras.optimizers.RMSprop(0.05),
        "rmsprop_centered_momentum": tf.keras.optimizers.RMSprop(0.05, momentum=0.5,
                                                                 centered=True),
        "adagrad": tf.keras.optimizers.Adagrad(0.3),
    }
    return {name: _embedding_fit(tf, optimizer) for name, optimizer in optimizers.items()}


def _embedding_fit(tf, optimizer):
    ids = np.array([[1, 3, 1, 1], [4, 1, 0, 3], [2, 2, 5, 2], [0, 5, 5, 1]], "int32")
    y = np.linspace(-1.0, 1.0, 8).reshape(4, 2).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,), dtype="int32"),
                                 tf.keras.layers.Embedding(6, 3),
                                 tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(2)])
    deterministic_weights(model, seed=22)
    model.compile(optimizer, "mse")
    history = model.fit(ids, y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights()


def gradient_clipping_options(tf):
    """clipnorm, global_clipnorm and clipvalue, on a dense model and on an embedding, whose
    rows are clipped as rows (a norm over the rows, each row limited) before Keras makes the
    gradient dense for the update."""
    options = {"clipnorm": lambda: tf.keras.optimizers.Adam(0.05, clipnorm=0.5),
               "global_clipnorm": lambda: tf.keras.optimizers.SGD(0.2, global_clipnorm=0.3),
               "clipvalue": lambda: tf.keras.optimizers.RMSprop(0.02, clipvalue=0.05)}
    return {name: (_train(tf, make(), epochs=2), _embedding_fit(tf, make()))
            for name, make in options.items()}
