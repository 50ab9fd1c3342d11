"""Keras' optimizers and learning-rate schedules, each training the same small model."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _train(tf, optimizer, epochs=3, seed=20):
    x, y = data(12, 3, seed=seed)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=seed)
    model.compile(optimizer, "mse")
    history = model.fit(x, y, epochs=epochs, batch_size=4, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights()


def sgd_plain(tf):
    return _train(tf, tf.keras.optimizers.SGD(learning_rate=0.1))


def sgd_momentum(tf):
    return _train(tf, tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9))


def sgd_nesterov(tf):
    return _train(tf, tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.8, nesterov=True))


def adam(tf):
    return _train(tf, tf.keras.optimizers.Adam(learning_rate=0.02))


def adam_amsgrad(tf):
    return _train(tf, tf.keras.optimizers.Adam(learning_rate=0.02, amsgrad=True))


def rmsprop(tf):
    return _train(tf, tf.keras.optimizers.RMSprop(learning_rate=0.01, rho=0.8))


def rmsprop_centered_momentum(tf):
    return _train(tf, tf.keras.optimizers.RMSprop(0.01, momentum=0.5, centered=True))


def adamw(tf):
    return _train(tf, tf.keras.optimizers.AdamW(learning_rate=0.02, weight_decay=0.05))


def weight_decay_on_any_optimizer(tf):
    """Keras 3 gives every optimizer ``weight_decay`` (decoupled, as AdamW's), with variables
    left out by name."""
    adam = tf.keras.optimizers.Adam(0.02, weight_decay=0.1)
    adam.exclude_from_weight_decay(var_names=["bias"])
    optimizers = {"sgd": tf.keras.optimizers.SGD(0.1, momentum=0.9, weight_decay=0.05),
                  "rmsprop": tf.keras.optimizers.RMSprop(0.01, weight_decay=0.2),
                  "adam_without_biases": adam}
    return {name: (_train(tf, optimizer, epochs=2), optimizer.weight_decay)
            for name, optimizer in optimizers.items()}


def adagrad(tf):
    return _train(tf, tf.keras.optimizers.Adagrad(learning_rate=0.1,
                                                  initial_accumulator_value=0.2))


def optimizer_by_name_and_learning_rate(tf):
    x, y = data(8, 3, seed=21)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=21)
    model.compile("adam", "mse")
    model.fit(x, y, epochs=1, batch_size=4, shuffle=False, verbose=0)
    return (float(model.optimizer.learning_rate), int(model.optimizer.iterations),
            model.get_weights())


def exponential_decay_staircase(tf):
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=2,
                                                              decay_rate=0.5, staircase=True)
    return _train(tf, tf.keras.optimizers.SGD(schedule)), [float(schedule(s)) for s in range(5)]


def learning_rate_of_a_schedule_and_configs(tf):
    # Keras 3 reads a schedule's learning_rate as its value at the current step.
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.01, 4, 0.5, staircase=True)
    optimizer = tf.keras.optimizers.Adam(learning_rate=schedule)
    weight = tf.Variable([1.0, -1.0])
    rates = []
    for _ in range(5):
        optimizer.apply_gradients([(tf.constant([0.1, 0.2]), weight)])
        rates.append(float(optimizer.learning_rate))
    config = optimizer.get_config()
    some = {key: config[key] for key in ("learning_rate", "beta_1", "amsgrad")}
    rebuilt = tf.keras.optimizers.Adam.from_config(config)  # Keras' deserializes in config
    sgd = tf.keras.optimizers.SGD(0.5, momentum=0.9, nesterov=True, clipnorm=1.0)
    sgd_config = {key: value for key, value in sgd.get_config().items() if key != "name"}
    return (rates, weight, some, float(rebuilt.learning_rate), sgd_config,
            tf.keras.optimizers.SGD.from_config(sgd.get_config()).momentum,
            tf.keras.optimizers.schedules.deserialize(
                tf.keras.optimizers.schedules.serialize(schedule)).get_config())


def piecewise_constant_decay(tf):
    schedule = tf.keras.optimizers.schedules.PiecewiseConstantDecay([3, 6], [0.1, 0.05, 0.01])
    return _train(tf, tf.keras.optimizers.SGD(schedule)), [float(schedule(s)) for s in range(8)]


def inverse_time_and_cosine_decay(tf):
    inverse = tf.keras.optimizers.schedules.InverseTimeDecay(0.05, decay_steps=2, decay_rate=0.5)
    cosine = tf.keras.optimizers.schedules.CosineDecay(0.05, decay_steps=6, alpha=0.1)
    polynomial = tf.keras.optimizers.schedules.PolynomialDecay(0.05, decay_steps=5,
                                                               end_learning_rate=0.01, power=2.0)
    values = [[float(s(step)) for step in range(8)] for s in (inverse, cosine, polynomial)]
    return _train(tf, tf.keras.optimizers.Adam(cosine)), values


def embedding_rows_with_each_optimizer(tf):
    """Batches that repeat ids: TensorFlow gives each optimizer the embedding's gradient as
    rows (IndexedSlices, one per id looked up), which SGD subtracts one by one and Adam,
    RMSprop and Adagrad square one by one before adding them into their slots."""
    optimizers = {
        "sgd": tf.keras.optimizers.SGD(0.3),
        "nesterov": tf.keras.optimizers.SGD(0.3, momentum=0.7, nesterov=True),
        "adam_amsgrad": tf.keras.optimizers.Adam(0.1, amsgrad=True),
        "adamw": tf.keras.optimizers.AdamW(0.1, weight_decay=0.1),
        "rmsprop": tf.keras.optimizers.RMSprop(0.05),
        "rmsprop_centered_momentum": tf.keras.optimizers.RMSprop(0.05, momentum=0.5,
                                                                 centered=True),
        "adagrad": tf.keras.optimizers.Adagrad(0.3),
    }
    return {name: _embedding_fit(tf, optimizer) for name, optimizer in optimizers.items()}


def _embedding_fit(tf, optimizer):
    ids = np.array([[1, 3, 1, 1], [4, 1, 0, 3], [2, 2, 5, 2], [0, 5, 5, 1]], "int32")
    y = np.linspace(-1.0, 1.0, 8).reshape(4, 2).astype("float32")
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,), dtype="int32"),
                                 tf.keras.layers.Embedding(6, 3),
                                 tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(2)])
    deterministic_weights(model, seed=22)
    model.compile(optimizer, "mse")
    history = model.fit(ids, y, epochs=3, batch_size=2, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights()


def gradient_clipping_options(tf):
    """clipnorm, global_clipnorm and clipvalue, on a dense model and on an embedding, whose
    rows are clipped as rows (a norm over the rows, each row limited) before Keras makes the
    gradient dense for the update."""
    options = {"clipnorm": lambda: tf.keras.optimizers.Adam(0.05, clipnorm=0.5),
               "global_clipnorm": lambda: tf.keras.optimizers.SGD(0.2, global_clipnorm=0.3),
               "clipvalue": lambda: tf.keras.optimizers.RMSprop(0.02, clipvalue=0.05)}
    return {name: (_train(tf, make(), epochs=2), _embedding_fit(tf, make()))
            for name, make in options.items()}


def adadelta(tf):
    return _train(tf, tf.keras.optimizers.Adadelta(learning_rate=1.0, rho=0.9))


def adamax(tf):
    return _train(tf, tf.keras.optimizers.Adamax(learning_rate=0.02, beta_2=0.99))


def nadam(tf):
    return _train(tf, tf.keras.optimizers.Nadam(learning_rate=0.02))


def ftrl(tf):
    """FTRL with every regularization on: entries within the L1 strength become exactly 0."""
    return _train(tf, tf.keras.optimizers.Ftrl(
        learning_rate=0.2, learning_rate_power=-0.6, l1_regularization_strength=0.01,
        l2_regularization_strength=0.02, l2_shrinkage_regularization_strength=0.01, beta=0.5))


def lion(tf):
    return _train(tf, tf.keras.optimizers.Lion(learning_rate=0.01, beta_1=0.8))


def more_optimizers_by_name(tf):
    """Keras' default settings of each optimizer, asked for by name."""
    return {name: _train(tf, name, epochs=1) for name in
            ("adadelta", "adamax", "nadam", "ftrl", "lion")}


def more_optimizers_with_a_schedule(tf):
    """A schedule gets the step; Adamax and Nadam also correct their bias with it."""
    def schedule():
        return tf.keras.optimizers.schedules.InverseTimeDecay(0.05, decay_steps=2,
                                                              decay_rate=0.5)
    return {"adamax": _train(tf, tf.keras.optimizers.Adamax(schedule())),
            "nadam": _train(tf, tf.keras.optimizers.Nadam(schedule())),
            "ftrl": _train(tf, tf.keras.optimizers.Ftrl(schedule(), beta=0.1))}


def more_optimizers_clipped_and_decayed(tf):
    options = {
        "adadelta_clipvalue": lambda: tf.keras.optimizers.Adadelta(1.0, clipvalue=0.05),
        "adamax_clipnorm": lambda: tf.keras.optimizers.Adamax(0.05, clipnorm=0.3),
        "nadam_global_clipnorm": lambda: tf.keras.optimizers.Nadam(0.05, global_clipnorm=0.3),
        "ftrl_weight_decay": lambda: tf.keras.optimizers.Ftrl(0.2, weight_decay=0.1),
        "lion_weight_decay": lambda: tf.keras.optimizers.Lion(0.01, weight_decay=0.5),
    }
    return {name: (_train(tf, make(), epochs=2), _embedding_fit(tf, make()))
            for name, make in options.items()}


def embedding_rows_with_more_optimizers(tf):
    """Batches that repeat ids, so each optimizer gets rows: Adadelta keeps its step as rows
    (each row divided by its id's averages, squared into a slot one by one, added one by
    one); Adamax takes each row's absolute value before adding a repeated id's rows into its
    norm; Nadam squares rows into its velocity; Ftrl squares rows into its accumulator; Lion
    scales rows before adding them up."""
    optimizers = {
        "adadelta": tf.keras.optimizers.Adadelta(1.0),
        "adamax": tf.keras.optimizers.Adamax(0.1),
        "nadam": tf.keras.optimizers.Nadam(0.1),
        "ftrl": tf.keras.optimizers.Ftrl(0.3, l1_regularization_strength=0.001,
                                         l2_shrinkage_regularization_strength=0.01),
        "lion": tf.keras.optimizers.Lion(0.02),
    }
    return {name: _embedding_fit(tf, optimizer) for name, optimizer in optimizers.items()}


def moving_average_of_the_weights(tf):
    """use_ema: the averages are written into the weights every ema_overwrite_frequency
    updates (here after updates 4 and 8 of 9) and when fit ends."""
    optimizers = {
        "adam_overwrite_every_4": tf.keras.optimizers.Adam(
            0.05, use_ema=True, ema_momentum=0.8, ema_overwrite_frequency=4),
        "sgd_at_the_end": tf.keras.optimizers.SGD(0.1, momentum=0.5, use_ema=True),
    }
    return {name: (_train(tf, optimizer), optimizer.use_ema, optimizer.ema_momentum)
            for name, optimizer in optimizers.items()}


def _accumulating_fit(tf, optimizer, run_eagerly=False):
    x, y = data(14, 3, seed=23)  # 4 batches (the last of 2) per epoch: 8 calls, 2 updates
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 tf.keras.layers.Dense(4, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=23)
    model.compile(optimizer, "mse", run_eagerly=run_eagerly)
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history["loss"], model.get_weights(), int(optimizer.iterations)


def gradient_accumulation(tf):
    """gradient_accumulation_steps=3 over 8 batches: two updates with the mean of three
    batches' gradients, two batches left in the accumulators. Adam's step counts updates;
    the schedule counts batches; the moving average moves on every batch."""
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=2,
                                                              decay_rate=0.5)
    optimizers = {
        "adam": tf.keras.optimizers.Adam(0.05, gradient_accumulation_steps=3),
        "sgd_schedule_clipnorm": tf.keras.optimizers.SGD(
            schedule, momentum=0.5, clipnorm=0.2, gradient_accumulation_steps=3),
        "lion_ema": tf.keras.optimizers.Lion(0.02, use_ema=True, ema_overwrite_frequency=1,
                                             gradient_accumulation_steps=3),
    }
    return {name: _accumulating_fit(tf, optimizer) for name, optimizer in optimizers.items()}


def gradient_accumulation_of_rows(tf):
    """An embedding's rows are added up into the dense gradient as they are accumulated."""
    return {name: _embedding_fit(tf, make(gradient_accumulation_steps=3)) for name, make in
            {"adam": lambda **o: tf.keras.optimizers.Adam(0.1, **o),
             "adadelta": lambda **o: tf.keras.optimizers.Adadelta(1.0, **o)}.items()}


def options_run_eagerly(tf):
    """Accumulation and moving averages in a fit that runs op by op."""
    optimizer = tf.keras.optimizers.Nadam(0.05, use_ema=True, ema_overwrite_frequency=2,
                                          gradient_accumulation_steps=3)
    return _accumulating_fit(tf, optimizer, run_eagerly=True)


def loss_scale_factor(tf):
    """The loss is scaled before the gradients and they are divided back: the same training
    up to rounding (exact for a power of two); the loss logged is not scaled."""
    return {"adam_128": _train(tf, tf.keras.optimizers.Adam(0.02, loss_scale_factor=128.0)),
            "ftrl_3": _train(tf, tf.keras.optimizers.Ftrl(0.2, loss_scale_factor=3.0))}


def variable_and_layer_constraints(tf):
    clipped = tf.Variable([1.0, -2.0], constraint=lambda v: tf.clip_by_value(v, 0.0, 10.0))
    tf.keras.optimizers.SGD(1.0).apply_gradients([(tf.constant([0.5, 0.5]), clipped)])
    constraints = tf.keras.constraints
    x, y = data(8, 3, seed=27)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(3,)),
        tf.keras.layers.Dense(4, activation="tanh", kernel_constraint=constraints.NonNeg(),
                              bias_constraint=constraints.MaxNorm(0.1)),
        tf.keras.layers.Dense(1, kernel_constraint="unit_norm")])
    deterministic_weights(model, seed=27)
    model.compile(tf.keras.optimizers.Adam(0.05), "mse")
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    w = np.arange(-3, 3, dtype="float32").reshape(3, 2)
    direct = [np.asarray(c(w)) for c in (constraints.MaxNorm(2.0), constraints.NonNeg(),
                                         constraints.MinMaxNorm(0.5, 1.5, 0.7),
                                         constraints.UnitNorm(axis=1))]
    return [clipped.numpy(), clipped.constraint is not None, history.history["loss"],
            model.get_weights(), direct, constraints.serialize(constraints.MaxNorm(3)),
            constraints.get({"class_name": "UnitNorm", "config": {"axis": 1}}).get_config()]


def cosine_decay_restarts(tf):
    schedules = tf.keras.optimizers.schedules
    growing = schedules.CosineDecayRestarts(0.1, 3, t_mul=2.0, m_mul=0.5, alpha=0.1)
    even = schedules.CosineDecayRestarts(0.1, 4, t_mul=1.0)
    return ([float(growing(step)) for step in range(0, 15, 2)],
            [float(even(step)) for step in range(0, 10, 3)], growing.get_config())


def lamb(tf):
    return _train(tf, tf.keras.optimizers.Lamb(learning_rate=0.02))


def lamb_with_weight_decay(tf):
    optimizer = tf.keras.optimizers.Lamb(0.01, beta_1=0.8, weight_decay=0.01)
    loss, weights = _train(tf, optimizer)
    config = optimizer.get_config()
    return loss, weights, config["name"], config["beta_1"], config["beta_2"]


def adafactor(tf):
    return _train(tf, tf.keras.optimizers.Adafactor(learning_rate=0.1))


def adafactor_options(tf):
    optimizer = tf.keras.optimizers.Adafactor(learning_rate=0.5, beta_2_decay=-0.6,
                                              clip_threshold=0.5, relative_step=False)
    loss, weights = _train(tf, optimizer)
    config = optimizer.get_config()
    return loss, weights, [config[k] for k in ("beta_2_decay", "epsilon_1", "epsilon_2",
                                               "clip_threshold", "relative_step")]


def learning_rate_given_as_a_number_is_float32(tf):
    """A learning rate given as a number is held in float32, as Keras 3 holds it: 0.01 reads
    back as 0.009999999776482582, and a float64 model steps by that number."""
    model = tf.keras.Sequential([tf.keras.Input((2,), dtype="float64"),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones",
                                                       dtype="float64")])
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    model.compile(optimizer, "mse")
    model.fit(np.ones((4, 2)), np.full((4, 1), 3.0), epochs=1, batch_size=4, verbose=0)
    optimizer.learning_rate = 0.3
    rate = optimizer.learning_rate
    return (float(rate), rate.numpy(), optimizer.iterations.numpy(),
            [w.astype("float64") - 1.0 for w in model.get_weights()])


def optimizer_variable_names_and_paths(tf):
    """Keras 3 names an optimizer's variables ``iteration``, ``learning_rate`` and, per slot,
    the variable's path (or a tf.Variable's name) with ``/`` and ``:`` made ``_``, then the
    slot (``momentum``, ``velocity``, ``velocity_hat``, ``average_gradient``, ...), all under
    the optimizer's name. (Keras makes the slots of some optimizers kind by kind, RMSprop's
    velocities before its momentums; here each variable's come together.)"""
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=45)
    x, y = data(4, 2, seed=45)
    names = {}
    for optimizer in (tf.keras.optimizers.Adam(0.1, amsgrad=True),
                      tf.keras.optimizers.RMSprop(0.1, momentum=0.5, centered=True),
                      tf.keras.optimizers.SGD(0.1, momentum=0.9, gradient_accumulation_steps=2)):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        # sorted: the order of the slots differs (Keras makes them kind by kind)
        names[optimizer.name] = sorted((v.name, v.path) for v in optimizer.variables)
    w = tf.Variable([1.0, 2.0], name="w")
    with tf.name_scope("block"):
        b = tf.Variable(0.5, dtype=tf.float64)
    plain = tf.keras.optimizers.Adam(0.1)
    plain.apply_gradients([(tf.ones([2]), w), (tf.constant(1.0, tf.float64), b)])
    names["plain"] = [v.name for v in plain.variables]
    print(repr(plain.iterations))
    print(plain.learning_rate)
    return names, w, b, model.get_weights()
