"""Programs in the shape of TensorFlow users' code (tutorials, questions and answers) that
once differed from TensorFlow: shapes known while tracing through ``tf.shape`` arithmetic,
dropout and random draws of a batch of any size, printed shapes and specs, tf.image."""

import numpy as np

from tests.tf_programs import error_name


def dynamic_batch_dropout_and_draws(tf):
    dropout = tf.keras.layers.Dropout(0.5)
    dense = tf.keras.layers.Dense(3, kernel_initializer="ones")
    traced = []

    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def step(x):
        dropped = dropout(x, training=True)
        noise = tf.random.uniform(tf.shape(x))
        rows = tf.random.normal([tf.shape(x)[0], 2])
        shared = tf.nn.dropout(x, 0.5, noise_shape=[tf.shape(x)[0], 1])
        traced.append([t.shape.as_list() for t in (dropped, noise, rows, shared)])
        kept = tf.reduce_all((dropped == 0.0) | (dropped == 2.0))
        same_in_row = tf.reduce_all(shared[:, :1] == shared)
        return tf.shape(dropped), tf.shape(noise), tf.shape(rows), kept, same_in_row

    return (step(tf.ones([3, 4])), step(tf.ones([5, 4])), traced,
            dense(tf.ones([2, 6, 4])).shape.as_list())


def static_shapes_through_shape_arithmetic(tf):
    traced = []
    dense = tf.keras.layers.Dense(2, kernel_initializer="ones")
    dense.build((None, 4))

    @tf.function
    def f(x):
        flat = tf.reshape(x, tf.concat([tf.shape(x)[:-2], [-1]], axis=0))
        filled = tf.fill(tf.shape(x)[1:], 2.0)
        projected = dense(x)
        rows = tf.reshape(x, [tf.shape(x)[0], -1])
        zeros = tf.zeros([tf.shape(x)[1], tf.shape(x)[-1]])
        traced.append([t.shape.as_list() for t in (flat, filled, projected, rows, zeros)])
        return flat, filled, projected, rows, zeros

    values = f(tf.reshape(tf.range(24.0), [2, 3, 4]))
    return values, traced


def printed_specs_and_shapes(tf):
    ds = tf.data.Dataset.from_tensor_slices((np.arange(4.0, dtype="float32"), np.arange(4)))
    print(ds.batch(2).element_spec)
    weights = tf.Variable(tf.zeros([3, 2]))
    print([weights.shape, tf.ones([2]).shape, tf.zeros([]).shape])
    print(tf.TensorSpec([None, 3], tf.int32, name="x"), repr(tf.TensorSpec([2])))
    print(weights.shape, f"{tf.ones([4, 1]).shape}")


def image_basics(tf):
    batch = tf.reshape(tf.range(2 * 4 * 5 * 3, dtype=tf.float32), [2, 4, 5, 3]) / 120.0
    photo = tf.cast(tf.reshape(tf.range(4 * 4 * 3) * 5, [4, 4, 3]), tf.uint8)
    image = tf.image

    def all_of(batch, photo):
        return (image.resize(batch, [3, 7]), image.resize(batch, [8, 2], method="nearest"),
                image.resize(photo, [6, 3]), image.resize(photo, [2, 2], method="nearest"),
                image.resize(batch[0], [4, 4], preserve_aspect_ratio=True),
                image.resize_with_pad(batch, 6, 4), image.resize_with_crop_or_pad(photo, 3, 6),
                image.flip_left_right(batch), image.flip_up_down(photo), image.rot90(photo),
                image.rot90(batch, k=3), image.transpose(batch), image.central_crop(batch, 0.5),
                image.crop_to_bounding_box(photo, 1, 0, 2, 3),
                image.pad_to_bounding_box(batch, 1, 2, 6, 8),
                image.convert_image_dtype(photo, tf.float32),
                image.convert_image_dtype(batch, tf.uint8),
                image.convert_image_dtype(photo, tf.int32),
                image.convert_image_dtype(tf.constant([[[70000]]], tf.int32), tf.uint16),
                image.rgb_to_grayscale(batch), image.rgb_to_grayscale(photo),
                image.grayscale_to_rgb(batch[..., :1]), image.adjust_brightness(batch, 0.25),
                image.adjust_brightness(photo, 0.5), image.adjust_contrast(batch, 1.5),
                image.per_image_standardization(photo),
                image.per_image_standardization(tf.cast(batch, tf.float64)),
                image.resize(batch, [2, 2], method=image.ResizeMethod.NEAREST_NEIGHBOR))

    with tf.GradientTape() as tape:
        tape.watch(batch)
        resized = image.resize(batch, [5, 3]) * tf.range(3, dtype=tf.float32)
    flips = tf.data.Dataset.from_tensors(batch[0]).repeat(6).map(
        lambda x: image.random_flip_left_right(x)[0, 0, 0])
    seen = sorted({round(float(v), 4) for v in flips})
    return (all_of(batch, photo), tf.function(all_of)(batch, photo),
            tape.gradient(tf.reduce_sum(resized), batch), set(seen) <= {0.0, 0.1},
            image.random_flip_up_down(batch).shape.as_list(),
            image.random_brightness(photo, 0.1).dtype == tf.uint8)


def image_errors(tf):
    batch = tf.zeros([1, 4, 4, 3])
    return [error_name(lambda: f()) for f in (
        lambda: tf.image.crop_to_bounding_box(batch, 2, 2, 3, 3),
        lambda: tf.image.pad_to_bounding_box(batch, 2, 2, 3, 3),
        lambda: tf.image.flip_left_right(tf.zeros([4, 4])))]


def math_and_linalg_additions(tf):
    values = tf.constant([[0.0, 1.5, -2.0], [0.0, 0.0, 4.0]])
    spd = tf.constant([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], tf.float64)

    def all_of(values, spd):
        return (tf.math.zero_fraction(values), tf.math.zero_fraction(tf.constant([0, 3, 0, 0])),
                tf.math.accumulate_n([values, values * 2.0]),
                tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 2.5, 5.0, 9.0]),
                                         [0.0, 5.0], nbins=5),
                tf.histogram_fixed_width(tf.constant([[1, 2], [7, 9]]), [0, 10], nbins=3,
                                         dtype=tf.int64),
                tf.linalg.eigvalsh(spd), tf.linalg.eigvalsh(tf.stack([spd, spd * 2.0])),
                tf.linalg.normalize(values), tf.linalg.normalize(values, axis=1),
                tf.linalg.normalize(values[:, 1:], ord=1, axis=0))

    with tf.GradientTape() as tape:
        tape.watch(spd)
        smallest = tf.linalg.eigvalsh(spd)[0] + tf.reduce_sum(tf.linalg.normalize(spd)[0][0])
    return all_of(values, spd), tf.function(all_of)(values, spd), tape.gradient(smallest, spd)


def dtypes_saturate_cast(tf):
    return (tf.dtypes.saturate_cast(tf.constant([300.0, -5.0, 7.6]), tf.uint8),
            tf.dtypes.saturate_cast(tf.constant([70000, -3]), tf.int16))


def unique_counts_and_integer_linspace(tf):
    values = tf.constant([3, 1, 3, 2, 3, 1])

    def counted(values):
        found = tf.unique_with_counts(values, out_idx=tf.int64)
        return found.y, found.idx, found.count

    return (tf.unique_with_counts(values), tf.function(counted)(values), tf.linspace(0, 10, 3),
            tf.linspace(-2, 2, 5))
