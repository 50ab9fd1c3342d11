"""Weights in and out: get/set_weights, save_weights/load_weights, model.save/load_model."""

import os
import tempfile

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _model(tf, seed):
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(4, activation="relu"),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    deterministic_weights(model, seed=seed)
    return model


def get_and_set_weights_round_trip(tf):
    source, target = _model(tf, 50), _model(tf, 51)
    x = np.linspace(-1, 1, 9, dtype="float32").reshape(3, 3)
    target.set_weights(source.get_weights())
    layer = target.layers[0]
    layer.set_weights([w * 2 for w in layer.get_weights()])
    return (target.predict(x, verbose=0), source.predict(x, verbose=0),
            [tuple(w.shape) for w in target.weights], len(layer.weights))


def save_and_load_weights_after_training(tf):
    x, y = data(8, 3, seed=52)
    labels = (y[:, 0] > y.mean()).astype("int32")
    model = _model(tf, 52)
    model.compile(tf.keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy")
    model.fit(x, labels, epochs=2, batch_size=4, shuffle=False, verbose=0)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "trained.weights.h5")
        model.save_weights(path)
        fresh = _model(tf, 53)
        fresh.load_weights(path)
    return fresh.predict(x, verbose=0), model.predict(x, verbose=0)


def save_and_load_model(tf):
    x, y = data(8, 3, seed=54)
    inputs = tf.keras.Input(shape=(3,))
    hidden = tf.keras.layers.Dense(4, activation="tanh", name="hidden")(inputs)
    outputs = tf.keras.layers.Dense(1, name="out")(hidden)
    model = tf.keras.Model(inputs, outputs)
    deterministic_weights(model, seed=54)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.keras")
        model.save(path)
        loaded = tf.keras.models.load_model(path)
    return (loaded.predict(x, verbose=0), model.predict(x, verbose=0),
            [layer.name for layer in loaded.layers[1:]])


def weights_of_layers_with_constant_initializers(tf):
    layer = tf.keras.layers.Dense(2, kernel_initializer=tf.keras.initializers.Constant(0.5),
                                  bias_initializer=tf.keras.initializers.Constant(-1.0))
    out = layer(np.ones((1, 3), "float32"))
    zeros = tf.keras.layers.Dense(2, kernel_initializer="zeros", use_bias=False)
    zeros.build((None, 3))
    return out, layer.get_weights(), zeros.get_weights(), len(zeros.weights)


def save_and_load_sequence_models(tf):
    x = np.random.default_rng(55).normal(size=(3, 6, 2)).astype("float32")
    sequential = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 2)),
        tf.keras.layers.Conv1D(3, 2, padding="same", activation="relu",
                               kernel_regularizer=tf.keras.regularizers.l2(0.1)),
        tf.keras.layers.MaxPooling1D(2),
        tf.keras.layers.GRU(3, return_sequences=True, reset_after=False),
        tf.keras.layers.LSTM(2, go_backwards=True),
        tf.keras.layers.Dense(1)])
    inputs = tf.keras.Input(shape=(6, 2))
    attended = tf.keras.layers.MultiHeadAttention(num_heads=2, key_dim=3)(inputs, inputs)
    functional = tf.keras.Model(inputs, tf.keras.layers.SimpleRNN(2)(attended))
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for index, model in enumerate((sequential, functional)):
            deterministic_weights(model, seed=55 + index)
            path = os.path.join(folder, f"model{index}.keras")
            model.save(path)
            loaded = tf.keras.models.load_model(path)
            results += [loaded.predict(x, verbose=0), model.predict(x, verbose=0),
                        [type(layer).__name__ for layer in loaded.layers],
                        [float(loss) for loss in loaded.losses]]
    return results


def clone_model_and_json_round_trip(tf):
    inputs = tf.keras.Input(shape=(3,))
    outputs = tf.keras.layers.Dense(2, activation="tanh", name="inner")(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, name="outer")(outputs))
    deterministic_weights(model, seed=56)
    clone = tf.keras.models.clone_model(model)
    clone.set_weights(model.get_weights())
    rebuilt = tf.keras.models.model_from_json(model.to_json())
    rebuilt.set_weights(model.get_weights())
    x = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)
    return (clone.predict(x, verbose=0), rebuilt.predict(x, verbose=0),
            [layer.name for layer in clone.layers[1:]], [layer.name for layer in rebuilt.layers[1:]],
            clone.layers[1] is not model.layers[1])


def nested_model_saved_and_loaded_and_sequential_config(tf):
    x, _ = data(5, 3, seed=52)
    base = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                tf.keras.layers.Dense(4, activation="tanh")], name="base")
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(base(inputs)))
    deterministic_weights(model, seed=52)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "nested.keras")
        model.save(path)
        loaded = tf.keras.models.load_model(path)
    config = base.get_config()
    rebuilt = tf.keras.Sequential.from_config(config)
    return ([type(layer).__name__ for layer in loaded.layers], loaded.predict(x, verbose=0),
            model.predict(x, verbose=0), sorted(config), config["name"], len(config["layers"]),
            [w.shape for w in rebuilt.get_weights()])


def custom_layer_lists_trainable_weights_first(tf):
    class Projection(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(shape=(input_shape[-1], 2), initializer="ones",
                                     trainable=False, name="w")
            self.b = self.add_weight(shape=(2,), initializer="zeros", name="b")

        def call(self, inputs):
            return tf.matmul(inputs, self.w) + self.b

    layer = Projection()
    x = np.arange(6, dtype="float32").reshape(2, 3)
    layer(x)
    shapes = [w.shape for w in layer.get_weights()]
    layer.set_weights([np.full((2,), 0.5, "float32"), np.full((3, 2), 2.0, "float32")])
    return (shapes, [tuple(w.shape) for w in layer.trainable_weights],
            [tuple(w.shape) for w in layer.non_trainable_weights], layer(x))


def bidirectional_weights_exist_once_built(tf):
    layer = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(2))
    layer.build((None, 4, 3))
    shapes = [w.shape for w in layer.get_weights()]
    rng = np.random.default_rng(53)
    layer.set_weights([rng.uniform(-0.5, 0.5, shape).astype("float32") for shape in shapes])
    return shapes, layer(rng.normal(size=(2, 4, 3)).astype("float32"))


def variable_paths_and_text(tf):
    """Keras 3 weights: ``name`` is the weight's own, ``path`` adds the layers it was made in
    (a Sequential's, a subclassed model's, a custom layer's, none in a functional model), and a
    weight prints as Keras' ``<Variable path=...>``."""

    class Scale(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.gain = self.add_weight(shape=(2,), initializer="ones", name="gain")
            self.inner = tf.keras.layers.Dense(1, kernel_initializer="ones")

        def build(self, input_shape):
            self.offset = self.add_weight(shape=(1,), initializer="zeros", name="offset")

        def call(self, x):
            return self.inner(x * self.gain) + self.offset

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.scale = Scale()
            self.head = tf.keras.layers.Dense(1, kernel_initializer="ones")

        def call(self, x):
            return self.head(self.scale(x))

    net = Net()
    out = net(np.ones((1, 2), "float32"))
    sequential = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2)])
    inputs = tf.keras.Input((2,))
    functional = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    built = tf.keras.layers.Dense(3, name="head")
    built.build((None, 2))
    paths = [[(v.name, v.path) for v in m.weights]
             for m in (net, sequential, functional, built)]
    print(repr(net.weights[0]))
    print(repr(net.weights[1]), str(sequential.weights[1]))
    print(net.weights[2].dtype, net.weights[2].shape)
    return out, paths
