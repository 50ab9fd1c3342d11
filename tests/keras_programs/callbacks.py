"""fit's callbacks: History, EarlyStopping, LearningRateScheduler, ModelCheckpoint and a
Callback subclass."""

import os
import tempfile

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _model(tf, seed):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(3, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=seed)
    return model


def early_stopping_restores_best_weights(tf):
    x, y = data(16, 3, seed=40)
    model = _model(tf, 40)
    model.compile(tf.keras.optimizers.SGD(0.9), "mse")  # too large: the loss goes back up
    stop = tf.keras.callbacks.EarlyStopping(monitor="loss", patience=1,
                                            restore_best_weights=True, verbose=1)
    history = model.fit(x, y, epochs=12, batch_size=4, shuffle=False, callbacks=[stop],
                        verbose=0)
    return history.history, history.epoch, stop.stopped_epoch, model.get_weights()


def early_stopping_on_validation_loss(tf):
    x, y = data(20, 3, seed=41)
    model = _model(tf, 41)
    model.compile(tf.keras.optimizers.Adam(0.2), "mse")
    stop = tf.keras.callbacks.EarlyStopping(patience=2, min_delta=0.001)
    history = model.fit(x, y, epochs=10, batch_size=5, validation_split=0.25, shuffle=False,
                        callbacks=[stop], verbose=0)
    return history.history, history.epoch, model.get_weights()


def learning_rate_scheduler(tf):
    x, y = data(12, 3, seed=42)
    model = _model(tf, 42)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")

    def schedule(epoch, lr):
        return lr if epoch < 1 else lr * 0.5

    history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0,
                        callbacks=[tf.keras.callbacks.LearningRateScheduler(schedule, verbose=1)])
    return history.history, model.get_weights()


def model_checkpoint_best_weights(tf):
    x, y = data(16, 3, seed=43)
    model = _model(tf, 43)
    model.compile(tf.keras.optimizers.SGD(0.3), "mse")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "best.weights.h5")
        # The loss goes down: "best" in mode="max" is the first epoch's.
        checkpoint = tf.keras.callbacks.ModelCheckpoint(path, monitor="loss", mode="max",
                                                        save_best_only=True,
                                                        save_weights_only=True)
        history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False,
                            callbacks=[checkpoint], verbose=0)
        last = model.get_weights()
        model.load_weights(path)
        return history.history["loss"], last, model.get_weights(), float(checkpoint.best)


def callback_subclass_sees_logs(tf):
    seen = []

    class Recorder(tf.keras.callbacks.Callback):
        def on_train_begin(self, logs=None):
            seen.append("train begin")

        def on_epoch_begin(self, epoch, logs=None):
            seen.append(f"epoch {epoch} begin")

        def on_train_batch_end(self, batch, logs=None):
            seen.append(f"batch {batch}: loss {logs['loss']:.4f}")

        def on_epoch_end(self, epoch, logs=None):
            seen.append(f"epoch {epoch}: {sorted(logs)} loss {logs['loss']:.4f}")
            if epoch == 1:
                self.model.stop_training = True

        def on_train_end(self, logs=None):
            seen.append("train end")

    x, y = data(8, 3, seed=44)
    model = _model(tf, 44)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    history = model.fit(x, y, epochs=5, batch_size=4, shuffle=False, callbacks=[Recorder()],
                        verbose=0)
    return seen, history.epoch, model.history is history


def reduce_lr_on_plateau_and_validation_weights(tf):
    x, y = data(20, 3, seed=45)
    model = _model(tf, 45)
    model.compile(tf.keras.optimizers.SGD(0.8), "mse")
    reduce = tf.keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1,
                                                  min_lr=0.05, verbose=1)
    weights = np.linspace(0.5, 1.5, 4).astype("float32")
    history = model.fit(x[:16], y[:16], epochs=6, batch_size=4, shuffle=False, verbose=0,
                        callbacks=[reduce], validation_data=(x[16:], y[16:], weights))
    return history.history, model.get_weights(), float(model.optimizer.learning_rate)


def csv_logger_lines(tf):
    x, y = data(8, 3, seed=46)
    model = _model(tf, 46)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "log.csv")
        model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0,
                  callbacks=[tf.keras.callbacks.CSVLogger(path)])
        model.fit(x, y, epochs=1, batch_size=4, shuffle=False, verbose=0,
                  callbacks=[tf.keras.callbacks.CSVLogger(path, separator=";", append=True)])
        with open(path) as file:
            lines = file.read().splitlines()
    header = lines[0].split(",")
    rows = [[float(v) if v != "NA" else v for v in line.replace(";", ",").split(",")]
            for line in lines[1:]]
    return header, rows


def test_and_predict_hooks(tf):
    seen = []

    def recorder(hook):
        def record(self, *args, logs=None):
            logs = args[-1] if logs is None and args and isinstance(args[-1], dict) else logs
            index = [a for a in args if isinstance(a, int)]
            seen.append((hook, index, {k: np.shape(v) if k == "outputs" else round(float(v), 4)
                                       for k, v in (logs or {}).items()}))
        return record

    hooks = ["on_test_begin", "on_test_end", "on_test_batch_begin", "on_test_batch_end",
             "on_predict_begin", "on_predict_end", "on_predict_batch_begin",
             "on_predict_batch_end", "on_epoch_end"]
    Recorder = type("Recorder", (tf.keras.callbacks.Callback,),
                    {hook: recorder(hook) for hook in hooks})
    x, y = data(4, 3, seed=45)
    model = _model(tf, 45)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mae"])
    model.fit(x, y, validation_data=(x, y), epochs=1, batch_size=2, shuffle=False,
              callbacks=[Recorder()], verbose=0)
    evaluating = Recorder()
    model.evaluate(x, y, batch_size=2, callbacks=[evaluating], verbose=0)
    model.predict(x, batch_size=3, callbacks=[Recorder()], verbose=0)
    return seen, evaluating.params


def checkpoint_to_keras_file_loads_compiled(tf):
    x, y = data(8, 3, seed=46)
    model = _model(tf, 46)
    model.compile(tf.keras.optimizers.Adam(0.01), "mse", metrics=["mae"])
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "best.keras")
        model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0,
                  callbacks=[tf.keras.callbacks.ModelCheckpoint(path)])
        loaded = tf.keras.models.load_model(path)
    optimizer = loaded.optimizer
    before = loaded.evaluate(x, y, verbose=0)
    loaded.train_on_batch(x[:4], y[:4])
    model.train_on_batch(x[:4], y[:4])
    return [type(optimizer).__name__, int(optimizer.iterations), float(optimizer.learning_rate),
            before, loaded.get_weights(), model.get_weights()]


def progbar_logger(tf):
    x, y = data(8, 3, seed=47)
    model = _model(tf, 47)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    shown = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=2,
                      callbacks=[tf.keras.callbacks.ProgbarLogger()])
    quiet = model.fit(x, y, epochs=1, batch_size=4, shuffle=False, verbose=0,
                      callbacks=[tf.keras.callbacks.ProgbarLogger()])
    return shown.history, quiet.history, model.get_weights()


def model_checkpoint_verbose_messages(tf):
    """ModelCheckpoint(verbose=1) says what it compares ("improved from None" the first time)
    and when it has saved; a train_step's metric below zero prints in e-notation with
    verbose=2, as Keras' one-line progress writes it."""

    class Shifted(tf.keras.Model):
        def train_step(self, batch):
            x, y = batch
            with tf.GradientTape() as tape:
                prediction = self(x, training=True)
                loss = tf.reduce_mean(tf.square(prediction - y))
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            return {"loss": loss, "shift": tf.reduce_mean(prediction) - 1.0}

    x, y = data(16, 3, seed=44)
    inputs = tf.keras.Input((3,))
    model = Shifted(inputs, tf.keras.layers.Dense(1)(inputs))
    deterministic_weights(model, seed=44)
    model.compile(tf.keras.optimizers.SGD(0.1))
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as directory:
        os.chdir(directory)  # the messages name the file as given: the same on both sides
        try:
            save = tf.keras.callbacks.ModelCheckpoint("best.weights.h5", monitor="loss",
                                                      save_best_only=True,
                                                      save_weights_only=True, verbose=1)
            history = model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=2,
                                callbacks=[save])
        finally:
            os.chdir(here)
    print(repr(model), model.layers, repr(tf.keras.metrics.Mean()))
    return history.history
