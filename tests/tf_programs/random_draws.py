"""tf.random's distributions and seed derivation: shapes, dtypes, determinism of the
stateless forms and the statistics of many draws (the values themselves differ from
TensorFlow's streams, as for every seeded op)."""


def _close(tf, value, expected, tolerance):
    return bool(abs(float(value) - expected) < tolerance)


def distributions(tf):
    tf.random.set_seed(3)
    gamma = tf.random.gamma([20000], 0.5, 2.0)
    poisson = tf.random.poisson([20000], 3.0)
    truncated = tf.random.stateless_truncated_normal([20000], [1, 2], mean=1.0, stddev=2.0)
    counts = tf.random.stateless_poisson([20000], [4, 5], 2.5)
    picks = tf.random.stateless_categorical(tf.math.log([[0.2, 0.8]]), 20000, [5, 6])
    return (_close(tf, tf.reduce_mean(gamma), 0.25, 0.02),
            _close(tf, tf.math.reduce_variance(gamma), 0.125, 0.02),
            _close(tf, tf.reduce_mean(poisson), 3.0, 0.1),
            _close(tf, tf.math.reduce_variance(poisson), 3.0, 0.2),
            bool(tf.reduce_min(truncated) >= -3.0), bool(tf.reduce_max(truncated) <= 5.0),
            _close(tf, tf.reduce_mean(truncated), 1.0, 0.05),
            _close(tf, tf.math.reduce_std(truncated), 1.76, 0.05),
            _close(tf, tf.reduce_mean(tf.cast(counts, tf.float32)), 2.5, 0.1),
            _close(tf, tf.reduce_mean(tf.cast(picks, tf.float32)), 0.8, 0.02))


def shapes_and_dtypes(tf):
    r = tf.random
    draws = [r.gamma([3, 2], [1.0, 2.0, 5.0], [1.0, 2.0, 3.0]),
             r.gamma([3], tf.constant([[1.0], [2.0]], tf.float64), dtype=tf.float64),
             r.poisson([3, 2], [1.0, 2.0, 5.0]), r.poisson([4], [1.0, 2.0], dtype=tf.int32),
             r.stateless_truncated_normal([2, 3], [1, 2]),
             r.stateless_categorical(tf.math.log([[0.1, 0.9], [0.5, 0.5]]), 5, [3, 4]),
             r.stateless_categorical(tf.math.log([[0.1, 0.9]]), 5, [3, 4], dtype=tf.int32),
             r.stateless_poisson([3, 2], [1, 2], [1.0, 5.0]),
             r.stateless_poisson([3], [1, 2], 3.0, dtype=tf.int32),
             r.split([1, 2]), r.split(tf.constant([1, 2], tf.int64), num=3),
             r.fold_in([1, 2], 7), r.fold_in(tf.constant([1, 2], tf.int64), 7)]
    return [(tuple(d.shape), d.dtype == tf.float32, d.dtype == tf.float64,
             d.dtype == tf.int32, d.dtype == tf.int64) for d in draws]


def stateless_seeds_are_deterministic(tf):
    @tf.function
    def draw(seed):
        step_seed = tf.random.fold_in(seed, 3)
        first, second = tf.unstack(tf.random.split(step_seed))
        return (tf.random.stateless_truncated_normal([4], step_seed),
                tf.random.stateless_normal([4], first), tf.random.stateless_normal([4], second))

    seed = tf.constant([7, 11])
    once, again = draw(seed), draw(seed)
    other = tf.random.fold_in(seed, 4)
    return ([bool(tf.reduce_all(a == b)) for a, b in zip(once, again)],
            bool(tf.reduce_any(once[1] != once[2])),
            bool(tf.reduce_any(other != tf.random.fold_in(seed, 3))),
            bool(tf.reduce_all(tf.random.stateless_poisson([5], seed, 4.0)
                               == tf.random.stateless_poisson([5], seed, 4.0))))
