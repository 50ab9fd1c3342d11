"""fit, evaluate and predict on tf.data datasets."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _model(tf, seed):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(3, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=seed)
    return model


def fit_evaluate_predict_on_datasets(tf):
    x, y = data(14, 3, seed=60)
    train = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    model = _model(tf, 60)
    model.compile(tf.keras.optimizers.Adam(0.05), "mse", metrics=["mae"])
    history = model.fit(train, epochs=3, verbose=0)
    return (history.history, model.evaluate(train, verbose=0),
            model.predict(tf.data.Dataset.from_tensor_slices(x).batch(5), verbose=0))


def validation_data_as_dataset_verbose(tf):
    x, y = data(16, 3, seed=61)
    train = tf.data.Dataset.from_tensor_slices((x[:12], y[:12])).batch(4)
    valid = tf.data.Dataset.from_tensor_slices((x[12:], y[12:])).batch(2)
    model = _model(tf, 61)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(train, validation_data=valid, epochs=2, verbose=1)
    return history.history, model.get_weights()


def dataset_with_sample_weights(tf):
    x, y = data(12, 3, seed=62)
    weights = np.where(np.arange(12) % 2 == 0, 2.0, 0.5).astype("float32")
    train = tf.data.Dataset.from_tensor_slices((x, y, weights)).batch(4)
    model = _model(tf, 62)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(train, epochs=2, verbose=0)
    return history.history, model.get_weights()


def mapped_dataset_of_two_inputs(tf):
    x, y = data(12, 4, seed=63)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).map(
        lambda features, target: ((features[:2], features[2:]), target * 2.0)).batch(4)
    first = tf.keras.Input(shape=(2,))
    second = tf.keras.Input(shape=(2,))
    out = tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([first, second]))
    model = tf.keras.Model([first, second], out)
    deterministic_weights(model, seed=63)
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    history = model.fit(dataset, epochs=2, verbose=0)
    return history.history, model.get_weights()


def timeseries_windows_and_normalize(tf):
    utils = tf.keras.utils
    windows = utils.timeseries_dataset_from_array(np.arange(10), np.arange(10) * 10,
                                                  sequence_length=3, sequence_stride=2,
                                                  batch_size=2)
    sampled = utils.timeseries_dataset_from_array(np.arange(20).reshape(10, 2), None,
                                                  sequence_length=2, sampling_rate=2,
                                                  batch_size=3, start_index=1, end_index=8)
    rows = np.array([[3.0, 4.0], [1.0, 0.0]])
    return ([(np.asarray(x), np.asarray(y)) for x, y in windows],
            [np.asarray(x) for x in sampled], utils.normalize(rows),
            utils.normalize(rows, axis=0, order=1))


def fit_filtered_dataset_with_asserted_cardinality(tf):
    """A filtered dataset has no known length; tf.data.experimental.assert_cardinality gives
    it one (the progress bar counts to it), and a wrong count fails while iterating."""
    x, y = data(12, 2, seed=46)
    ds = (tf.data.Dataset.from_tensor_slices((x, y)).filter(lambda a, b: b[0] > -10.0)
          .apply(tf.data.experimental.assert_cardinality(12)).batch(4))
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=46)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(ds, epochs=2, verbose=1)
    short = tf.data.Dataset.from_tensor_slices((x, y)).apply(
        tf.data.experimental.assert_cardinality(13)).batch(4)
    try:
        model.evaluate(short, verbose=0)
        failed = "no error"
    except tf.errors.FailedPreconditionError:
        failed = "FailedPreconditionError"
    return history.history, int(ds.cardinality()), failed
