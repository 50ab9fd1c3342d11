"""Keras' image augmentation layers as image tutorials use them: identity at inference
(predict, training=False), random when training or called directly, with the shapes, dtypes
and value ranges Keras gives (the draws themselves come from another stream)."""

import numpy as np


def _images():
    return np.arange(2 * 6 * 8 * 3, dtype="float32").reshape(2, 6, 8, 3) % 255


def _layers(tf):
    layers = tf.keras.layers
    return [layers.RandomRotation(0.2), layers.RandomZoom(0.2), layers.RandomZoom((-0.3, 0.1), 0.2),
            layers.RandomTranslation(0.1, 0.2), layers.RandomContrast(0.5),
            layers.RandomBrightness(0.3), layers.RandomRotation(0.1, fill_mode="constant"),
            layers.RandomTranslation(0.2, 0.2, fill_mode="nearest", interpolation="nearest"),
            layers.RandomZoom(0.2, fill_mode="wrap")]


def identity_at_inference_random_in_training(tf):
    x = _images()
    rows = []
    for layer in _layers(tf):
        inference = layer(x, training=False)
        training = layer(x, training=True)
        direct = layer(x[0])
        rows.append((type(layer).__name__, inference.dtype == tf.float32,
                     bool(np.array_equal(np.asarray(inference), x)),
                     tuple(training.shape), training.dtype == tf.float32,
                     bool(np.all(np.asarray(training) >= -1e-3)),
                     bool(np.all(np.asarray(training) <= 255 + 1e-3)),
                     tuple(direct.shape)))
    return rows


def random_crop(tf):
    x = _images()
    crop = tf.keras.layers.RandomCrop(4, 5)
    training = np.asarray(crop(x, training=True))
    windows = {(top, left) for top in range(3) for left in range(4)
               if np.array_equal(training, x[:, top:top + 4, left:left + 5])}
    larger = tf.keras.layers.RandomCrop(8, 10)
    square = tf.keras.layers.RandomCrop(6, 6)
    return (crop(x, training=False), len(windows), tuple(crop(x[0]).shape),
            larger(x), larger(x, training=True), square(x), square(x[:, :, :6]),
            crop(x.astype("uint8"), training=False).dtype == tf.uint8)


def augmentation_in_a_model(tf):
    x = _images() / 255.0
    y = np.array([[0.0], [1.0]], dtype="float32")
    layers = tf.keras.layers
    augment = tf.keras.Sequential([layers.RandomFlip("horizontal"), layers.RandomRotation(0.1),
                                   layers.RandomZoom(0.1), layers.RandomContrast(0.2),
                                   layers.RandomTranslation(0.1, 0.1),
                                   layers.RandomBrightness(0.1, value_range=(0, 1))])
    model = tf.keras.Sequential([tf.keras.Input((6, 8, 3)), augment, layers.Flatten(),
                                 layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(x, y, epochs=1, verbose=0)
    predicted = model.predict(x, verbose=0)
    return (tuple(predicted.shape), bool(np.array_equal(augment.predict(x, verbose=0), x)),
            tuple(model.layers[1](x, training=False).shape))
