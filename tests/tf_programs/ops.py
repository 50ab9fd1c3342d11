"""About 60 tf / tf.math / tf.nn / tf.linalg ops, eagerly and inside tf.function."""


def _both(tf, fn, *args):
    return fn(*args), tf.function(fn)(*args)


def elementwise_math(tf):
    x = tf.constant([0.5, 1.0, 2.0, 4.0])

    def f(x):
        return [tf.math.log(x), tf.exp(x), tf.sqrt(x), tf.math.rsqrt(x), tf.square(x),
                tf.math.log1p(x), tf.math.expm1(x), tf.math.reciprocal(x), tf.abs(-x),
                tf.sin(x), tf.cos(x), tf.tan(x), tf.math.atan(x), tf.tanh(x),
                tf.math.sigmoid(x), tf.math.erf(x), tf.floor(x * 1.5), tf.math.ceil(x * 1.5),
                tf.round(x * 1.5), tf.sign(x - 1.0), tf.pow(x, 3.0), tf.math.softplus(x),
                tf.math.squared_difference(x, 1.0), tf.math.floormod(x * 3.0, 2.0),
                tf.math.floordiv(x * 3.0, 2.0), tf.math.maximum(x, 1.0), tf.minimum(x, 1.0)]

    return _both(tf, f, x)


def reductions(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    def f(x):
        return [tf.reduce_sum(x), tf.reduce_sum(x, axis=0), tf.reduce_mean(x, axis=1),
                tf.reduce_max(x, axis=1, keepdims=True), tf.reduce_min(x), tf.reduce_prod(x, 0),
                tf.math.reduce_std(x), tf.math.reduce_variance(x, axis=0),
                tf.reduce_logsumexp(x, axis=1), tf.argmax(x, axis=1), tf.argmin(x, axis=0),
                tf.reduce_all(x > 0.0), tf.reduce_any(x > 5.5), tf.math.count_nonzero(x > 2.0),
                tf.cumsum(x, axis=1), tf.math.cumprod(x, axis=0),
                tf.math.reduce_euclidean_norm(x), tf.norm(x)]

    return _both(tf, f, x)


def array_manipulation(tf):
    x = tf.reshape(tf.range(12), [3, 4])

    def f(x):
        return [tf.transpose(x), tf.reshape(x, [-1]), tf.concat([x, x], axis=0),
                tf.stack([x[0], x[1]], axis=1), tf.unstack(x)[2], tf.split(x, 2, axis=1)[1],
                tf.expand_dims(x, 0).shape.as_list(), tf.squeeze(tf.ones([1, 3, 1])),
                tf.tile(x[:1], [2, 1]), tf.gather(x, [2, 0]), tf.gather_nd(x, [[0, 1], [2, 3]]),
                tf.reverse(x, axis=[1]), tf.roll(x, shift=1, axis=1), tf.slice(x, [1, 1], [2, 2]),
                tf.pad(x[:1], [[1, 0], [0, 2]]), tf.one_hot([0, 2], 3), tf.where(x > 5, x, -x),
                tf.boolean_mask(x, x % 5 == 0), tf.clip_by_value(x, 2, 8), tf.sort(-x[0]),
                tf.argsort(tf.constant([3, 1, 2])), tf.zeros_like(x), tf.ones([2, 2], tf.int64),
                tf.fill([2], 7.0), tf.eye(2), tf.linspace(0.0, 1.0, 5),
                tf.range(1, 10, 3), x[1:, ::2], x[..., -1], tf.shape(x), tf.size(x)]

    return _both(tf, f, x)


def scatter_and_segments(tf):
    def f():
        t = tf.zeros([5], tf.int32)
        u = tf.tensor_scatter_nd_update(t, [[1], [3]], [7, 9])
        a = tf.tensor_scatter_nd_add(u, [[1]], [1])
        s = tf.math.segment_sum(tf.constant([1, 2, 3, 4]), tf.constant([0, 0, 1, 1]))
        us = tf.math.unsorted_segment_sum(tf.constant([1.0, 2.0, 3.0]), [2, 0, 2], num_segments=3)
        nd = tf.scatter_nd([[0], [2]], tf.constant([5, 6]), [4])
        return u, a, s, us, nd

    return _both(tf, f)


def nn_ops(tf):
    logits = tf.constant([[2.0, 1.0, 0.1], [0.5, 2.5, 0.3]])
    labels = tf.constant([0, 1])

    def f(logits, labels):
        onehot = tf.one_hot(labels, 3)
        mean, var = tf.nn.moments(logits, axes=[0])
        return [tf.nn.softmax(logits), tf.nn.log_softmax(logits), tf.nn.relu(logits - 1.0),
                tf.nn.relu6(logits * 4.0), tf.nn.leaky_relu(logits - 1.0, alpha=0.1),
                tf.nn.elu(logits - 1.0), tf.nn.selu(logits - 1.0), tf.nn.gelu(logits),
                tf.nn.silu(logits), tf.nn.sigmoid(logits), tf.nn.tanh(logits),
                tf.nn.softmax_cross_entropy_with_logits(labels=onehot, logits=logits),
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits),
                tf.nn.sigmoid_cross_entropy_with_logits(labels=onehot, logits=logits),
                tf.nn.l2_loss(logits), tf.nn.l2_normalize(logits, axis=1), mean, var,
                tf.nn.bias_add(logits, [1.0, 2.0, 3.0]), tf.nn.top_k(logits[0], k=2).values,
                tf.math.top_k(logits[1], k=2).indices]

    return _both(tf, f, logits, labels)


def conv_and_pool(tf):
    image = tf.reshape(tf.range(32, dtype=tf.float32), [1, 4, 4, 2])
    kernel = tf.reshape(tf.range(8, dtype=tf.float32) / 10.0, [2, 2, 2, 1])

    def f(image, kernel):
        return [tf.nn.conv2d(image, kernel, strides=1, padding="VALID"),
                tf.nn.conv2d(image, kernel, strides=2, padding="SAME"),
                tf.nn.max_pool2d(image, ksize=2, strides=2, padding="VALID"),
                tf.nn.avg_pool2d(image, ksize=2, strides=1, padding="SAME")]

    return _both(tf, f, image, kernel)


def linalg_ops(tf):
    a = tf.constant([[4.0, 1.0], [1.0, 3.0]])
    b = tf.constant([[1.0], [2.0]])

    def f(a, b):
        q, r = tf.linalg.qr(a)
        return [tf.linalg.inv(a), tf.linalg.det(a), tf.linalg.solve(a, b),
                tf.linalg.cholesky(a), tf.linalg.trace(a), tf.linalg.diag_part(a),
                tf.linalg.diag([1.0, 2.0]), tf.linalg.matmul(a, b, transpose_a=True),
                tf.linalg.band_part(a, 0, 0), tf.linalg.eigh(a)[0], tf.abs(q @ r),
                tf.linalg.norm(a), tf.linalg.matrix_transpose(a), tf.tensordot(a, a, axes=1),
                tf.einsum("ij,jk->ik", a, b), tf.linalg.slogdet(a).log_abs_determinant,
                tf.linalg.svd(a, compute_uv=False), tf.linalg.global_norm([a, b])]

    return _both(tf, f, a, b)


def comparison_logic_and_casts(tf):
    x = tf.constant([1, 2, 3, 4])
    y = tf.constant([4, 2, 1, 4])

    def f(x, y):
        return [tf.equal(x, y), tf.not_equal(x, y), tf.less(x, y), tf.greater_equal(x, y),
                tf.logical_and(x > 1, y > 1), tf.logical_or(x > 3, y > 3),
                tf.logical_not(x > 2), tf.math.logical_xor(x > 2, y > 2),
                tf.cast(x, tf.float64) / 3, x // 3, x % 3, x / y, tf.math.truediv(x, y),
                tf.math.divide_no_nan(tf.cast(x, tf.float32), tf.constant([0.0, 1.0, 2.0, 0.0])),
                tf.cast(tf.constant([1.7, -1.7]), tf.int32), tf.cast(x > 2, tf.float32),
                tf.add_n([x, y, x]), tf.math.is_nan(tf.constant([1.0, float("nan")])),
                tf.math.is_finite(tf.constant([1.0, float("inf")])), tf.unique(y).y,
                tf.math.polyval([1.0, 2.0, 3.0], 2.0), tf.sequence_mask([1, 3], 4)]

    return _both(tf, f, x, y)


def functional_ops(tf):
    def f(x):
        squares = tf.map_fn(lambda row: tf.reduce_sum(row * row), x)
        running = tf.scan(lambda a, row: a + row, x)
        sign = tf.switch_case(tf.cast(tf.reduce_sum(x) > 0, tf.int32),
                              [lambda: tf.constant(-1.0), lambda: tf.constant(1.0)])
        i, total = tf.while_loop(lambda i, t: i < 4, lambda i, t: (i + 1, t + i), [0, 0])
        return squares, running, sign, i, total

    return _both(tf, f, tf.constant([[1.0, 2.0], [3.0, 4.0]]))


def random_with_seeds_shapes_only(tf):
    tf.random.set_seed(1)
    u = tf.random.uniform([3, 2], minval=-1, maxval=2, dtype=tf.int32)
    n = tf.random.normal([4])
    t = tf.random.truncated_normal([1000], stddev=2.0)
    s = tf.random.stateless_uniform([2], seed=[1, 2])
    return (u.shape.as_list(), u.dtype.name, bool(tf.reduce_all((u >= -1) & (u < 2))),
            n.dtype.name, bool(tf.reduce_max(tf.abs(t)) <= 4.0), s.shape.as_list())


def conventions_of_small_ops(tf):
    x = tf.reshape(tf.range(6, dtype=tf.float64), (2, 3))
    return (tf.one_hot([1, 0], 3, on_value=5, off_value=-1),
            tf.linspace(tf.constant(0.0, tf.float64), 1.0, 3),
            tf.eye(2, 3, batch_shape=[2], dtype=tf.int32),
            tf.reduce_max(tf.zeros([0])), tf.reduce_min(tf.zeros([0, 2], tf.int32), axis=0),
            tf.constant([1, 2 ** 40]), tf.reduce_sum(x, axis=tf.rank(x) - 1),
            tf.is_tensor(tf.Variable(1.0)))
