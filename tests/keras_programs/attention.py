"""MultiHeadAttention: cross- and self-attention with weights set from NumPy, masks, and a
small model trained with it."""

import numpy as np

from tests.keras_programs import deterministic_weights


def cross_attention_with_scores(tf):
    rng = np.random.default_rng(90)
    query = rng.normal(size=(2, 4, 6)).astype("float32")
    value = rng.normal(size=(2, 3, 5)).astype("float32")
    layer = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)
    layer(query, value)
    deterministic_weights(layer, seed=90)
    output, scores = layer(query, value, return_attention_scores=True)
    return output, scores, [tuple(w.shape) for w in layer.get_weights()]


def self_attention_masks_and_options(tf):
    rng = np.random.default_rng(91)
    x = rng.normal(size=(2, 4, 6)).astype("float32")
    key = rng.normal(size=(2, 4, 6)).astype("float32")
    layer = tf.keras.layers.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=4,
                                               output_shape=5, use_bias=False)
    layer(x, x, key)
    deterministic_weights(layer, seed=91)
    mask = np.array([[[1, 1, 0, 0]] * 4, [[1, 1, 1, 0]] * 4], bool)
    return (layer(x, x, key), layer(x, x, attention_mask=mask),
            layer(x, x, use_causal_mask=True), [tuple(w.shape) for w in layer.get_weights()])


def transformer_block_fit(tf):
    rng = np.random.default_rng(92)
    x = rng.normal(size=(6, 4, 3)).astype("float32")
    y = np.tanh(x.sum(axis=(1, 2)) / 3.0).reshape(6, 1).astype("float32")
    inputs = tf.keras.Input(shape=(4, 3))
    attended = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2)(inputs, inputs)
    normed = tf.keras.layers.LayerNormalization()(inputs + attended)
    outputs = tf.keras.layers.Dense(1)(tf.keras.layers.GlobalAveragePooling1D()(normed))
    model = tf.keras.Model(inputs, outputs)
    deterministic_weights(model, seed=92)
    # SGD: the key bias's gradient is zero but for rounding (softmax ignores a shift shared
    # by all keys), which Adam would scale up to steps of the learning rate's size.
    model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.5), "mse")
    history = model.fit(x, y, epochs=3, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights()
