"""TensorFlow names added together: devices and thread settings, ordering ops, shape checks,
index arithmetic, math and segment reductions, counting, bitwise ops, partitions, vectorized_map
and Python functions in graphs (py_function, numpy_function, also in tf.data maps); eagerly and
inside tf.function."""

from tests.tf_programs import error_name


def _eager_and_traced(tf, fn, *args):
    return fn(*args), tf.function(fn)(*args)




def devices_and_thread_settings(tf):
    for gpu in tf.config.list_physical_devices("GPU"):  # the usual setup: no GPU, no call
        tf.config.experimental.set_memory_growth(gpu, True)
    cpu = tf.config.list_physical_devices("CPU")[0]
    logical = tf.config.list_logical_devices()[0]
    return ([(d.name, d.device_type) for d in tf.config.list_physical_devices()],
            len(tf.config.list_physical_devices("GPU")),
            len(tf.config.experimental.list_physical_devices("GPU")),
            [d.name for d in tf.config.get_visible_devices()],
            (logical.name, logical.device_type), len(tf.config.list_logical_devices("GPU")),
            cpu == tf.config.PhysicalDevice("/physical_device:CPU:0", "CPU"),
            error_name(lambda: tf.config.experimental.set_memory_growth(cpu, True)),
            tf.config.threading.get_inter_op_parallelism_threads())


def ordering_ops(tf):
    v = tf.Variable(1.0)

    @tf.function
    def step(x):
        update = v.assign_add(x)
        with tf.control_dependencies([update, tf.no_op()]):
            y = v * 2.0
        tf.group(update, y)
        with tf.init_scope():
            eager_inside = tf.executing_eagerly()
        return y, eager_inside

    first, eager_inside = step(tf.constant(2.0))
    second, _ = step(tf.constant(1.0))
    with tf.init_scope():
        outside = tf.constant(3) * 2
    return (first, second, bool(eager_inside), tf.no_op() is None, tf.group() is None, outside,
            v)


def shape_checks(tf):
    @tf.function(input_signature=[tf.TensorSpec([None, None])])
    def rows_of_three(x):
        y = tf.ensure_shape(x, [None, 3])
        print("static shape", y.shape.as_list())
        return tf.reduce_sum(y, axis=1)

    @tf.function(input_signature=[tf.TensorSpec([None, 3])])
    def rows_of_four(x):
        return tf.ensure_shape(x, [None, 4])

    ones = tf.ones([2, 3])
    shapes = tf.shape_n([ones, tf.zeros([4]), 1.0])
    return (tf.ensure_shape(ones, [2, None]), tf.ensure_shape(ones, tf.TensorShape(None)),
            rows_of_three(ones), shapes, tf.shape_n([ones], out_type=tf.int64),
            error_name(lambda: tf.ensure_shape(ones, [2, 4])),
            error_name(lambda: rows_of_three(tf.ones([2, 2]))),
            error_name(lambda: rows_of_four(ones)))


def index_arithmetic(tf):
    def f(flat, flat64):
        return (tf.unravel_index(flat, [2, 3]), tf.unravel_index(5, [2, 3]),
                tf.unravel_index(flat64, tf.constant([3, 2], tf.int64)),
                tf.math.invert_permutation([3, 4, 0, 2, 1]),
                tf.math.invert_permutation(tf.constant([1, 0], tf.int64)))

    result = _eager_and_traced(tf, f, tf.constant([1, 5, 4]), tf.constant([0, 5], tf.int64))
    return result, error_name(lambda: tf.unravel_index([6], [2, 3])), \
        error_name(lambda: tf.math.invert_permutation([0, 0, 2]))


def math_additions(tf):
    def f(x, x64, i, i64):
        return (tf.saturate_cast(x * 1e10, tf.int32), tf.saturate_cast(x * 100.0, tf.uint8),
                tf.saturate_cast(x64 * 1e300, tf.float32), tf.saturate_cast(i64 * 2**40, tf.int32),
                tf.saturate_cast(i * 100, tf.uint8),
                tf.math.reciprocal_no_nan(x), tf.math.reciprocal_no_nan(x64),
                tf.truncatemod(i, 3), tf.truncatemod(i64, -3), tf.truncatemod(x * 7.5, 2.0),
                tf.math.xlogy(tf.abs(x), tf.abs(x) + 1.0), tf.math.xlogy(x64, 2.0),
                tf.math.xlog1py(tf.abs(x), tf.abs(x)), tf.math.xlog1py(tf.abs(x64), 0.5),
                tf.linalg.cross(tf.reshape(x[:3], [1, 3]), tf.constant([[0.0, 1.0, 0.0]])),
                tf.linalg.cross(i[:3], tf.constant([1, 0, 2])),
                tf.math.cumulative_logsumexp(x), tf.math.cumulative_logsumexp(x64, exclusive=True),
                tf.math.cumulative_logsumexp(tf.reshape(x, [2, 2]), axis=1, reverse=True),
                tf.math.cumulative_logsumexp(x, exclusive=True, reverse=True))

    return _eager_and_traced(tf, f, tf.constant([0.0, -1.5, 2.0, 0.25]),
                             tf.constant([0.0, 2.0, -0.5, 4.0], tf.float64),
                             tf.constant([7, -7, 0, 9]), tf.constant([7, -7, 1, -1], tf.int64))


def math_gradients(tf):
    x = tf.constant([0.0, 2.0, -1.0])
    y = tf.constant([0.5, 3.0, 1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        values = [tf.math.xlogy(x, y), tf.math.xlog1py(x, y), tf.math.reciprocal_no_nan(x),
                  tf.math.cumulative_logsumexp(x, exclusive=True) * y,
                  tf.linalg.cross(x, y), tf.saturate_cast(x * 1e10, tf.float16)]
    return [tape.gradient(value, [x, y]) for value in values]


def scatter_additions(tf):
    def f(t, u):
        indices = tf.constant([[1], [1], [3]])
        return (tf.tensor_scatter_nd_sub(t, indices, u), tf.tensor_scatter_nd_max(t, indices, u),
                tf.tensor_scatter_nd_min(t, indices, u),
                tf.tensor_scatter_nd_max(tf.zeros([2, 2]), [[1]], [[5.0, -6.0]]),
                tf.tensor_scatter_nd_sub(tf.constant([1, 2], tf.int64), [[0]],
                                         tf.constant([5], tf.int64)))

    ints = _eager_and_traced(tf, f, tf.constant([1, 2, 3, 4]), tf.constant([5, 6, 0]))
    floats = _eager_and_traced(tf, f, tf.constant([1.0, 2.0, 3.0, 4.0]),
                               tf.constant([5.0, -6.0, 0.0]))
    x, u = tf.constant([1.0, 2.0, 3.0]), tf.constant([2.0, 2.0, 1.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        top = tf.tensor_scatter_nd_max(x, [[1], [1], [2]], u)
        less = tf.tensor_scatter_nd_sub(x, [[1], [1], [2]], u)
    return ints, floats, tape.gradient(top, [x, u]), tape.gradient(less, [x, u])


def segment_reductions(tf):
    m = tf.math

    def f(data, ints, ints64, ids):
        return (m.segment_mean(data, [0, 0, 2, 2]), m.segment_max(data, [0, 0, 2, 2]),
                m.segment_min(ints, [0, 0, 2, 2]), m.segment_prod(ints64, [0, 0, 2, 2]),
                m.segment_mean(ints, [0, 0, 1, 1]),
                m.unsorted_segment_max(data, ids, 4), m.unsorted_segment_min(ints, ids, 4),
                m.unsorted_segment_prod(ints64, ids, 4), m.unsorted_segment_mean(data, ids, 4),
                m.unsorted_segment_mean(ints, ids, 4), m.unsorted_segment_sqrt_n(data, ids, 3),
                m.unsorted_segment_max(tf.constant([[1, 2], [3, 4]]), [[0, 1], [1, 1]], 2),
                m.unsorted_segment_sum(data, ids, tf.constant(4, tf.int64)))

    result = _eager_and_traced(tf, f, tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),
                               tf.constant([1, 2, 3, -4]), tf.constant([1, 2, 3, 4], tf.int64),
                               tf.constant([0, -1, 2, 0]))

    @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([None], tf.int32)])
    def dynamic(x, ids):
        return m.unsorted_segment_max(x, ids, 3), m.segment_mean(x, ids)

    x = tf.constant([1.0, 3.0, 3.0, 0.0, 2.0, 5.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        reductions = [m.unsorted_segment_max(x, [0, 0, 0, 1, 1, 2], 4),
                      m.unsorted_segment_prod(x, [0, 0, 0, 1, 1, 2], 4),
                      m.segment_mean(x, [0, 0, 0, 1, 1, 2]), m.segment_min(x, [0, 0, 1, 1, 1, 2]),
                      m.unsorted_segment_prod(x, [0, 0, 1, 1, 1, 2], 4)]
    gradients = [tape.gradient(r, x) for r in reductions]
    return result, dynamic(x, tf.constant([0, 0, 1, 1, 1, 2])), gradients


def counting(tf):
    m = tf.math

    def f(values, labels, predictions, scores):
        return (m.bincount(values), m.bincount(values, minlength=8),
                m.bincount(values, maxlength=3),
                m.bincount(values, weights=tf.cast(values, tf.float32) / 2),
                m.bincount(values, dtype=tf.int64), m.bincount(tf.reshape(values, [2, 3]), axis=-1),
                m.bincount(values, binary_output=True), m.bincount(tf.cast(values, tf.int64)),
                m.confusion_matrix(labels, predictions), m.confusion_matrix(labels, predictions, 5),
                m.confusion_matrix(labels, predictions, weights=[0.5, 1.0, 2.0], dtype=tf.float32),
                m.in_top_k(labels, scores, 1), tf.nn.in_top_k(labels, scores, 2),
                m.is_non_decreasing(values), m.is_strictly_increasing(tf.sort(values)),
                m.is_non_decreasing(tf.sort(values)), m.is_strictly_increasing([1.0, 2.0, 3.5]))

    eager, traced = _eager_and_traced(
        tf, f, tf.constant([1, 1, 3, 0, 5, 3]), tf.constant([0, 2, 1]), tf.constant([1, 2, 1]),
        tf.constant([[0.1, 0.3, 0.2], [0.5, 0.5, 0.1], [0.2, 0.2, 0.3]]))

    @tf.function(input_signature=[tf.TensorSpec([None], tf.int32)])
    def dynamic(values):
        counts = m.bincount(values, minlength=2)
        print("bincount shape", counts.shape.as_list())
        return counts

    return (eager, traced, dynamic(tf.constant([0, 4])),
            error_name(lambda: m.bincount([-1, 2])),
            error_name(lambda: m.confusion_matrix([1, 5], [2, 2], num_classes=4)))


def bitwise_ops(tf):
    b = tf.bitwise

    def f(x, y, x64, small):
        return (b.bitwise_and(x, y), b.bitwise_or(x, 6), b.bitwise_xor(x64, x64 * 3),
                b.invert(x), b.invert(small), b.left_shift(x, tf.constant([3, 2, 31, 32])),
                b.right_shift(x, tf.constant([2, 1, 31, 40])),
                b.left_shift(x64, tf.constant([63, 1, 0, 2], tf.int64)),
                b.right_shift(small, tf.constant([3, 9], tf.uint8)),
                b.left_shift(small, tf.constant([1, 7], tf.uint8)))

    return _eager_and_traced(tf, f, tf.constant([12, -16, -1, 16]), tf.constant([10, 6, 5, 3]),
                             tf.constant([12, -1, 7, 2**40], tf.int64),
                             tf.constant([200, 3], tf.uint8))


def partition_and_stitch(tf):
    @tf.function(input_signature=[tf.TensorSpec([None, 2]), tf.TensorSpec([None], tf.int32)])
    def round_trip(x, parts):
        pieces = tf.dynamic_partition(x, parts, 2)
        positions = tf.dynamic_partition(tf.range(tf.shape(x)[0]), parts, 2)
        print("piece shapes", [p.shape.as_list() for p in pieces])
        merged = tf.dynamic_stitch(positions, pieces)
        print("stitched shape", merged.shape.as_list())
        return pieces, merged

    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    eager = (tf.dynamic_partition(tf.constant([10, 20, 30, 40, 50]), [0, 0, 1, 1, 0], 2),
             tf.dynamic_partition(x, [1, 0, 1], 3),
             tf.dynamic_partition(tf.constant([[1, 2], [3, 4]]), [[1, 0], [0, 1]], 2),
             tf.dynamic_stitch([[0, 2], [1, 3]], [[10, 30], [20, 40]]),
             tf.dynamic_stitch([[0, 1], [1]], [[10.0, 20.0], [99.0]]),
             tf.dynamic_stitch([[0, 3]], [[1.0, 2.0]]),
             tf.dynamic_stitch([[0], [1]], [[[1, 2]], [[3, 4]]]))
    v = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(v)
        parts = tf.dynamic_partition(v, [1, 0, 1], 2)
        loss = tf.reduce_sum(parts[0] * 2.0) + tf.reduce_sum(
            tf.dynamic_stitch([[0, 1], [1]], [parts[1], [5.0]]) * [3.0, 4.0])
    return (eager, round_trip(x, tf.constant([1, 0, 1])), tape.gradient(loss, v),
            error_name(lambda: tf.dynamic_partition(tf.constant([1, 2]), [0, 2], 2)))


def vectorized_map(tf):
    scale = tf.constant([1.0, 10.0])

    @tf.function(input_signature=[tf.TensorSpec([None, 2])])
    def weighted(x):
        total = tf.reduce_sum(x)
        result = tf.vectorized_map(lambda row: tf.reduce_sum(row * scale) + total, x)
        print("vectorized shape", result.shape.as_list())
        return result

    pairs = (tf.constant([1, 2]), tf.constant([3, 4]))
    return (tf.vectorized_map(lambda r: tf.reduce_sum(r) > 2, tf.constant([[1, 2], [0, 1]])),
            tf.vectorized_map(lambda a: {"sum": a[0] + a[1], "ratio": tf.cast(a[0], tf.float32)
                                         / tf.cast(a[1], tf.float32)}, pairs),
            weighted(tf.constant([[1.0, 2.0], [3.0, 4.0]])))


def python_functions(tf):
    import numpy as np

    calls = []

    def double(x):
        calls.append(type(x).__name__.replace("EagerTensor", "Tensor"))
        return x * 2

    def halves(a):
        return (a / 2.0).astype(np.float32), np.int64(a.size)

    @tf.function(input_signature=[tf.TensorSpec([None])])
    def traced(x):
        y = tf.py_function(double, [x], tf.float32)
        half, size = tf.numpy_function(halves, [x], [tf.float32, tf.int64])
        tf.py_function(lambda v: print("side effect", float(tf.reduce_sum(v))), [x], [])
        return tf.ensure_shape(y, [None]) + 1.0, half, size

    eager = (tf.py_function(double, [tf.constant([1.0, 2.0])], tf.float32),
             tf.py_function(lambda a, b: (a + b, a * b), [3.0, 4.0], [tf.float32, tf.float32]),
             tf.numpy_function(lambda a: np.float32(1.5) * a, [tf.constant(2.0)], tf.float32),
             tf.py_function(lambda: 7, [], tf.int64))
    first = traced(tf.constant([1.0, 2.0]))
    second = traced(tf.constant([3.0]))
    return eager, first, second, calls, error_name(lambda: _traced_wrong_dtype(tf))


def _traced_wrong_dtype(tf):
    """A Tout that does not match what the function returns fails when the op runs."""
    @tf.function
    def wrong(x):
        return tf.py_function(lambda a: a, [x], tf.int32)
    return wrong(tf.constant(1.0))


def python_functions_in_data_pipelines(tf):
    import numpy as np

    def load(index):
        return np.full([2], index.numpy() * 10, np.float32)

    ds = tf.data.Dataset.range(4).map(lambda i: tf.py_function(load, [i], tf.float32))
    ds = ds.map(lambda x: tf.ensure_shape(x, [2])).batch(2)
    numpy_ds = tf.data.Dataset.from_tensor_slices(tf.constant([1.0, 4.0, 9.0])).map(
        lambda x: tf.numpy_function(np.sqrt, [x], tf.float32))
    return ([batch for batch in ds], list(ds.element_spec.shape),
            list(numpy_ds.as_numpy_iterator()))
