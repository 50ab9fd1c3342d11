"""tf.nn and tf functions that rearrange elements or combine convolutions and moments, as
programs use them: values, shapes and gradients, eagerly and inside tf.function."""

import numpy as np

from tests.tf_programs import error_name


def _images(tf):
    return tf.reshape(tf.cast(tf.range(2 * 4 * 6 * 8), tf.float32) / 50.0, [2, 4, 6, 8])


def blocks_and_sequences(tf):
    x = _images(tf)

    @tf.function
    def moved(images):
        deep = tf.nn.space_to_depth(images, 2)
        batched = tf.space_to_batch_nd(images, [2, 3], [[0, 0], [1, 2]])
        return (deep, tf.nn.depth_to_space(deep, 2), batched,
                tf.batch_to_space(batched, [2, 3], [[0, 0], [1, 2]]),
                tf.space_to_batch(images[..., :1], [2, 2], [[0, 0], [1, 1]]))

    sequences = tf.reshape(tf.range(24), [4, 3, 2])
    return (moved(x), tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 2, 4],
                                          seq_axis=1, batch_axis=0),
            tf.reverse_sequence(sequences, tf.constant([1, 3], tf.int64), seq_axis=0,
                                batch_axis=2),
            error_name(lambda: tf.reverse_sequence(tf.reshape(tf.range(12), [3, 4]), [1, 2, 5],
                                                   seq_axis=1, batch_axis=0)))


def gradients_through_rearrangements(tf):
    x = _images(tf)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        a = tf.reduce_sum(tf.sin(tf.nn.depth_to_space(x, 2)) * tf.range(2.0))
        b = tf.reduce_sum(tf.square(tf.reverse_sequence(x, [1, 3], seq_axis=2, batch_axis=0))
                          * tf.range(8.0))
        c = tf.reduce_sum(tf.cos(tf.space_to_batch_nd(x, [2, 3], [[0, 0], [1, 2]])))
    return tape.gradient(a, x), tape.gradient(b, x), tape.gradient(c, x)


def convolutions(tf):
    rng = np.random.default_rng(7)
    images = rng.normal(size=(2, 5, 6, 3)).astype(np.float32)
    depthwise = rng.normal(size=(3, 3, 3, 2)).astype(np.float32)
    pointwise = rng.normal(size=(1, 1, 6, 4)).astype(np.float32)
    signal = tf.constant(rng.normal(size=(2, 7, 4)).astype(np.float32))
    kernel = rng.normal(size=(3, 5, 4)).astype(np.float32)
    with tf.GradientTape() as tape:
        tape.watch(signal)
        up = tf.nn.conv1d_transpose(signal, kernel, [2, 14, 5], 2)
    return (tf.nn.separable_conv2d(images, depthwise, pointwise, [1, 1, 1, 1], "SAME"),
            tf.nn.separable_conv2d(images, depthwise, pointwise, [1, 2, 2, 1], "VALID"),
            tf.nn.separable_conv2d(images, depthwise, pointwise, [1, 1, 1, 1], "SAME",
                                   dilations=[2, 2]),
            up, tape.gradient(tf.reduce_sum(up * up), signal),
            tf.nn.conv1d_transpose(signal, kernel, [2, 9, 5], 1, "VALID"))


def moments_and_losses(tf):
    x = _images(tf)
    weights = tf.reshape(tf.range(1.0, 9.0), [2, 4, 1, 1])
    counts, mean_ss, variance_ss, shift = tf.nn.sufficient_statistics(x, [0, 2])
    shifted = tf.nn.sufficient_statistics(x, [1], shift=0.5, keepdims=True)
    targets = tf.constant([0.0, 1.0, 3.0, 0.5, 7.0])
    log_rates = tf.constant([0.5, -1.0, 2.0, 0.1, 1.5])
    return ((counts, mean_ss, variance_ss, shift), shifted,
            tf.nn.normalize_moments(counts, mean_ss, variance_ss, None),
            tf.nn.normalize_moments(*tf.nn.sufficient_statistics(x, [1], shift=0.5)),
            tf.nn.weighted_moments(x, [0, 1], weights),
            tf.nn.weighted_moments(x, [1, 3], 2.0, keepdims=True),
            tf.nn.crelu(tf.constant([[-1.0, 2.0], [3.0, -4.0]])),
            tf.nn.crelu(tf.constant([[-1.0, 2.0]]), axis=0),
            tf.nn.log_poisson_loss(targets, log_rates),
            tf.nn.log_poisson_loss(targets, log_rates, compute_full_loss=True),
            tf.nn.zero_fraction(tf.nn.relu(x - 3.0)))


def gradient_wrappers(tf):
    x = tf.constant([0.4, 1.6, -2.3])
    scale = tf.Variable([2.0, 3.0, 4.0])
    straight_through = tf.grad_pass_through(lambda v: tf.round(v) * scale)
    recomputed = tf.recompute_grad(lambda v: tf.sin(v) * scale)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        rounded = straight_through(x)
        smooth = recomputed(x)
    return (rounded, tape.gradient(rounded, [x, scale]), smooth,
            tape.gradient(smooth, [x, scale]), tf.is_symbolic_tensor(x),
            tf.function(lambda v: tf.cast(tf.is_symbolic_tensor(v), tf.int32))(x))


def parallel_stack_in_a_function(tf):
    @tf.function
    def stacked(a, b):
        return tf.parallel_stack([a, b * 2])

    return (stacked(tf.constant([1, 2]), tf.constant([3, 4])),
            error_name(lambda: tf.parallel_stack([tf.constant([1, 2])])))


def max_pool_with_argmax(tf):
    x = np.random.default_rng(9).normal(size=(2, 5, 6, 3)).astype(np.float32)
    x[0, 0, 0, 0] = x[0, 0, 1, 0] = 9.0  # equal maxima: the first one is the argmax
    images = tf.constant(x)

    @tf.function
    def pooled(images):
        return tf.nn.max_pool_with_argmax(images, [1, 2, 3, 1], [1, 2, 2, 1], "SAME",
                                          include_batch_in_index=True)

    with tf.GradientTape() as tape:
        tape.watch(images)
        output, argmax = tf.nn.max_pool_with_argmax(images, 2, 2, "VALID")
        loss = tf.reduce_sum(output * output)
    return (output, argmax, pooled(images),
            tf.nn.max_pool_with_argmax(images, 2, 2, "VALID", output_dtype=tf.int32).argmax,
            tape.gradient(loss, images),
            error_name(lambda: tf.nn.max_pool_with_argmax(images, 2, 2, "VALID",
                                                          data_format="NCHW")))
