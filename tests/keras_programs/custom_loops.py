"""Keras pieces in a training loop written by hand, as TensorFlow's "quickstart for experts":
a subclassed model, a loss object, an optimizer and stateful metrics inside a tf.function."""

import numpy as np

from tests.keras_programs import deterministic_weights


def quickstart_for_experts_loop(tf):
    rng = np.random.default_rng(95)
    images = rng.normal(size=(24, 4, 4)).astype("float32")
    labels = (images.sum(axis=(1, 2)) > 0).astype("int64") + (images[:, 0, 0] > 1)
    train = tf.data.Dataset.from_tensor_slices((images[:16], labels[:16])).batch(8)
    test = tf.data.Dataset.from_tensor_slices((images[16:], labels[16:])).batch(8)

    class MyModel(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.flatten = tf.keras.layers.Flatten()
            self.d1 = tf.keras.layers.Dense(8, activation="relu")
            self.d2 = tf.keras.layers.Dense(3)

        def call(self, x):
            return self.d2(self.d1(self.flatten(x)))

    model = MyModel()
    model(images[:1])
    deterministic_weights(model, seed=95)
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam(0.01)
    train_loss = tf.keras.metrics.Mean(name="train_loss")
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
    test_loss = tf.keras.metrics.Mean(name="test_loss")
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")

    @tf.function
    def train_step(images, labels):
        with tf.GradientTape() as tape:
            predictions = model(images, training=True)
            loss = loss_object(labels, predictions)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        train_loss(loss)
        train_accuracy(labels, predictions)

    @tf.function
    def test_step(images, labels):
        predictions = model(images, training=False)
        test_loss(loss_object(labels, predictions))
        test_accuracy(labels, predictions)

    for epoch in range(3):
        for metric in (train_loss, train_accuracy, test_loss, test_accuracy):
            metric.reset_state()
        for batch_images, batch_labels in train:
            train_step(batch_images, batch_labels)
        for batch_images, batch_labels in test:
            test_step(batch_images, batch_labels)
        print(f"Epoch {epoch + 1}, Loss: {float(train_loss.result()):.4f}, "
              f"Accuracy: {float(train_accuracy.result()) * 100:.2f}, "
              f"Test Loss: {float(test_loss.result()):.4f}, "
              f"Test Accuracy: {float(test_accuracy.result()) * 100:.2f}")
    return model.get_weights(), float(train_loss.result()), float(test_accuracy.result())


def metrics_with_sample_weights_and_results_as_tensors(tf):
    mean = tf.keras.metrics.Mean()
    mean.update_state([1.0, 2.0, 4.0], sample_weight=[1.0, 0.0, 3.0])
    accuracy = tf.keras.metrics.BinaryAccuracy()
    accuracy.update_state([[1.0], [0.0], [1.0]], [[0.7], [0.6], [0.2]],
                          sample_weight=[2.0, 1.0, 1.0])
    mse = tf.keras.metrics.MeanSquaredError()
    value = mse(np.array([[1.0, 2.0]], "float32"), np.array([[2.0, 4.0]], "float32"))
    return (mean.result(), accuracy.result(), value, mse.result(),
            tf.keras.metrics.Mean()(np.array([3.0, 5.0], "float32")))


def _regression_data():
    rng = np.random.default_rng(96)
    x = rng.normal(size=(12, 3)).astype("float32")
    return x, (x @ np.array([[0.5], [-1.0], [0.25]], "float32") + 0.1).astype("float32")


def custom_train_step_with_compiled_metrics(tf):
    class CustomModel(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply(gradients, trainable_vars)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    x, y = _regression_data()
    inputs = tf.keras.Input(shape=(3,))
    model = CustomModel(inputs, tf.keras.layers.Dense(1)(
        tf.keras.layers.Dense(4, activation="tanh")(inputs)))
    deterministic_weights(model, seed=96)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.get_weights(), model.evaluate(x, y, verbose=0)


def _model_with_own_metrics(tf):
    """A model class whose train_step computes its loss itself (compiled without one) and
    updates metrics of its own."""

    class CustomModel(tf.keras.Model):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.loss_tracker = tf.keras.metrics.Mean(name="loss")
            self.mae_metric = tf.keras.metrics.MeanAbsoluteError(name="mae")

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y - y_pred))
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            self.mae_metric.update_state(y, y_pred)
            return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

        @property
        def metrics(self):
            return [self.loss_tracker, self.mae_metric]

    return CustomModel


def custom_train_step_with_own_metrics(tf):
    x, y = _regression_data()
    inputs = tf.keras.Input(shape=(3,))
    model = _model_with_own_metrics(tf)(inputs, tf.keras.layers.Dense(1)(inputs))
    deterministic_weights(model, seed=97)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.05))
    history = model.fit(x, y, epochs=3, batch_size=5, shuffle=False, verbose=1)
    return history.history, model.get_weights()


def custom_test_and_predict_steps_without_a_loss(tf):
    """A model compiled without a loss: its own test_step drives evaluate (and fit's
    validation), its own predict_step predict; test_on_batch and predict_on_batch call them
    too."""

    class CustomModel(_model_with_own_metrics(tf)):
        def test_step(self, data):
            x, y, _ = tf.keras.utils.unpack_x_y_sample_weight(data)
            self.mae_metric.update_state(y, self(x, training=False))
            return {"mae": self.mae_metric.result()}

        def predict_step(self, data):
            x, _, _ = tf.keras.utils.unpack_x_y_sample_weight(data)
            y_pred = self(x, training=False)
            return {"value": y_pred, "doubled": 2.0 * y_pred}

    x, y = _regression_data()
    inputs = tf.keras.Input(shape=(3,))
    model = CustomModel(inputs, tf.keras.layers.Dense(1)(inputs))
    deterministic_weights(model, seed=98)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1))
    history = model.fit(x[:8], y[:8], epochs=2, batch_size=4, shuffle=False, verbose=0,
                        validation_data=(x[8:], y[8:]))
    return (history.history, model.evaluate(x, y, batch_size=4, verbose=1),
            model.evaluate(x, y, verbose=0, return_dict=True), model.predict(x[:3], verbose=0),
            model.predict_on_batch(x[:2]), model.test_on_batch(x[:4], y[:4]))


def embedding_gradient_rows_in_a_loop(tf):
    """``tape.gradient`` gives a table only gathered from as rows (``tf.IndexedSlices``: one
    per id looked up, those of two lookups joined) and a table also used whole as a dense
    gradient; the clipping functions keep rows; Adam applies both gradients, eagerly and in a
    ``tf.function``."""
    rng = np.random.default_rng(96)
    ids = tf.constant([[1, 3, 1], [4, 1, 0]])
    table = tf.Variable(rng.uniform(-1, 1, (5, 3)).astype("float32"))
    tied = tf.Variable(rng.uniform(-1, 1, (5, 3)).astype("float32"))
    weights = tf.constant(rng.normal(size=(2, 3, 3)).astype("float32"))
    optimizer = tf.keras.optimizers.Adam(0.1)

    def gradients():
        with tf.GradientTape() as tape:
            looked_up = tf.gather(table, ids)
            loss = tf.reduce_sum(tf.square(looked_up) * weights) \
                + tf.reduce_sum(tf.gather(table, [2, 2]) * weights[0, :2]) \
                + tf.reduce_sum(tf.matmul(tf.gather(tied, ids[0]), tied, transpose_b=True))
        return tape.gradient(loss, [table, tied])

    def step():
        grads = gradients()
        optimizer.apply_gradients(zip(grads, [table, tied]))

    first = gradients()
    kinds = [isinstance(g, tf.IndexedSlices) for g in first]
    dense = [tf.convert_to_tensor(g) for g in first]
    # Clipping keeps rows and measures them (a repeated id counts once per row).
    clipped, norm = tf.clip_by_global_norm(first, 1.0)
    by_norm, by_value = tf.clip_by_norm(first[0], 1.0), tf.clip_by_value(first[0], -0.5, 0.5)
    clipping = ([isinstance(g, tf.IndexedSlices) for g in clipped + [by_norm, by_value]], norm,
                [tf.convert_to_tensor(g) for g in clipped + [by_norm, by_value]])
    step()
    step()
    eager = [table.numpy(), tied.numpy()]
    traced = tf.function(step)
    traced()
    traced()
    # (The order of the two lookups' rows follows TensorFlow's backward pass: not compared.)
    return kinds, tf.sort(first[0].indices), dense, clipping, eager, [table, tied]
