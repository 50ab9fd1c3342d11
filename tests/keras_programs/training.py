"""fit's options: validation_split and validation_data, sample_weight, class_weight, a last
smaller batch, initial_epoch, the batch methods and evaluate's return_dict."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _regressor(tf, seed=0):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(3, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=seed)
    return model


def _classifier(tf, classes, seed=0):
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                                 tf.keras.layers.Dense(5, activation="relu"),
                                 tf.keras.layers.Dense(classes, activation="softmax")])
    deterministic_weights(model, seed=seed)
    return model


def validation_split_verbose(tf):
    x, y = data(20, 3, seed=10)
    model = _regressor(tf, 10)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    history = model.fit(x, y, epochs=2, batch_size=6, validation_split=0.25, shuffle=False,
                        verbose=1)
    return history.history, model.get_weights()


def validation_data_and_last_small_batch(tf):
    x, y = data(23, 3, seed=11)
    model = _regressor(tf, 11)
    model.compile(tf.keras.optimizers.Adam(0.05), "mse", metrics=["mse"])
    history = model.fit(x[:17], y[:17], epochs=3, batch_size=5, shuffle=False,
                        validation_data=(x[17:], y[17:]), verbose=0)
    return history.history, model.get_weights()


def sample_weight_in_fit_and_evaluate(tf):
    x, y = data(12, 3, seed=12)
    weights = np.linspace(0.0, 2.0, 12).astype("float32")
    model = _regressor(tf, 12)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, sample_weight=weights, epochs=2, batch_size=4, shuffle=False,
                        verbose=0)
    return (history.history, model.get_weights(),
            model.evaluate(x, y, sample_weight=weights, batch_size=4, verbose=0),
            model.evaluate(x, y, batch_size=4, verbose=0))


def class_weight_sparse_labels(tf):
    x, _ = data(16, 4, seed=13)
    labels = (np.arange(16) % 3).astype("int32")
    model = _classifier(tf, 3, seed=13)
    model.compile(tf.keras.optimizers.SGD(0.2), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, labels, class_weight={0: 1.0, 1: 3.0, 2: 0.5}, epochs=2,
                        batch_size=8, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def class_weight_one_hot_labels(tf):
    x, _ = data(12, 4, seed=14)
    labels = np.eye(2, dtype="float32")[np.arange(12) % 2]
    model = _classifier(tf, 2, seed=14)
    model.compile(tf.keras.optimizers.SGD(0.2), "categorical_crossentropy")
    history = model.fit(x, labels, class_weight={0: 0.25, 1: 2.0}, epochs=2, batch_size=6,
                        shuffle=False, verbose=0)
    return history.history, model.get_weights()


def initial_epoch_and_history(tf):
    x, y = data(8, 3, seed=15)
    model = _regressor(tf, 15)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=4, initial_epoch=2, batch_size=4, shuffle=False,
                        verbose=0)
    return history.history, history.epoch, history.params["epochs"], history.params["steps"]


def batch_methods(tf):
    x, y = data(6, 3, seed=16)
    model = _regressor(tf, 16)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    first = model.train_on_batch(x, y)
    second = model.train_on_batch(x, y)
    tested = model.test_on_batch(x, y)
    return first, second, tested, model.predict_on_batch(x[:2])


def evaluate_return_dict_and_verbose(tf):
    x, y = data(10, 3, seed=17)
    model = _regressor(tf, 17)
    model.compile("sgd", "mse", metrics=["mae", "mse"])
    scores = model.evaluate(x, y, batch_size=4, return_dict=True, verbose=1)
    return scores, model.evaluate(x, y, verbose=0)


def predict_batches_and_verbose(tf):
    x, _ = data(7, 3, seed=18)
    model = _regressor(tf, 18)
    return model.predict(x, batch_size=3, verbose=1), model.predict(x, verbose=0)


def two_outputs_with_loss_weights(tf):
    x, y = data(12, 3, outputs=2, seed=19)
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4, activation="tanh")(inputs)
    value = tf.keras.layers.Dense(1, name="value")(hidden)
    label = tf.keras.layers.Dense(1, activation="sigmoid", name="label")(hidden)
    model = tf.keras.Model(inputs, [value, label])
    deterministic_weights(model, seed=19)
    model.compile(tf.keras.optimizers.SGD(0.1), loss=["mse", "binary_crossentropy"],
                  loss_weights=[1.0, 0.5], metrics=[["mae"], ["accuracy"]])
    targets = [y[:, :1], (y[:, 1:] > 0.1).astype("float32")]
    history = model.fit(x, targets, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return (history.history, model.get_weights(), model.predict(x[:2], verbose=0),
            model.evaluate(x, targets, verbose=0, return_dict=True))


def steps_per_epoch_on_a_repeated_dataset(tf):
    x, y = data(16, 3, seed=20)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4).repeat()
    model = _regressor(tf, 20)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(dataset, steps_per_epoch=3, epochs=3, verbose=0)
    return history.history, model.get_weights()


def weighted_metrics_with_sample_weights(tf):
    x, y = data(12, 3, seed=21)
    weights = np.linspace(0.2, 2.0, 12).astype("float32")
    model = _regressor(tf, 21)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"],
                  weighted_metrics=["mae", "mse"])
    history = model.fit(x, y, sample_weight=weights, epochs=2, batch_size=4, shuffle=False,
                        verbose=0)
    return (history.history, model.evaluate(x, y, sample_weight=weights, verbose=0,
                                            return_dict=True))


def steps_in_evaluate_predict_and_validation(tf):
    x, y = data(16, 3, seed=22)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    model = _regressor(tf, 22)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=4, epochs=2, shuffle=False, verbose=0,
                        validation_data=dataset, validation_steps=2)
    return (history.history, model.evaluate(dataset, steps=2, verbose=0),
            model.evaluate(x, y, batch_size=3, steps=1, verbose=0),
            model.evaluate(dataset.repeat(), steps=3, verbose=1),
            model.predict(dataset, steps=2, verbose=0), model.predict(x, batch_size=5, steps=1,
                                                                     verbose=1))


def fit_evaluate_predict_on_a_py_dataset(tf):
    x, y = data(12, 3, seed=23)

    class Batches(tf.keras.utils.PyDataset):
        def __init__(self, with_labels=True, **kwargs):
            super().__init__(**kwargs)
            self.with_labels, self.epochs_ended = with_labels, 0

        def __len__(self):
            return 3

        def __getitem__(self, index):
            part = slice(4 * index, 4 * index + 4)
            return (x[part], y[part]) if self.with_labels else x[part]

        def on_epoch_end(self):
            self.epochs_ended += 1

    model = _regressor(tf, 23)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    batches = Batches()
    history = model.fit(batches, epochs=2, verbose=0, shuffle=False)
    return (history.history, model.get_weights(), model.evaluate(Batches(), verbose=0),
            model.predict(Batches(with_labels=False), verbose=0), batches.epochs_ended >= 2)


def sequential_built_by_fit_and_python_lists_refused(tf):
    # A Sequential without an Input is built on the first batch: its shapes keep that size.
    x, y = data(16, 3, seed=24)
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="tanh",
                                                       kernel_initializer="ones"),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones")])
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    history = model.fit(x, y, epochs=1, batch_size=8, shuffle=False, verbose=0)
    try:
        model.fit(x.tolist(), y.tolist(), verbose=0)
    except ValueError:  # Keras 3 takes arrays, tensors or datasets, not lists of numbers
        refused = True
    return history.history, model.input_shape, model.output_shape, refused
