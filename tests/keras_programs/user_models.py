"""Keras programs in the shape of users' code (tutorials, questions and answers) that once
differed from TensorFlow: the order of the logs that callbacks, ``evaluate`` and
``train_on_batch`` give, ``metrics_names``, initializers called directly, the image
preprocessing layers, metrics and losses named by their class, optimizers' default names,
custom layers registered for saving, summaries of nested models, and inputs of one rank less
or more than a model declares."""

import os
import tempfile

import numpy as np

from tests.keras_programs import deterministic_weights
from tests.tf_programs import error_name


def logs_in_keras_order(tf):
    x = np.linspace(-1, 1, 16).reshape(8, 2).astype("float32")
    y = (x[:, :1] > 0).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, "sigmoid")])
    deterministic_weights(model, seed=90)
    model.compile(tf.keras.optimizers.SGD(0.1), "binary_crossentropy",
                  metrics=["mse", "accuracy", tf.keras.metrics.AUC(name="auc")])

    class Show(tf.keras.callbacks.Callback):
        def on_train_batch_end(self, batch, logs=None):
            print("train batch", batch, list(logs))

        def on_test_end(self, logs=None):
            print("test end", list(logs))

    model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False, validation_data=(x, y),
              callbacks=[Show()])
    print(model.evaluate(x, y, verbose=0, return_dict=True))
    print(model.train_on_batch(x, y, return_dict=True))
    print(model.test_on_batch(x, y, return_dict=True))
    return model.metrics_names, model.evaluate(x, y, verbose=0)


def metrics_names_of_two_outputs(tf):
    inputs = tf.keras.Input((2,))
    model = tf.keras.Model(inputs, [tf.keras.layers.Dense(1, name="first")(inputs),
                                    tf.keras.layers.Dense(1, name="second")(inputs)])
    model.compile("sgd", ["mse", "mae"], metrics=[["mae"], ["mse"]])
    before = model.metrics_names
    x = np.ones((4, 2), "float32")
    logs = model.evaluate(x, [x[:, :1], x[:, 1:]], verbose=0, return_dict=True)
    return before, model.metrics_names, list(logs)


def initializers_called_directly(tf):
    init = tf.keras.initializers
    seeded = init.GlorotUniform(seed=3)((4, 5))
    return (init.Constant(3.0)((2,)), init.Identity()((2, 3)), init.Zeros()((2,), dtype="int32"),
            init.Ones()(shape=[1, 2], dtype=tf.float64), tf.is_tensor(seeded),
            seeded.shape.as_list(), bool(np.all(np.abs(seeded.numpy()) <= np.sqrt(6 / 9))),
            tf.Variable(init.Constant(0.5)(shape=(2, 2))).numpy())


def image_preprocessing_layers(tf):
    rng = np.random.default_rng(91)
    quarter = rng.uniform(0, 255, (8, 3, 4, 3)).astype("float32")
    half = np.concatenate([quarter, quarter[:, :, ::-1]], axis=2)
    images = np.concatenate([half, half[:, ::-1]], axis=1)  # symmetric: flips change nothing
    labels = rng.integers(0, 2, 8)
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input((6, 8, 3)), layers.Rescaling(1 / 255.0), layers.RandomFlip("horizontal"),
        layers.RandomFlip(), layers.Resizing(4, 4, crop_to_aspect_ratio=True),
        layers.CenterCrop(2, 2), layers.Flatten(), layers.Dense(2, activation="softmax")])
    deterministic_weights(model, seed=91)
    model.compile(tf.keras.optimizers.SGD(0.1), "sparse_categorical_crossentropy")
    history = model.fit(images, labels, batch_size=4, epochs=2, shuffle=False, verbose=0)
    photo = images[:2].astype("uint8")
    return (history.history, model.predict(images[:2], verbose=0),
            [layer.output.shape for layer in model.layers],
            layers.Resizing(3, 5)(images[0]), layers.Resizing(4, 3, "nearest")(photo),
            layers.CenterCrop(8, 4)(images[:1]), layers.CenterCrop(3, 3)(photo),
            layers.RandomFlip("vertical")(photo, training=False),
            layers.Resizing(2, 2).get_config()["interpolation"])


def weight_and_metric_variable_names(tf):
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, name="hidden"),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(1)])

    class Scale(tf.keras.layers.Layer):
        def build(self, input_shape):
            self.factor = self.add_weight(name="factor", shape=(2,))
            self.unnamed = self.add_weight(shape=(1,), trainable=False)

    scale = Scale(name="scale")
    scale.build((None, 2))
    mean = tf.keras.metrics.Mean(name="running")
    precision = tf.keras.metrics.Precision()
    return ([w.name for w in model.weights], [w.name for w in model.trainable_variables],
            [w.name for w in scale.weights], [v.name for v in mean.variables],
            [v.name for v in precision.variables], model.layers[0].kernel.name)


def f1_scores(tf):
    y_true = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 0]], "float32")
    y_pred = np.array([[0.1, 0.7, 0.2], [0.5, 0.4, 0.1], [0.3, 0.3, 0.4], [0.6, 0.2, 0.2]],
                      "float32")
    results = []
    for options in ({}, {"average": "micro"}, {"average": "macro"}, {"average": "weighted"},
                    {"threshold": 0.35}, {"average": "macro", "threshold": 0.5}):
        metric = tf.keras.metrics.F1Score(**options)
        metric.update_state(y_true, y_pred)
        metric.update_state(y_true[:2], y_pred[::-1][:2], sample_weight=[1.0, 2.0])
        results.append((metric.result(), [v.name for v in metric.variables], metric.name))
    fbeta = tf.keras.metrics.FBetaScore(beta=2.0, average="macro")
    fbeta.update_state(y_true, y_pred)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(3, "softmax")])
    model.set_weights([np.eye(3, dtype="float32"), np.zeros(3, "float32")])
    model.compile("sgd", "categorical_crossentropy",
                  metrics=[tf.keras.metrics.F1Score(average="macro"),
                           tf.keras.metrics.F1Score(name="f1_per_class")])
    history = model.fit(y_pred, y_true, epochs=1, verbose=2, shuffle=False)
    return (results, fbeta.result(), fbeta.name, history.history,
            model.evaluate(y_pred, y_true, verbose=0, return_dict=True))


def custom_loss_function_and_metric_class(tf):
    def huber_fn(y_true, y_pred):  # per value, the last axis not reduced
        error = y_true - y_pred
        return tf.where(tf.abs(error) < 1, tf.square(error) / 2, tf.abs(error) - 0.5)

    class MyMAE(tf.keras.metrics.Metric):
        def __init__(self, name="my_mae", **kwargs):
            super().__init__(name=name, **kwargs)
            self.sum_of_errors = self.add_weight(name="sum_of_errors", initializer="zeros")
            self.seen = self.add_weight(name="seen", initializer="zeros")

        def update_state(self, y_true, y_pred, sample_weight=None):
            self.sum_of_errors.assign_add(tf.reduce_sum(tf.abs(y_true - y_pred)))
            self.seen.assign_add(tf.cast(tf.size(y_true), tf.float32))

        def result(self):
            return self.sum_of_errors / self.seen

    rng = np.random.default_rng(92)
    x = rng.normal(size=(30, 3)).astype("float32")
    y = x @ np.array([[2.0], [4.0], [-2.0]], "float32")
    weights = np.linspace(0.5, 1.5, 30)
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.set_weights([np.zeros((3, 1), "float32"), np.zeros(1, "float32")])
    model.compile(tf.keras.optimizers.SGD(0.05), loss=huber_fn, metrics=[MyMAE(), "mae"])
    history = model.fit(x, y, epochs=3, batch_size=10, shuffle=False, verbose=0,
                        sample_weight=weights)
    metric = MyMAE()
    metric.update_state(tf.constant([1.0, 2.0]), tf.constant([1.5, 1.0]))
    before_reset = metric.result()
    metric.reset_state()
    return (history.history, model.evaluate(x, y, verbose=0, sample_weight=weights,
                                            return_dict=True), model.get_weights(),
            before_reset, [v.name for v in metric.variables], [v.numpy() for v in metric.variables],
            tf.keras.losses.MeanSquaredError()(y[:4], y[:4] * 0.5, sample_weight=weights[:4]))


def model_summaries(tf):
    layers = tf.keras.layers
    cnn = tf.keras.Sequential([tf.keras.Input((12, 12, 1)), layers.Conv2D(4, 3, activation="relu"),
                               layers.MaxPooling2D(), layers.Flatten(), layers.Dropout(0.2),
                               layers.Dense(10)], name="cnn")
    cnn.summary(line_length=76)
    first, second = tf.keras.Input((3,), name="a"), tf.keras.Input((3,), name="b")
    shared = layers.Dense(2, name="shared")
    added = layers.Add()([shared(first), shared(second)])
    two = tf.keras.Model([first, second], [added, layers.Dense(1, name="x")(added)])
    two.summary(line_length=76)
    features = tf.keras.Input((4,), name="features")
    chain = tf.keras.Model(features, layers.Dense(1)(layers.Dense(3)(features)))
    chain.compile("adam", "mse")
    chain.summary(line_length=70, positions=[0.5, 0.8, 1.0])
    unbuilt = tf.keras.Sequential([layers.Dense(2), layers.Dense(1, name="a_very_long_layer_name")])
    unbuilt.summary(line_length=60)
    unbuilt(np.ones((2, 3), "float32"))
    texts = []
    unbuilt.summary(line_length=60, print_fn=texts.append)
    return two.name, chain.name, len(texts), texts[0].count("\n")


def depthwise_and_separable_convolutions(tf):
    rng = np.random.default_rng(93)
    x = rng.normal(size=(4, 7, 7, 3)).astype("float32")
    y = rng.integers(0, 2, 4)
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input((7, 7, 3)),
        layers.DepthwiseConv2D(3, padding="same", depth_multiplier=2, activation="relu"),
        layers.SeparableConv2D(4, 3, strides=2),
        layers.SeparableConv2D(2, (2, 2), depth_multiplier=2, use_bias=False, padding="same"),
        layers.GlobalAveragePooling2D(), layers.Dense(2)])
    deterministic_weights(model, seed=93)
    before = model(x)
    model.compile(tf.keras.optimizers.SGD(0.1),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    history = model.fit(x, y, epochs=2, batch_size=2, shuffle=False, verbose=0)
    strided = layers.DepthwiseConv2D((2, 2), strides=(2, 2))
    return ([(v.name, tuple(v.shape)) for v in model.weights], before, history.history,
            model.get_weights(), strided(x).shape.as_list(),
            "filters" in strided.get_config(), strided.get_config()["depth_multiplier"],
            model.count_params(),
            [tuple(layer.output.shape) for layer in model.layers])


def discretization_of_features(tf):
    layer = tf.keras.layers.Discretization(bin_boundaries=[0.0, 1.0, 2.5])
    features = np.array([[-1.0, 0.0, 0.5], [1.0, 2.5, 7.0]], "float32")
    model = tf.keras.Sequential([tf.keras.Input((3,)), layer])
    return (layer(tf.constant([-1.0, 0.5, 1.5, 3.0])), layer(features),
            model.predict(features, verbose=0), layer.get_config()["bin_boundaries"])


def _separable(n=24, features=4, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, features)).astype("float32")
    return x, (x.sum(axis=1, keepdims=True) > 0).astype("float32")


def metrics_and_losses_by_class_name(tf):
    x, y = _separable(seed=94)
    model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1, "sigmoid")])
    deterministic_weights(model, seed=94)
    model.compile("adam", "BinaryCrossentropy",
                  metrics=["accuracy", "AUC", "Precision", "Recall", "BinaryAccuracy",
                           "MeanSquaredError", "mse"])
    history = model.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False)
    regression = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
    deterministic_weights(regression, seed=95)
    regression.compile("sgd", loss="MeanSquaredError", metrics=["MeanAbsoluteError"])
    return (history.history, model.metrics_names,
            regression.fit(x, y, epochs=2, batch_size=8, verbose=0, shuffle=False).history)


def optimizer_names_configs_and_learning_rate_assigned(tf):
    optimizers = tf.keras.optimizers
    names = [optimizer().name for optimizer in (optimizers.SGD, optimizers.Adam, optimizers.AdamW,
                                                optimizers.RMSprop, optimizers.Adagrad,
                                                optimizers.Nadam)]
    optimizer = optimizers.Adam(learning_rate=0.01)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=96)
    model.compile(optimizer, "mse")
    x, y = np.ones((4, 2), "float32"), np.zeros((4, 1), "float32")
    model.fit(x, y, epochs=1, verbose=0)
    optimizer.learning_rate.assign(0.001)
    model.fit(x, y, epochs=1, verbose=0)
    config = optimizer.get_config()
    return (names, optimizers.Adam(name="mine").name, float(optimizer.learning_rate),
            config["name"], config["beta_1"], config["learning_rate"], int(optimizer.iterations),
            model.get_weights())


def registered_custom_layer_saved_and_loaded(tf):
    @tf.keras.utils.register_keras_serializable(package="user_models")
    class Times(tf.keras.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, x):
            return x * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2), Times(3.0)])
    deterministic_weights(model, seed=97)
    x = np.ones((2, 3), "float32")
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.keras")
        model.save(path)
        loaded = tf.keras.models.load_model(path)
    return (model(x), loaded(x), type(loaded.layers[-1]).__name__, loaded.layers[-1].factor,
            "user_models>Times" in tf.keras.utils.get_custom_objects())


def embedding_gru_text_classifier(tf):
    rng = np.random.default_rng(98)
    x = rng.integers(1, 20, size=(12, 6))
    y = (x[:, 0] > 10).astype("int32")
    model = tf.keras.Sequential([tf.keras.Input((6,), dtype="int32"),
                                 tf.keras.layers.Embedding(20, 4), tf.keras.layers.GRU(5),
                                 tf.keras.layers.Dense(2, activation="softmax")])
    deterministic_weights(model, seed=98)
    model.compile("rmsprop", "sparse_categorical_crossentropy",
                  metrics=["sparse_categorical_accuracy"])
    history = model.fit(x, y, epochs=2, batch_size=4, verbose=0, shuffle=False)
    return history.history, model.evaluate(x, y, verbose=0)


def functional_outputs_by_name_with_loss_dicts(tf):
    inputs = tf.keras.Input((4,), name="inp")
    hidden = tf.keras.layers.Dense(6, activation="relu")(inputs)
    outputs = {"reg": tf.keras.layers.Dense(1, name="reg")(hidden),
               "cls": tf.keras.layers.Dense(3, "softmax", name="cls")(hidden)}
    model = tf.keras.Model(inputs, outputs)
    deterministic_weights(model, seed=99)
    x, _ = _separable(seed=99)
    targets = {"reg": x[:, :1] * 2, "cls": np.abs(x[:, 0] * 3).astype(int) % 3}
    model.compile("sgd", loss={"reg": "mse", "cls": "sparse_categorical_crossentropy"},
                  loss_weights={"reg": 1.0, "cls": 0.5}, metrics={"cls": "accuracy", "reg": "mae"})
    history = model.fit(x, targets, epochs=2, batch_size=8, verbose=0, shuffle=False)
    return (history.history, sorted(model.predict(x[:2], verbose=0)),
            model.evaluate(x, targets, verbose=0, return_dict=True))


def flatten_dense_classifier_verbose(tf):
    rng = np.random.default_rng(100)
    x = rng.uniform(0, 255, size=(20, 6, 6)).astype("uint8") / 255.0
    y = rng.integers(0, 3, size=(20,))
    model = tf.keras.models.Sequential([tf.keras.layers.Flatten(input_shape=(6, 6)),
                                        tf.keras.layers.Dense(8, activation="relu"),
                                        tf.keras.layers.Dense(3)])
    deterministic_weights(model, seed=100)
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    print(loss(y[:2], model(x[:2]).numpy()).numpy())
    model.compile(optimizer="adam", loss=loss, metrics=["accuracy"])
    model.fit(x, y, epochs=2, batch_size=8, shuffle=False)
    model.evaluate(x, y, verbose=2)
    probabilities = tf.keras.Sequential([model, tf.keras.layers.Softmax()])
    return probabilities(x[:2]), model.evaluate(x, y, verbose=0)


def custom_train_step_with_a_loss_tracker(tf):
    class Regressor(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = tf.keras.layers.Dense(4, activation="tanh")
            self.out = tf.keras.layers.Dense(1)
            self.loss_tracker = tf.keras.metrics.Mean(name="loss")

        def call(self, x, training=False):
            return self.out(self.hidden(x))

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
            gradients = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(gradients, self.trainable_variables))
            self.loss_tracker.update_state(loss)
            return {"loss": self.loss_tracker.result()}

        @property
        def metrics(self):
            return [self.loss_tracker]

    x, y = _separable(seed=101)
    model = Regressor()
    model(x[:1])
    deterministic_weights(model, seed=101)
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05))
    history = model.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False)
    return history.history, model(x[:2])


def summaries_expanded_and_with_trainable_flags(tf):
    class Block(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.first = tf.keras.layers.Dense(4, activation="relu")
            self.second = tf.keras.layers.Dense(2)

        def call(self, x):
            return self.second(self.first(x))

    block = Block()
    block(np.ones((1, 3), "float32"))
    block.summary(expand_nested=True, show_trainable=True, line_length=84)
    inner = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)], name="inner")
    outer = tf.keras.Sequential([tf.keras.Input((3,)), inner, tf.keras.layers.Dense(1)],
                                name="outer")
    outer.summary(expand_nested=True, line_length=76)
    features = tf.keras.Input((3,), name="x")
    base = tf.keras.Model(features, tf.keras.layers.Dense(2, name="b1")(features), name="base")
    base.trainable = False
    inputs = tf.keras.Input((3,), name="y")
    top = tf.keras.Model(inputs, tf.keras.layers.Dense(1, name="head")(base(inputs)), name="top")
    top.summary(expand_nested=True, show_trainable=True, line_length=84)
    first, second = tf.keras.Input((2,), name="a"), tf.keras.Input((2,), name="b")
    shared = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2, name="s")],
                                 name="shared")
    two = tf.keras.Model([first, second], tf.keras.layers.Add()([shared(first), shared(second)]),
                         name="two")
    two.summary(expand_nested=True, show_trainable=True, line_length=110)
    outer.summary(show_trainable=True, line_length=70)
    return block.count_params(), top.count_params()


def inputs_of_one_rank_less_or_more_and_checked_sizes(tf):
    line = tf.keras.Sequential([tf.keras.Input((1,)),
                                tf.keras.layers.Dense(1, kernel_initializer="ones")])
    x = np.arange(4, dtype="float32")
    three = tf.keras.Sequential([tf.keras.Input((3,)),
                                 tf.keras.layers.Dense(2, kernel_initializer="ones")])
    inputs = tf.keras.Input((2,))
    functional = tf.keras.Model(inputs,
                                tf.keras.layers.Dense(1, kernel_initializer="ones")(inputs))
    line.compile(tf.keras.optimizers.SGD(0.01), "mse")
    history = line.fit(x, x * 2, epochs=2, verbose=0, shuffle=False)
    celsius = np.array([-40, -10, 0, 8, 15, 22, 38], dtype=float)
    fahrenheit = np.array([-40, 14, 32, 46, 59, 72, 100], dtype=float)
    hello = tf.keras.Sequential([tf.keras.layers.Dense(units=1, input_shape=[1],
                                                       kernel_initializer="ones")])
    hello.compile(loss="mean_squared_error", optimizer=tf.keras.optimizers.Adam(0.1))
    trained = hello.fit(celsius, fahrenheit, epochs=5, verbose=False)
    return (line(x), line.predict(x, verbose=0), history.history,
            three.predict(np.ones((2, 3, 1), "float32"), verbose=0),
            three(np.ones((2, 3, 1), "float32")),
            functional.predict(np.ones((2, 2, 1), "float32"), verbose=0),
            error_name(lambda: three(np.ones((2, 4), "float32"))),
            error_name(lambda: three(np.ones((2, 3, 2), "float32"))),
            error_name(lambda: tf.keras.layers.Dense(2)(np.ones(3, "float32"))),
            error_name(lambda: three.predict(np.ones((2, 4), "float32"), verbose=0)),
            trained.history, hello.predict(np.array([100.0]), verbose=0))
