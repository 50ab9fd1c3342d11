"""SimpleRNN, LSTM and GRU: outputs, states and training, with weights set from NumPy."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _sequences(n=6, steps=5, features=3, seed=70):
    x = np.random.default_rng(seed).normal(size=(n, steps, features)).astype("float32")
    y = np.tanh(x.sum(axis=(1, 2)) / 4.0).reshape(n, 1).astype("float32")
    return x, y


def simple_rnn_sequences_and_fit(tf):
    x, y = _sequences()
    model = tf.keras.Sequential([tf.keras.Input(shape=(5, 3)),
                                 tf.keras.layers.SimpleRNN(4, return_sequences=True),
                                 tf.keras.layers.SimpleRNN(2, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=70)
    sequences = model.layers[0](x[:2])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return sequences, history.history, model.get_weights()


def lstm_return_state(tf):
    x, _ = _sequences(seed=71)
    layer = tf.keras.layers.LSTM(3, return_sequences=True, return_state=True)
    inputs = tf.keras.Input(shape=(5, 3))
    model = tf.keras.Model(inputs, layer(inputs))
    deterministic_weights(model, seed=71)
    sequences, h, c = model(x[:2])
    return sequences, h, c, [w.shape for w in layer.get_weights()]


def lstm_fit_adam(tf):
    x, y = _sequences(seed=72)
    model = tf.keras.Sequential([tf.keras.Input(shape=(5, 3)), tf.keras.layers.LSTM(4),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=72)
    model.compile(tf.keras.optimizers.Adam(0.02), "mse")
    history = model.fit(x, y, epochs=3, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights(), model.predict(x[:2], verbose=0)


def gru_fit_and_state(tf):
    x, y = _sequences(seed=73)
    inputs = tf.keras.Input(shape=(5, 3))
    output, state = tf.keras.layers.GRU(4, return_state=True)(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(output + state))
    deterministic_weights(model, seed=73)
    model.compile(tf.keras.optimizers.RMSprop(0.01), "mse")
    history = model.fit(x, y, epochs=3, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def gru_reset_before(tf):
    x, _ = _sequences(seed=74)
    layer = tf.keras.layers.GRU(3, reset_after=False, return_sequences=True)
    layer.build((None, 5, 3))
    deterministic_weights(layer, seed=74)
    return layer(x[:3]), [w.shape for w in layer.get_weights()]


def lstm_gradients_through_time(tf):
    x, _ = _sequences(n=2, seed=75)
    layer = tf.keras.layers.LSTM(2, recurrent_activation="sigmoid", activation="tanh")
    layer.build((None, 5, 3))
    deterministic_weights(layer, seed=75)
    inputs = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(inputs)
        loss = tf.reduce_sum(tf.square(layer(inputs)))
    return tape.gradient(loss, [inputs] + layer.trainable_weights)


def _embedding_lstm(tf, optimizer):
    tokens = (np.arange(8 * 4).reshape(8, 4) * 7 % 10).astype("int32")
    labels = (tokens.sum(axis=1) % 2).astype("int32")
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,), dtype="int32"),
                                 tf.keras.layers.Embedding(10, 3),
                                 tf.keras.layers.LSTM(3),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    deterministic_weights(model, seed=76)
    model.compile(optimizer, "sparse_categorical_crossentropy", metrics=["accuracy"])
    history = model.fit(tokens, labels, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def embedding_lstm_classifier(tf):
    return _embedding_lstm(tf, tf.keras.optimizers.Adam(0.05))


def embedding_lstm_classifier_sgd(tf):
    return _embedding_lstm(tf, tf.keras.optimizers.SGD(0.5, momentum=0.5))


def recurrent_layer_in_a_tf_function(tf):
    x, _ = _sequences(seed=77)
    layer = tf.keras.layers.SimpleRNN(2, return_sequences=True, return_state=True)
    layer.build((None, 5, 3))
    deterministic_weights(layer, seed=77)

    @tf.function
    def run(batch):
        sequences, state = layer(batch)
        return tf.reduce_sum(sequences, axis=1) - state

    return run(tf.constant(x[:4])), run(tf.constant(x[2:]))


def bidirectional_lstm_and_gru(tf):
    x, y = _sequences(seed=78)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(5, 3)),
        tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2, return_sequences=True)),
        tf.keras.layers.Bidirectional(tf.keras.layers.GRU(2), merge_mode="sum"),
        tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=78)
    first = model.layers[0](x[:2])
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return first, history.history, model.get_weights(), [w.shape for w in model.get_weights()]


def time_distributed_dense_with_regularized_embedding(tf):
    tokens = (np.arange(6 * 4).reshape(6, 4) * 3 % 7).astype("int32")
    targets = np.random.default_rng(79).normal(size=(6, 4, 2)).astype("float32")
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(4,), dtype="int32"),
        tf.keras.layers.Embedding(7, 3, embeddings_regularizer=tf.keras.regularizers.l2(0.01)),
        tf.keras.layers.GRU(3, return_sequences=True),
        tf.keras.layers.TimeDistributed(tf.keras.layers.Dense(2))])
    deterministic_weights(model, seed=79)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(tokens, targets, epochs=2, batch_size=3, shuffle=False, verbose=2)
    return history.history, model.get_weights()


def sequences_of_any_length(tf):
    x, y = _sequences(seed=80)
    model = tf.keras.Sequential([tf.keras.Input(shape=(None, 3)),
                                 tf.keras.layers.SimpleRNN(3, return_sequences=True),
                                 tf.keras.layers.LSTM(2), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=80)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    longer = np.concatenate([x, x[:, :2]], axis=1)
    return history.history, model.predict(longer, verbose=0), model.predict(x[:, :2], verbose=0)


def rnn_of_cells_and_a_feedback_model(tf):
    x, y = _sequences(seed=81)

    class MinimalRNNCell(tf.keras.layers.Layer):
        def __init__(self, units, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.state_size = units

        def build(self, input_shape):
            self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")
            self.recurrent_kernel = self.add_weight(shape=(self.units, self.units),
                                                    name="recurrent_kernel")

        def call(self, inputs, states):
            output = tf.matmul(inputs, self.kernel) + tf.matmul(states[0],
                                                                self.recurrent_kernel)
            return tf.tanh(output), [tf.tanh(output)]

    class FeedBack(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.lstm_cell = tf.keras.layers.LSTMCell(3)
            self.lstm_rnn = tf.keras.layers.RNN(self.lstm_cell, return_state=True)
            self.dense = tf.keras.layers.Dense(3)

        def call(self, inputs, training=None):
            x, *state = self.lstm_rnn(inputs)
            prediction = self.dense(x)
            predictions = [prediction]
            for _ in range(2):
                x, state = self.lstm_cell(prediction, states=state, training=training)
                prediction = self.dense(x)
                predictions.append(prediction)
            return tf.transpose(tf.stack(predictions), [1, 0, 2])

    minimal = tf.keras.layers.RNN(MinimalRNNCell(2), return_sequences=True)
    minimal.build((None, 5, 3))
    deterministic_weights(minimal, seed=81)
    gru = tf.keras.layers.RNN(tf.keras.layers.GRUCell(2), go_backwards=True)
    gru.build((None, 5, 3))
    deterministic_weights(gru, seed=82)
    model = FeedBack()
    model(x[:1])
    deterministic_weights(model, seed=83)
    model.compile(tf.keras.optimizers.Adam(0.02), "mse")
    history = model.fit(x, x[:, :3], epochs=2, batch_size=3, shuffle=False, verbose=0)
    return minimal(x[:2]), gru(x[:2]), history.history, model.get_weights()
