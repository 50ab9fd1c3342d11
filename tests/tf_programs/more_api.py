"""TensorFlow names added in a second round: linear algebra (triangular_solve, logdet, pinv,
expm), tf.nn pools, depthwise and transposed convolutions, losses and normalization,
strided_slice, folds, broadcast_dynamic_shape, name_scope, the debugging assertions, tf.data's
rebatch and ConcreteFunction.outputs; each with its gradients where TensorFlow has them."""

from tests.tf_programs import error_name


def _value_and_gradient(tf, fn, *args):
    """``fn(*args)`` and the gradient of its sum with respect to each argument."""
    with tf.GradientTape() as tape:
        tape.watch(args)
        value = fn(*args)
    return value, tape.gradient(tf.reduce_sum(value), args)


def linalg_additions(tf):
    a = tf.constant([[2.0, 0.5, 1.0], [0.3, 1.5, -0.4], [0.7, -1.2, 3.0]], tf.float64)
    rhs = tf.constant([[1.0, 2.0], [0.5, -1.0], [3.0, 0.0]], tf.float64)
    spd = tf.matmul(a, a, transpose_b=True) + tf.eye(3, dtype=tf.float64)
    spd = tf.stack([spd, spd * 2.0])
    wide = tf.constant([[1.0, 2.0, 3.0], [2.0, 4.0, 6.5]])
    rank_one = tf.constant([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]], tf.float64)
    linalg = tf.linalg

    def all_of(a, rhs, spd, wide):
        return (linalg.triangular_solve(a, rhs), linalg.triangular_solve(a, rhs, lower=False),
                linalg.triangular_solve(a, rhs, adjoint=True), linalg.logdet(spd),
                linalg.pinv(wide), linalg.pinv(rank_one), linalg.expm(a),
                linalg.expm(tf.cast(a * 0.5, tf.float32)), linalg.expm(tf.zeros([2, 2, 2])))

    gradients = [_value_and_gradient(tf, fn, a)[1] for fn in (
        lambda m: linalg.triangular_solve(m, rhs) * rhs,
        lambda m: linalg.triangular_solve(m, rhs, lower=False, adjoint=True),
        lambda m: linalg.logdet(tf.matmul(m, m, transpose_b=True) + tf.eye(3, dtype=tf.float64)),
        lambda m: linalg.pinv(m[:2]) * tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],
                                                   tf.float64),
        lambda m: linalg.expm(m) * rhs[:, :1])]
    return all_of(a, rhs, spd, wide), tf.function(all_of)(a, rhs, spd, wide), gradients


def nn_pools_and_convolutions(tf):
    x = tf.reshape(tf.range(2 * 5 * 3, dtype=tf.float32) % 7.0, [2, 5, 3])
    image = tf.reshape(tf.range(1 * 4 * 5 * 2, dtype=tf.float32) % 5.0, [1, 4, 5, 2])
    depthwise = tf.reshape(tf.range(2 * 2 * 2 * 3, dtype=tf.float32) / 10.0, [2, 2, 2, 3])
    transposed = tf.reshape(tf.range(3 * 3 * 4 * 2, dtype=tf.float32) / 20.0, [3, 3, 4, 2])
    nn = tf.nn

    def all_of(x, image):
        return (nn.max_pool1d(x, 2, 2, "VALID"), nn.avg_pool1d(x, [3], [1, 2, 1], "SAME"),
                nn.max_pool(x, [2], 1, "SAME"), nn.avg_pool(image, 2, [1, 2, 2, 1], "SAME"),
                nn.max_pool(image, [2, 3], 1, "VALID"), nn.max_pool2d(image, 2, 2, "SAME"),
                nn.avg_pool2d(image, 3, 1, "VALID"),
                nn.depthwise_conv2d(image, depthwise, [1, 1, 1, 1], "SAME"),
                nn.depthwise_conv2d(image, depthwise, [1, 2, 2, 1], "VALID"),
                nn.depthwise_conv2d(image, depthwise, [1, 1, 1, 1], "VALID", dilations=[2, 2]),
                nn.conv2d_transpose(image, transposed, [1, 8, 10, 4], 2, "SAME"),
                nn.conv2d_transpose(image, transposed, [1, 6, 7, 4], [1, 1, 1, 1], "VALID"))

    grads = [_value_and_gradient(tf, fn, x, image)[1] for fn in (
        lambda x, image: tf.reduce_sum(nn.max_pool1d(x, 2, 1, "SAME") * x)
        + tf.reduce_sum(nn.avg_pool(image, 2, 1, "VALID")),
        lambda x, image: nn.depthwise_conv2d(image * image, depthwise, [1, 1, 1, 1], "SAME"),
        lambda x, image: nn.conv2d_transpose(image * image, transposed, [1, 8, 10, 4], 2,
                                             "SAME"))]
    _, filter_grads = _value_and_gradient(
        tf, lambda d, t: tf.reduce_sum(nn.depthwise_conv2d(image, d, [1, 1, 1, 1], "SAME") ** 2)
        + tf.reduce_sum(nn.conv2d_transpose(image, t, [1, 4, 5, 4], 1, "SAME") ** 2),
        depthwise, transposed)
    return all_of(x, image), tf.function(all_of)(x, image), grads, filter_grads


def nn_losses_and_normalization(tf):
    logits = tf.constant([[-3.0, 0.5, 40.0], [2.0, -50.0, 0.0]])
    labels = tf.constant([[0.0, 1.0, 1.0], [0.25, 0.0, 1.0]])
    x = tf.reshape(tf.range(2 * 1 * 2 * 6, dtype=tf.float32) / 7.0 - 1.0, [2, 1, 2, 6])
    per_example = tf.constant([1.0, 2.0, 3.0, 6.0])
    nn = tf.nn

    def all_of(labels, logits, x, per_example):
        return (nn.weighted_cross_entropy_with_logits(labels, logits, 3.0),
                nn.weighted_cross_entropy_with_logits(labels=labels, logits=logits,
                                                      pos_weight=tf.constant([0.5, 1.0, 2.0])),
                nn.local_response_normalization(x), nn.lrn(x, 1, 0.5, 0.2, 0.75),
                nn.local_response_normalization(x, depth_radius=2, bias=2.0, alpha=1e-1),
                nn.compute_average_loss(per_example),
                nn.compute_average_loss(per_example, sample_weight=[1.0, 0.0, 1.0, 0.5]),
                nn.compute_average_loss(per_example, global_batch_size=8),
                nn.compute_average_loss(tf.reshape(per_example, [2, 2])))

    grads = [_value_and_gradient(tf, fn, labels, logits, x)[1] for fn in (
        lambda z, l, x: nn.weighted_cross_entropy_with_logits(z, l, 2.5),
        lambda z, l, x: nn.local_response_normalization(x, depth_radius=1, alpha=0.5) * x)]
    return (all_of(labels, logits, x, per_example),
            tf.function(all_of)(labels, logits, x, per_example), grads)


def slicing_folds_and_shapes(tf):
    x = tf.reshape(tf.range(24), [2, 3, 4])

    def slices(x, stop):
        return (tf.strided_slice(x, [0, 1], [2, 3]), tf.strided_slice(x, [1, 0, 3], [2, 3, 0],
                                                                      [1, 2, -1]),
                tf.strided_slice(x, [0, 0, 1], [0, 0, 3], begin_mask=3, end_mask=3),
                tf.strided_slice(x, [1, 2], [2, 3], shrink_axis_mask=1),
                tf.strided_slice(x, [0, 1], [0, 2], ellipsis_mask=1),
                tf.strided_slice(x, [0, 0, 2], [1, 0, 3], new_axis_mask=2, shrink_axis_mask=4,
                                 end_mask=2),
                tf.strided_slice(x, [0, 1], tf.stack([2, stop]), [1, 1]),
                tf.strided_slice(x, tf.constant([-1]), [-3], [-1]))

    def folds(v, m):
        return (tf.foldl(lambda a, e: a * 2 + e, v), tf.foldr(lambda a, e: a * 2 + e, v),
                tf.foldl(lambda a, e: a + e, v, initializer=tf.constant(100.0)),
                tf.foldr(lambda a, e: (a[0] + e, a[1] * e), v,
                         initializer=(tf.constant(0.0), tf.constant(1.0))),
                tf.foldl(lambda a, e: a + e[0] * e[1], (v, v), initializer=tf.constant(0.0)),
                tf.foldl(lambda a, row: tf.maximum(a, row), m))

    def shapes(a, b):
        return (tf.broadcast_dynamic_shape(tf.shape(a), tf.shape(b)),
                tf.broadcast_dynamic_shape([2, 1, 3], [4, 1]),
                tf.broadcast_dynamic_shape(tf.constant([5], tf.int64),
                                           tf.constant([1, 5], tf.int64)))

    v = tf.constant([1.0, 2.0, 3.0])
    m = tf.constant([[1.0, 5.0], [4.0, 2.0], [0.0, 9.0]])
    with tf.GradientTape() as tape:
        tape.watch(v)
        folded = tf.foldl(lambda a, e: a * e + e, v) + tf.reduce_sum(
            tf.strided_slice(v * v, [2], [0], [-1]))
    dynamic = tf.function(shapes, input_signature=[tf.TensorSpec([None, 1]),
                                                   tf.TensorSpec([None])])
    return (slices(x, 3), tf.function(slices)(x, tf.constant(3)), folds(v, m),
            tf.function(folds)(v, m), tape.gradient(folded, v),
            shapes(tf.ones([3, 1]), tf.ones([4])), dynamic(tf.ones([3, 1]), tf.ones([4])),
            error_name(lambda: tf.broadcast_dynamic_shape([2, 3], [4])),
            error_name(lambda: dynamic(tf.ones([3, 1]), tf.ones([0])) and
                        dynamic(tf.ones([2, 1]), tf.ones([3]))))


def name_scopes_and_assertions(tf):
    with tf.name_scope("outer") as outer:
        with tf.name_scope("inner") as inner:
            names = (outer, inner)
        with tf.name_scope("again/") as absolute:
            names += (absolute,)

    x = tf.constant([1.0, 2.0])
    checks = [lambda: tf.debugging.assert_positive(x), lambda: tf.debugging.assert_positive(-x),
              lambda: tf.debugging.assert_negative(-x), lambda: tf.debugging.assert_negative(x),
              lambda: tf.debugging.assert_non_negative(x - 1.0),
              lambda: tf.debugging.assert_non_negative(x - 1.5),
              lambda: tf.debugging.assert_non_positive(x - 2.0),
              lambda: tf.debugging.assert_non_positive(x),
              lambda: tf.debugging.assert_greater(x, 0.5), lambda: tf.assert_greater(x, 1.0),
              lambda: tf.debugging.assert_greater_equal(x, 1.0),
              lambda: tf.debugging.assert_greater_equal(x, [1.5, 1.5]),
              lambda: tf.debugging.assert_less_equal(x, 2.0),
              lambda: tf.debugging.assert_less_equal(x, 1.0, message="too big"),
              lambda: tf.debugging.assert_rank(x, 1), lambda: tf.assert_rank(x, 2),
              lambda: tf.debugging.assert_rank_at_least(x, 1),
              lambda: tf.debugging.assert_rank_at_least(x, 3),
              lambda: tf.debugging.assert_shapes([(x, ["N"]), (tf.ones([2, 3]), ["N", 3])]),
              lambda: tf.debugging.assert_shapes([(x, ["N"]), (tf.ones([3, 3]), ["N", "."])]),
              lambda: tf.debugging.assert_shapes([(tf.ones([4, 2, 5]), ["*", "N", 5]),
                                                  (x, ["N"])]),
              lambda: tf.debugging.assert_shapes([(tf.ones([2, 5]), [2, 4])])]

    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec(None)])
    def traced(v, anything):
        with tf.name_scope("in_graph") as scope:
            names.append(scope)
            tf.debugging.assert_positive(v)
            tf.debugging.assert_rank(anything, 2)
            tf.debugging.assert_shapes([(v, ["N"]), (anything, ["N", 2])])
            return v * 2.0

    names = list(names)
    return (names, [error_name(check) for check in checks],
            traced(x, tf.ones([2, 2])), error_name(lambda: traced(-x, tf.ones([2, 2]))),
            error_name(lambda: traced(x, tf.ones([2]))),
            error_name(lambda: traced(x, tf.ones([3, 2]))))


def rebatch_and_concrete_outputs(tf):
    batches = tf.data.Dataset.range(10).batch(4)

    @tf.function
    def described(x):
        return {"twice": x * 2.0, "rest": (tf.shape(x), x > 0.0)}

    concrete = described.get_concrete_function(tf.TensorSpec([None, 3]))
    return ([b for b in batches.rebatch(3)], [b for b in batches.rebatch(3, True)],
            batches.rebatch(3).element_spec.shape.as_list(),
            batches.rebatch(3, drop_remainder=True).element_spec.shape.as_list(),
            [(tf.as_dtype(t.dtype).name, t.shape.as_list()) for t in concrete.outputs])
