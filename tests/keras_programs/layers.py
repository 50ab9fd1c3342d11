"""Layers beyond Dense: Conv1D and 1-D pooling, regularizers added to the loss, a small CNN
with BatchNormalization."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def conv1d_and_pooling_1d(tf):
    x = np.random.default_rng(80).normal(size=(6, 8, 2)).astype("float32")
    y = x.mean(axis=(1, 2)).reshape(6, 1)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(8, 2)),
        tf.keras.layers.Conv1D(3, 3, padding="same", activation="relu"),
        tf.keras.layers.MaxPooling1D(2),
        tf.keras.layers.Conv1D(2, 2, strides=1),
        tf.keras.layers.AveragePooling1D(pool_size=2, strides=1, padding="same"),
        tf.keras.layers.GlobalAveragePooling1D(),
        tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=80)
    outputs, h = [], x[:2]
    for layer in model.layers:
        h = layer(h)
        outputs.append(tuple(h.shape))
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights(), outputs


def conv1d_global_max_pooling(tf):
    x = np.random.default_rng(81).normal(size=(4, 6, 3)).astype("float32")
    conv = tf.keras.layers.Conv1D(2, 2, strides=2, use_bias=False)
    pool = tf.keras.layers.GlobalMaxPooling1D()
    out = pool(conv(x))
    deterministic_weights(conv, seed=81)
    return pool(conv(x)), tuple(out.shape), conv.get_weights()


def kernel_and_bias_regularizers(tf):
    x, y = data(12, 3, seed=82)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(3,)),
        tf.keras.layers.Dense(4, activation="tanh",
                              kernel_regularizer=tf.keras.regularizers.l2(0.01),
                              bias_regularizer=tf.keras.regularizers.l1(0.02)),
        tf.keras.layers.Dense(1, kernel_regularizer="l2")])
    deterministic_weights(model, seed=82)
    penalties = [float(loss) for loss in model.losses]
    model.compile(tf.keras.optimizers.SGD(0.1), "mse", metrics=["mse"])
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return penalties, history.history, model.get_weights(), model.evaluate(x, y, verbose=0)


def activity_regularizer_l1_l2(tf):
    x, y = data(8, 3, seed=83)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(3,)),
        tf.keras.layers.Dense(3, activity_regularizer=tf.keras.regularizers.l1_l2(0.01, 0.02)),
        tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=83)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def small_cnn_with_batch_normalization(tf):
    x = np.random.default_rng(84).normal(size=(6, 5, 5, 1)).astype("float32")
    labels = (x.mean(axis=(1, 2, 3)) > 0).astype("int32")
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(5, 5, 1)),
        tf.keras.layers.Conv2D(2, 3, activation="relu"),
        tf.keras.layers.BatchNormalization(),
        tf.keras.layers.Flatten(),
        tf.keras.layers.Dense(2, activation="softmax")])
    deterministic_weights(model, seed=84)
    norm = model.layers[1]
    norm.set_weights([np.ones(2, "float32"), np.zeros(2, "float32"), np.zeros(2, "float32"),
                      np.ones(2, "float32")])
    model.compile(tf.keras.optimizers.Adam(0.01), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, labels, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def merge_activation_and_reshaping_layers(tf):
    rng = np.random.default_rng(85)
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(3,))
    layers = tf.keras.layers
    merged = [layers.Subtract()([a, b]), layers.Multiply()([a, b]), layers.Average()([a, b]),
              layers.maximum([a, b]), layers.minimum([a, b])]
    activated = [layers.ReLU(max_value=0.5)(merged[0]), layers.LeakyReLU()(merged[1]),
                 layers.ELU(alpha=0.5)(merged[2]), layers.Softmax()(merged[3])]
    repeated = layers.Permute((2, 1))(layers.RepeatVector(2)(activated[0]))
    model = tf.keras.Model([a, b], activated + [repeated, merged[4]])
    x = [rng.normal(size=(2, 3)).astype("float32") for _ in range(2)]
    return model.predict(x, verbose=0), [type(layer).__name__ for layer in model.layers]


def reshape_with_a_dimension_worked_out(tf):
    x, y = data(6, 4, seed=86)
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Reshape((2, -1)),
                                 tf.keras.layers.Dense(1), tf.keras.layers.Flatten()])
    deterministic_weights(model, seed=86)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(x, np.concatenate([y, y], axis=1), epochs=2, batch_size=4,
                        shuffle=False, verbose=0)
    reshape = tf.keras.layers.Reshape((-1, 2))
    reshaped = reshape(np.zeros((3, 2, 3), "float32"))
    return (history.history, model.output_shape, model.layers[0].output.shape,
            model.predict(x[:2], verbose=0), tuple(reshaped.shape),
            reshape.compute_output_shape((None, 6)))


def normalization_adapted_regression(tf):
    rng = np.random.default_rng(86)
    features = (rng.normal(size=(20, 3)) * [1.0, 10.0, 100.0] + [0.0, 5.0, -50.0]).astype(
        "float32")
    target = (features @ np.array([[0.5], [0.1], [0.01]], "float32") + 1.0).astype("float32")
    normalizer = tf.keras.layers.Normalization(axis=-1)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), normalizer,
                                 tf.keras.layers.Dense(4, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=86)
    normalizer.adapt(features)
    single = tf.keras.layers.Normalization(axis=None)
    single.adapt(tf.data.Dataset.from_tensor_slices(features[:, 2:]).batch(8))
    fixed = tf.keras.layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 1.0, 0.25])
    inverted = tf.keras.layers.Normalization(mean=2.0, variance=9.0, invert=True)
    model.compile(tf.keras.optimizers.Adam(0.05), "mae")
    history = model.fit(features, target, epochs=3, batch_size=5, shuffle=False, verbose=0)
    return (history.history, model.get_weights(), normalizer.get_weights(),
            single(features[:4, 2:]), fixed(features[:2]), inverted(np.ones((1, 2), "float32")),
            normalizer.mean, normalizer.variance, single.mean, fixed.variance)


def upsampling_padding_and_cropping_autoencoder(tf):
    rng = np.random.default_rng(87)
    images = rng.normal(size=(4, 6, 6, 1)).astype("float32")
    sequences = rng.normal(size=(2, 5, 2)).astype("float32")
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 6, 1)),
        layers.Conv2D(2, 3, padding="same", activation="relu"),
        layers.MaxPooling2D(2),
        layers.ZeroPadding2D(((1, 0), (0, 1))),
        layers.Cropping2D(((1, 0), (0, 1))),
        layers.UpSampling2D((2, 2)),
        layers.Conv2D(1, 3, padding="same")])
    deterministic_weights(model, seed=87)
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    history = model.fit(images, images, epochs=2, batch_size=2, shuffle=False, verbose=0)
    one_d = [layers.UpSampling1D(3)(sequences), layers.ZeroPadding1D((2, 1))(sequences),
             layers.Cropping1D((1, 2))(sequences), layers.ZeroPadding2D(1)(images[:1]).shape,
             layers.UpSampling2D((1, 3))(images[:1, :2, :2])]
    return history.history, model.get_weights(), one_d[:3], tuple(one_d[3]), one_d[4]


def small_layers_and_noise_at_inference(tf):
    rng = np.random.default_rng(88)
    images = rng.integers(0, 256, size=(3, 4, 4, 2)).astype("float32")
    x, y = data(9, 4, seed=88)
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(4,)), layers.Rescaling(0.5, offset=-0.25), layers.Dense(3),
        layers.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.2)),
        layers.ActivityRegularization(l1=0.01, l2=0.02), layers.GaussianNoise(0.0),
        layers.UnitNormalization(), layers.Identity(), layers.Dense(1)])
    deterministic_weights(model, seed=88)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse",
                  metrics=[tf.keras.metrics.TruePositives(), tf.keras.metrics.FalseNegatives()])
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    noisy = [layers.GaussianNoise(1.0)(images), layers.GaussianDropout(0.5)(images),
             layers.SpatialDropout2D(0.5)(images), layers.SpatialDropout1D(0.5)(images[:, 0])]
    return (history.history, model.get_weights(), layers.Rescaling(1.0 / 255)(images[:1]),
            noisy, tuple(layers.PReLU(shared_axes=[1, 2])(images[:1] - 128.0).shape))


def conv2d_transpose_generator(tf):
    rng = np.random.default_rng(89)
    noise = rng.normal(size=(4, 3)).astype("float32")
    images = rng.normal(size=(4, 6, 6, 1)).astype("float32")
    layers = tf.keras.layers
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(3,)), layers.Dense(2 * 2 * 3), layers.Reshape((2, 2, 3)),
        # No bias before BatchNormalization (as DCGAN has it): its gradient would be zero
        # but for rounding, which Adam scales up.
        layers.Conv2DTranspose(4, (3, 3), strides=(2, 2), padding="valid", use_bias=False),
        layers.BatchNormalization(), layers.LeakyReLU(),
        layers.Conv2DTranspose(1, 2, strides=1, padding="same", use_bias=False,
                               activation="tanh"),
        layers.Cropping2D(((0, 0), (0, 0)))])
    deterministic_weights(model, seed=89)
    norm = model.layers[3]
    norm.set_weights([np.ones(4, "float32"), np.zeros(4, "float32"), np.zeros(4, "float32"),
                      np.ones(4, "float32")])
    shapes = [tuple(model.layers[2](model.layers[1](model.layers[0](noise))).shape)]
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    history = model.fit(noise, images[:, :5, :5], epochs=2, batch_size=2, shuffle=False,
                        verbose=0)
    return history.history, model.get_weights(), shapes, model.predict(noise[:1], verbose=0)


def causal_dilated_conv1d_stack(tf):
    x = np.random.default_rng(83).normal(size=(6, 10, 2)).astype("float32")
    y = np.cumsum(x[:, :, :1], axis=1)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(10, 2)),
        tf.keras.layers.Conv1D(4, 2, padding="causal", dilation_rate=1, activation="tanh"),
        tf.keras.layers.Conv1D(4, 3, padding="causal", dilation_rate=2, activation="tanh"),
        tf.keras.layers.Conv1D(1, 2, padding="causal", dilation_rate=4)])
    deterministic_weights(model, seed=83)
    before = model.predict(x[:2], verbose=0)
    changed = x[:2].copy()
    changed[:, 7:] += 5.0  # later steps must not change earlier outputs
    after = model.predict(changed, verbose=0)
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    history = model.fit(x, y, epochs=2, batch_size=3, shuffle=False, verbose=0)
    return history.history, before, after[:, :7], model.output_shape, \
        model.layers[1].get_config()["padding"]


def masked_softmax_channels_first_pooling_and_dot(tf):
    layers = tf.keras.layers
    scores = tf.constant([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])
    masked = layers.Softmax()(scores, mask=tf.constant([[True, True, False], [False] * 3]))
    images = (np.arange(120, dtype="float32").reshape(2, 3, 4, 5) % 7)
    pooled = [np.asarray(layer(images)) for layer in (
        layers.MaxPooling2D(data_format="channels_first"),
        layers.AveragePooling2D((2, 3), strides=1, padding="same", data_format="channels_first"),
        layers.GlobalAveragePooling2D(data_format="channels_first"))]
    pooled.append(np.asarray(layers.MaxPooling1D(data_format="channels_first")(images[0])))
    a = np.arange(6, dtype="float32").reshape(2, 3)
    b = np.full((2, 3), 2.0, "float32")
    x3 = np.arange(24, dtype="float32").reshape(2, 3, 4)
    y3 = np.arange(30, dtype="float32").reshape(2, 5, 3)
    dots = [np.asarray(layers.Dot(axes=1)([a, b])),
            np.asarray(layers.Dot(axes=-1, normalize=True)([a, b])),
            np.asarray(layers.Dot(axes=(1, 2))([x3, y3])), np.asarray(layers.dot([x3, x3], 2))]
    return np.asarray(masked), pooled, dots


def convolution_and_pooling_options_and_bilinear_upsampling(tf):
    rng = np.random.default_rng(110)
    x = rng.normal(size=(2, 6, 6, 4)).astype("float32")
    layers = tf.keras.layers
    results = []
    for layer in (layers.Conv2D(2, 3, dilation_rate=2, padding="same"),
                  layers.MaxPooling2D(2, padding="same"),
                  layers.AveragePooling2D(3, strides=2, padding="same"),
                  layers.UpSampling2D(2, interpolation="bilinear"),
                  layers.UpSampling2D((1, 3), interpolation="bilinear"),
                  layers.Conv2D(2, (1, 3), strides=(1, 2)),
                  layers.ZeroPadding2D(((1, 0), (0, 2))), layers.Cropping2D(1),
                  layers.GlobalAveragePooling2D(keepdims=True),
                  layers.Conv1D(3, 2, dilation_rate=2)):
        inputs = x[:, 0] if isinstance(layer, layers.Conv1D) else x
        model = tf.keras.Sequential([tf.keras.Input(inputs.shape[1:]), layer])
        deterministic_weights(model, seed=110)
        results.append(model(inputs))
    decoder = tf.keras.Sequential([tf.keras.Input((3, 3, 2)),
                                   layers.UpSampling2D(interpolation="bilinear"),
                                   layers.Conv2D(1, 3, padding="same")])
    deterministic_weights(decoder, seed=111)
    decoder.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = decoder.fit(x[:, :3, :3, :2], x[:, :, :, :1], epochs=2, batch_size=1,
                          shuffle=False, verbose=0)
    return (results, history.history, decoder.get_weights(),
            decoder.layers[0].get_config()["interpolation"])


def group_normalization_and_conv1d_transpose(tf):
    rng = np.random.default_rng(84)
    images = rng.normal(size=(3, 4, 5, 6)).astype("float32")
    steps = rng.normal(size=(3, 5, 4)).astype("float32")
    layers = [tf.keras.layers.GroupNormalization(groups=3),
              tf.keras.layers.GroupNormalization(groups=-1, epsilon=0.01, center=False),
              tf.keras.layers.GroupNormalization(groups=2, axis=1, scale=False)]
    normalized = []
    for layer in layers:
        layer(images)
        deterministic_weights(layer, seed=84)
        normalized.append((layer(images), [tuple(w.shape) for w in layer.weights]))
    transposes = [tf.keras.layers.Conv1DTranspose(3, 3, strides=2, padding="same"),
                  tf.keras.layers.Conv1DTranspose(2, 4, strides=3, padding="valid",
                                                  use_bias=False)]
    upsampled = []
    for layer in transposes:
        layer(steps)
        deterministic_weights(layer, seed=85)
        upsampled.append((layer(steps), [tuple(w.shape) for w in layer.weights]))
    return normalized, upsampled


def group_normalization_in_training(tf):
    x = np.random.default_rng(86).normal(size=(8, 6, 4)).astype("float32")
    y = x.mean(axis=(1, 2)).reshape(8, 1)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(6, 4)),
        tf.keras.layers.Conv1DTranspose(4, 2, strides=2, padding="same"),
        tf.keras.layers.GroupNormalization(groups=2),
        tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=86)
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def category_encoding(tf):
    encode = tf.keras.layers.CategoryEncoding
    counts = encode(4, output_mode="count")
    return (encode(4, output_mode="one_hot")([3, 2, 0, 1]),
            encode(4, output_mode="one_hot")([[3], [2]]),
            encode(4, output_mode="one_hot")(np.array([[0, 1], [3, 7]])),
            encode(4)([[0, 1], [1, 1]]), encode(4)([3, 2, 0]), encode(4)([[0, 5]]),
            counts([[0, 1], [1, 1]]), counts(np.array([[0, 1], [3, 3]], "int64")),
            counts([[0, 1], [1, 1]], count_weights=np.array([[0.5, 2.0], [1.0, 3.0]],
                                                            "float32")),
            encode(4)(2), encode(4)(np.array([0.0, 1.0])),
            type(encode(4)).__name__)


def einsum_dense(tf):
    rng = np.random.default_rng(87)
    sequences = rng.normal(size=(2, 3, 4)).astype("float32")
    layers = [tf.keras.layers.EinsumDense("ab,bc->ac", output_shape=5, bias_axes="c"),
              tf.keras.layers.EinsumDense("abc,cd->abd", output_shape=(3, 6), bias_axes="d",
                                          activation="relu"),
              tf.keras.layers.EinsumDense("abc,cde->abde", output_shape=(3, 2, 5),
                                          bias_axes="de"),
              tf.keras.layers.EinsumDense("...b,bc->...c", output_shape=7),
              tf.keras.layers.EinsumDense("abc,cd->abd", output_shape=(None, 2))]
    inputs = [sequences[:, 0], sequences, sequences, sequences, sequences]
    results = []
    for layer, x in zip(layers, inputs):
        layer(x)
        deterministic_weights(layer, seed=87)
        results.append((layer(x), [(w.name, tuple(w.shape)) for w in layer.weights]))
    return results


def einsum_dense_in_training(tf):
    x = np.random.default_rng(88).normal(size=(8, 3, 4)).astype("float32")
    y = x.sum(axis=(1, 2)).reshape(8, 1)
    model = tf.keras.Sequential([
        tf.keras.Input(shape=(3, 4)),
        tf.keras.layers.EinsumDense("abc,cd->abd", output_shape=(3, 2), bias_axes="d",
                                    activation="tanh"),
        tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
    deterministic_weights(model, seed=88)
    model.compile(tf.keras.optimizers.SGD(0.05), "mse")
    history = model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def integer_lookup(tf):
    lookup = tf.keras.layers.IntegerLookup
    vocabulary = [12, 36, 1138, 42]
    plain = lookup(vocabulary=vocabulary)
    two_oov = lookup(vocabulary=vocabulary, num_oov_indices=2)
    masked = lookup(vocabulary=vocabulary, mask_token=0)
    adapted = lookup()
    adapted.adapt(np.array([[12, 1138, 42], [42, 1000, 36], [42, 12, 5]]))
    capped = lookup(max_tokens=3)
    capped.adapt(np.array([5, 1000, 3, 7, 7, 9, 9, 9]))
    return (plain([[12, 1138, 42], [42, 1000, 36]]), plain.get_vocabulary(),
            plain.vocabulary_size(),
            two_oov([[12, 1138, 42], [42, 1000, 36], [5, 6, 7]]), two_oov.get_vocabulary(),
            lookup(vocabulary=vocabulary, invert=True)([[1, 3, 4], [0, 2, 2]]),
            lookup(vocabulary=vocabulary, output_mode="one_hot")([12, 1000, 36]),
            lookup(vocabulary=vocabulary, output_mode="multi_hot")([[12, 1000, 36], [42, 42, 5]]),
            lookup(vocabulary=vocabulary, output_mode="count")([[12, 1000, 36], [42, 42, 5]]),
            masked([[12, 0, 36]]), masked.get_vocabulary(),
            adapted.get_vocabulary(), adapted([[42, 12, 7]]), capped.get_vocabulary(),
            lookup(vocabulary=np.array([12, 36]))(np.array([12.0, 36.0])))
