"""The three ways to build a model: Sequential, functional (two inputs), subclassed with a
custom layer; each compiled, fitted, evaluated and used to predict."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def sequential_fit_evaluate_predict_verbose(tf):
    x, y = data(24, 3)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    history = model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=1)
    scores = model.evaluate(x, y, batch_size=8, verbose=1)
    predictions = model.predict(x[:5], verbose=1)
    return history.history, history.epoch, scores, predictions, model.get_weights()


def functional_two_inputs(tf):
    x, y = data(20, 5, seed=1)
    left = tf.keras.Input(shape=(3,), name="left")
    right = tf.keras.Input(shape=(2,), name="right")
    a = tf.keras.layers.Dense(4, activation="relu")(left)
    b = tf.keras.layers.Dense(2, activation="sigmoid")(right)
    merged = tf.keras.layers.concatenate([a, b])
    out = tf.keras.layers.Dense(1)(merged)
    model = tf.keras.Model(inputs=[left, right], outputs=out)
    deterministic_weights(model, seed=1)
    model.compile(tf.keras.optimizers.Adam(0.02), "mse")
    history = model.fit([x[:, :3], x[:, 3:]], y, epochs=3, batch_size=5, shuffle=False,
                        verbose=0)
    return (history.history, model.predict([x[:4, :3], x[:4, 3:]], verbose=0),
            [layer.name for layer in model.layers[2:]], model.count_params())


def subclassed_with_custom_layer(tf):
    class Scale(tf.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)

        def build(self, input_shape):
            self.gain = self.add_weight(name="gain", shape=(input_shape[-1],),
                                        initializer="ones")
            self.shift = self.add_weight(name="shift", shape=(), initializer="zeros")

        def call(self, inputs):
            return inputs * self.gain + self.shift

    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(5, activation="tanh")
            self.scale = Scale()
            self.out = tf.keras.layers.Dense(2)

        def call(self, inputs, training=None):
            return self.out(self.scale(self.hidden(inputs)))

    x, y = data(16, 4, outputs=2, seed=2)
    model = Net()
    model(x[:1])
    deterministic_weights(model, seed=2)
    model.compile(tf.keras.optimizers.RMSprop(0.01), "mae")
    history = model.fit(x, y, epochs=3, batch_size=4, shuffle=False, verbose=0)
    return (history.history, model.get_weights(), len(model.trainable_variables),
            model.predict(x[:3], verbose=0))


def subclassed_training_flag_and_dropout(tf):
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(3, kernel_initializer="ones")
            self.dropout = tf.keras.layers.Dropout(0.5)

        def call(self, inputs, training=None):
            x = self.dense(inputs)
            if training:
                x = self.dropout(x, training=training)
            return x * 2.0

    model = Net()
    x = np.arange(6, dtype="float32").reshape(2, 3)
    return model(x, training=False), model.predict(x, verbose=0), model(x)


def frozen_layer_is_not_trained(tf):
    x, y = data(12, 3, seed=3)
    first = tf.keras.layers.Dense(3, activation="relu")
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), first, tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=3)
    first.trainable = False
    before = first.get_weights()
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return (before, first.get_weights(), model.get_weights(), len(model.trainable_weights),
            len(model.non_trainable_weights))


def sequential_add_and_layers(tf):
    model = tf.keras.Sequential()
    model.add(tf.keras.Input(shape=(4,)))
    model.add(tf.keras.layers.Dense(3, activation="relu", name="hidden"))
    model.add(tf.keras.layers.Dense(2, activation="softmax", name="probabilities"))
    deterministic_weights(model, seed=4)
    x = np.linspace(-1, 1, 8, dtype="float32").reshape(2, 4)
    return ([layer.name for layer in model.layers], model.count_params(),
            [w.shape for w in model.get_weights()], model(x), model.layers[0](x))


def functional_layer_and_weight_order(tf):
    # Keras lists a functional model's layers by depth from the outputs, ties in the order a
    # walk from the outputs reaches them: here not the order the layers were called in.
    inputs = tf.keras.Input(shape=(3,))
    deep = tf.keras.layers.Dense(6, name="deep")(tf.keras.layers.Dense(4, name="first")(inputs))
    short = tf.keras.layers.Dense(5, name="short")(inputs)
    late = tf.keras.Input(shape=(2,), name="late")
    merged = tf.keras.layers.concatenate([short, late, deep])
    model = tf.keras.Model([inputs, late], tf.keras.layers.Dense(1, name="out")(merged))
    return ([layer.name for layer in model.layers[1:]],
            [tuple(w.shape) for w in model.get_weights()])


def functional_inputs_by_name(tf):
    x, y = data(12, 5, seed=7)
    first = tf.keras.Input(shape=(3,), name="first")
    second = tf.keras.Input(shape=(2,), name="second")
    merged = tf.keras.layers.concatenate([tf.keras.layers.Dense(2)(first), second])
    model = tf.keras.Model(inputs=[first, second], outputs=tf.keras.layers.Dense(1)(merged))
    deterministic_weights(model, seed=7)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    inputs = {"second": x[:, 3:], "first": x[:, :3]}
    history = model.fit(inputs, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.predict(inputs, verbose=0)[:3], model(inputs)[:2]


def shapes_inputs_outputs_and_feature_extractors(tf):
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                                 tf.keras.layers.Dense(5, activation="relu", name="hidden"),
                                 tf.keras.layers.Dense(2, name="head")])
    deterministic_weights(model, seed=40)
    features = tf.keras.Model(inputs=model.inputs, outputs=model.layers[-2].output)
    inputs = tf.keras.Input(shape=(3,))
    middle = tf.keras.layers.Dense(4, activation="tanh")(inputs)
    functional = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(middle))
    deterministic_weights(functional, seed=41)
    cut = tf.keras.Model(functional.input, functional.layers[1].output)
    x, _ = data(3, 4, seed=40)
    return (model.input_shape, model.output_shape, functional.input_shape,
            functional.output_shape, model.layers[0].output.shape, features.output_shape,
            features.predict(x, verbose=0), model.predict(x, verbose=0),
            cut.predict(x[:, :3], verbose=0), len(features.layers), len(cut.weights))


def frozen_base_model_then_fine_tuned(tf):
    # Transfer learning: a model called as a layer with training=False, frozen, then unfrozen.
    # As in Keras 3, fit's training=True replaces the training=False of the call once the base
    # is trainable, and freezing the base freezes (and puts in inference mode) its layers.
    x, y = data(16, 3, seed=5)
    base = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                tf.keras.layers.Dense(4, activation="tanh"),
                                tf.keras.layers.BatchNormalization()], name="base")
    deterministic_weights(base.layers[0], seed=5)
    base.trainable = False
    inputs = tf.keras.Input(shape=(3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(base(inputs, training=False)))
    deterministic_weights(model.layers[-1], seed=6)
    counts = (len(model.weights), len(model.trainable_weights), len(model.non_trainable_weights))
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    frozen = model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0)
    base_after_frozen = base.get_weights()
    base.trainable = True
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    tuned = model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0)
    return ([type(layer).__name__ for layer in model.layers], counts, frozen.history,
            base_after_frozen, tuned.history, model.get_weights(), model.predict(x[:4], verbose=0))


def models_as_layers_of_sequential_and_functional_models(tf):
    x, y = data(12, 3, seed=8)
    inner_inputs = tf.keras.Input(shape=(3,))
    inner = tf.keras.Model(inner_inputs, tf.keras.layers.Dense(4, activation="relu")(inner_inputs),
                           name="inner")
    stacked = tf.keras.Sequential([inner, tf.keras.layers.Dense(1)])
    deterministic_weights(stacked, seed=8)
    stacked.compile(tf.keras.optimizers.Adam(0.05), "mse")
    history = stacked.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    inputs = tf.keras.Input(shape=(3,))
    joined = tf.keras.Model(inputs, tf.keras.layers.Dense(
        2, kernel_initializer="ones", name="head")(inner(inputs)))  # the trained inner weights
    return (history.history, stacked.input_shape, stacked.output_shape,
            [layer.name for layer in stacked.layers], len(stacked.weights), joined.output_names,
            joined.predict(x[:3], verbose=0), stacked.predict(x[:3], verbose=0))


def custom_layer_giving_back_its_sub_layers_output(tf):
    class Block(tf.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = tf.keras.layers.Dense(3, kernel_initializer="ones")

        def call(self, inputs):
            return self.inner(inputs)

    inputs = tf.keras.Input(shape=(4,))
    model = tf.keras.Model(inputs, Block()(inputs))
    return model.output_shape, len(model.weights), model.predict(np.ones((2, 4), "float32"),
                                                                 verbose=0)


def raw_variable_attribute_is_not_trained(tf):
    class Scaled(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(1, kernel_initializer="ones")
            self.scale = tf.Variable(1.0)  # a tf.Variable: Keras 3 does not track it

        def call(self, x):
            return self.dense(x) * self.scale

    model = Scaled()
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    model.fit(np.ones((4, 2), "float32"), np.zeros((4, 1), "float32"), epochs=2, verbose=0)
    return len(model.trainable_variables), float(model.scale.numpy()), model.get_weights()
