"""Masks: padded steps (token 0 with Embedding(mask_zero=True), or Masking) skipped by
recurrent layers, averaged out by pooling, and left out of the loss."""

import numpy as np

from tests.keras_programs import deterministic_weights

TOKENS = np.array([[3, 1, 4, 0, 0], [1, 5, 0, 0, 0], [2, 6, 5, 3, 5], [5, 0, 0, 0, 0],
                   [4, 4, 2, 1, 0], [6, 2, 0, 0, 0]], "int32")


def embedding_mask_zero_lstm(tf):
    labels = np.array([0, 1, 1, 0, 1, 0], "int32")
    model = tf.keras.Sequential([tf.keras.Input(shape=(5,), dtype="int32"),
                                 tf.keras.layers.Embedding(7, 3, mask_zero=True),
                                 tf.keras.layers.LSTM(3),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    deterministic_weights(model, seed=100)
    model.compile(tf.keras.optimizers.SGD(0.5), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(TOKENS, labels, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights(), model.predict(TOKENS[:2], verbose=0)


def masked_sequence_outputs_and_loss(tf):
    targets = np.random.default_rng(101).normal(size=(6, 5, 2)).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input(shape=(5,), dtype="int32"),
                                 tf.keras.layers.Embedding(7, 3, mask_zero=True),
                                 tf.keras.layers.GRU(3, return_sequences=True),
                                 tf.keras.layers.Dense(2)])
    deterministic_weights(model, seed=101)
    sequences = model.layers[1](model.layers[0](TOKENS[:2]))
    model.compile(tf.keras.optimizers.SGD(0.2), "mse", metrics=["mae"])
    history = model.fit(TOKENS, targets, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return sequences, history.history, model.get_weights(), model.evaluate(TOKENS, targets,
                                                                           verbose=0)


def masking_layer_pooling_and_bidirectional(tf):
    x = np.random.default_rng(102).normal(size=(6, 5, 2)).astype("float32")
    x[TOKENS == 0] = 0.0
    y = x.sum(axis=(1, 2)).reshape(6, 1)
    inputs = tf.keras.Input(shape=(5, 2))
    masked = tf.keras.layers.Masking(mask_value=0.0)(inputs)
    rnn = tf.keras.layers.SimpleRNN(3, return_sequences=True)(masked)
    pooled = tf.keras.layers.GlobalAveragePooling1D()(rnn)
    both = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2))(masked)
    outputs = tf.keras.layers.Dense(1)(tf.keras.layers.concatenate([pooled, both]))
    model = tf.keras.Model(inputs, outputs)
    deterministic_weights(model, seed=102)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights(), model.predict(x[:2], verbose=0)


def masked_bidirectional_sequences_and_backwards(tf):
    targets = np.random.default_rng(103).normal(size=(6, 5, 1)).astype("float32")
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(5,), dtype="int32"),
        tf.keras.layers.Embedding(7, 2, mask_zero=True),
        tf.keras.layers.Bidirectional(tf.keras.layers.GRU(2, return_sequences=True),
                                      merge_mode="ave"),
        tf.keras.layers.LSTM(2, return_sequences=True, go_backwards=True),
        tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(1))])
    deterministic_weights(model, seed=103)
    model.compile(tf.keras.optimizers.SGD(0.2), "mae")
    history = model.fit(TOKENS, targets, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights(), model.predict(TOKENS[:2], verbose=0)


def attention_layers_with_padded_sequences(tf):
    sequences = [[3, 1, 4], [1, 5], [2, 6, 5, 3, 5, 1], [5]]
    tokens = tf.keras.utils.pad_sequences(sequences, maxlen=5)
    tokens_post = tf.keras.utils.pad_sequences(sequences, maxlen=4, padding="post",
                                               truncating="post")
    inputs = tf.keras.Input(shape=(5,), dtype="int32")
    embedded = tf.keras.layers.Embedding(7, 4, mask_zero=True)(inputs)
    dot = tf.keras.layers.Attention(use_scale=True)([embedded, embedded])
    additive, scores = tf.keras.layers.AdditiveAttention()([embedded, embedded],
                                                           return_attention_scores=True)
    causal = tf.keras.layers.Attention(score_mode="concat")([embedded, embedded],
                                                            use_causal_mask=True)
    pooled = tf.keras.layers.GlobalAveragePooling1D()(dot + additive + causal)
    model = tf.keras.Model(inputs, [tf.keras.layers.Dense(1)(pooled), scores])
    deterministic_weights(model, seed=104)
    outputs = model(tokens)
    return tokens, tokens_post, outputs[0], outputs[1], [w.shape for w in model.get_weights()]


def multi_head_attention_over_padded_tokens(tf):
    labels = np.array([0, 1, 1, 0, 1, 0], "float32").reshape(6, 1)
    inputs = tf.keras.Input(shape=(5,), dtype="int32")
    embedded = tf.keras.layers.Embedding(7, 4, mask_zero=True)(inputs)
    attended = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=2)(embedded, embedded)
    pooled = tf.keras.layers.GlobalAveragePooling1D()(attended)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, activation="sigmoid")(pooled))
    deterministic_weights(model, seed=105)
    model.compile(tf.keras.optimizers.SGD(0.3), "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(TOKENS, labels, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights(), model.predict(TOKENS[:3], verbose=0)


def merged_masks_reach_the_loss(tf):
    targets = np.random.default_rng(106).normal(size=(6, 5, 1)).astype("float32")
    inputs = tf.keras.Input(shape=(5,), dtype="int32")
    embedded = tf.keras.layers.Embedding(7, 3, mask_zero=True)(inputs)
    forward = tf.keras.layers.SimpleRNN(2, return_sequences=True)(embedded)
    backward = tf.keras.layers.GRU(2, return_sequences=True, go_backwards=True)(embedded)
    joined = tf.keras.layers.Concatenate()([forward, tf.keras.layers.Add()([forward, backward])])
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(joined))
    deterministic_weights(model, seed=106)
    model.compile(tf.keras.optimizers.SGD(0.2), "mse", metrics=["mae"])
    history = model.fit(TOKENS, targets, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights()
