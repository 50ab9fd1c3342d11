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
