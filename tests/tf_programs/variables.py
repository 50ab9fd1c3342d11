"""Variables (created outside and on the first call of a tf.function) and printing."""

import sys


def counter_variable(tf):
    v = tf.Variable(1.0)

    @tf.function
    def add_to(x):
        v.assign_add(x)
        return v.read_value()

    a = add_to(tf.constant(2.0))
    b = add_to(tf.constant(3.0))
    v.assign(10.0)
    c = add_to(tf.constant(1.0))
    return a, b, c, v.numpy(), v.dtype.name, v.shape.as_list(), v.trainable


def variable_arithmetic(tf):
    w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
    x = tf.constant([[1.0], [1.0]])
    y = tf.matmul(w, x) + w[0, 0]
    z = w * 2 - 1
    w.assign_sub([[1.0, 1.0], [1.0, 1.0]])
    return y, z, w + 0, tf.reduce_sum(w), tf.convert_to_tensor(w), w.shape.as_list()


def variable_created_on_first_call(tf):
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    first = c()
    second = c()
    return first, second, c.count.numpy()


def variable_created_every_call_raises(tf):
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v + x

    try:
        f(tf.constant(1.0))  # the first call traces twice: the second trace creates one again
        raised = "no error"
    except ValueError as e:
        raised = "ValueError" if "singleton" in str(e) else "other ValueError"

    class Lazy(tf.Module):
        def __init__(self):
            self.v = None
            self.traces = 0

        @tf.function
        def __call__(self, x):
            self.traces += 1
            if self.v is None:
                self.v = tf.Variable(tf.ones_like(x) * 2.0)
            return self.v * x

    lazy = Lazy()
    first = lazy(tf.constant(3.0))
    again = lazy(tf.constant(4.0))
    try:
        lazy(tf.constant([1.0, 2.0]))  # a new trace: self.v exists, no new variable
        retrace = "ok"
    except ValueError:
        retrace = "ValueError"
    return raised, first, again, retrace, lazy.traces


def tf_print_formats(tf):
    @tf.function
    def show(x, n):
        tf.print("x =", x)
        tf.print(x, n, sep=", ")
        tf.print("sum:", tf.reduce_sum(x), "items", n, output_stream=sys.stdout)
        return x

    show(tf.constant([1.0, 2.5, 3.0]), tf.constant(4))
    tf.print(tf.constant([[1, 2], [3, 4]]))
    tf.print(tf.range(10))
    tf.print(tf.constant(1.5), tf.constant(True), 7, "text")
    tf.print({"a": tf.constant(1), "b": [tf.constant(2.0), 3]})
    tf.print(tf.reshape(tf.range(24), [2, 3, 4]))
    tf.print(tf.constant([0.1, 1e-8, 123456.789]))
    tf.print(tf.range(100), summarize=5)
    tf.print(tf.range(8), summarize=-1)
    return 0


def print_in_loops(tf):
    @tf.function
    def count_down(n):
        while n > 0:
            tf.print("n:", n)
            n -= 1
        print("traced")
        return n

    count_down(tf.constant(3))
    count_down(tf.constant(2))
    return 0


def variables_in_loop(tf):
    acc = tf.Variable(tf.zeros([3]))

    @tf.function
    def accumulate(xs):
        for x in xs:
            acc.assign_add(x)
        return acc.value()

    r = accumulate(tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
    return r, acc.numpy()


def variable_dtype_and_errors(tf):
    v = tf.Variable(tf.constant([1, 2, 3]))
    try:
        v.assign([1.5, 2.5, 3.5])
        assign_float = "ok"
    except (TypeError, ValueError):
        assign_float = "error"
    try:
        v.assign([1, 2])
        bad_shape = "ok"
    except ValueError:
        bad_shape = "ValueError"
    return v.dtype.name, assign_float, bad_shape, v.numpy()


def slices_and_scatter_updates_of_variables(tf):
    v = tf.Variable([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    v[1].assign([5.0, 6.0])
    v[:, 0].assign([1.0, 2.0, 3.0])
    counts = tf.Variable(tf.zeros([4], tf.int64))

    @tf.function
    def count(i):
        counts[i].assign(counts[i] + 1)
        v[i % 3, 1].assign(v[i % 3, 1] - 0.5)

    for i in (0, 3, 3, 2):
        count(tf.constant(i))
    counts.scatter_nd_update([[1]], tf.constant([7], tf.int64))
    return v.numpy(), counts.numpy()


def assigning_python_lists_and_numpy_arrays(tf):
    """Values that are not tensors take the variable's dtype when assigned (NumPy float64
    data into a float32 variable, a list of Python ints into a float one), eagerly and in a
    tf.function."""
    import numpy as np

    v = tf.Variable([1.0, 2.0])
    v.assign(np.array([0.5, 1.5]))
    first = v.numpy().copy()
    v.assign_add(np.ones(2))
    v.assign_sub([1, 1])
    second = v.numpy().copy()
    v[0].assign(np.float64(7.0))

    @tf.function
    def update(delta):
        v.assign_add(np.array([0.25, 0.25]) * 2)
        v.assign([3, 4])
        return v.read_value() + delta

    counts = tf.Variable(0, dtype=tf.int64)
    counts.assign_add(np.int32(3))
    return first, second, v.numpy().copy(), update(tf.constant(1.0)), counts.numpy()


def variable_names(tf):
    unnamed, named = tf.Variable(1.0), tf.Variable(2.0, name="w")
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            scoped = tf.Variable(3.0, name="x")
        scoped_unnamed = tf.Variable(4.0)

    class Affine(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable([[1.0, 2.0]], name="w")
            self.b = tf.Variable([0.5], name="b")

    affine = Affine(name="affine")
    layer = tf.keras.layers.Dense(2, name="dense_named")
    layer.build((None, 3))
    directory = __import__("tempfile").mkdtemp()
    checkpoint = tf.train.Checkpoint(w=named, affine=affine)
    path = checkpoint.save(directory + "/ckpt")
    named.assign(5.0)
    checkpoint.restore(path)
    return ([v.name for v in (unnamed, named, scoped, scoped_unnamed)],
            [v.name for v in affine.variables], repr(scoped), [w.name for w in layer.weights],
            named.numpy(), repr(unnamed))


def variable_dtypes_print(tf):
    """A variable's dtype prints as TensorFlow's and still compares like the NumPy dtype; a
    Keras weight's prints as Keras 3's name."""
    import numpy as np
    w = tf.Variable([1.0, 2.0], dtype=tf.float64)
    n = tf.Variable([1, 2], dtype=tf.int64)
    print(w.dtype, n.dtype, tf.Variable(1.0).dtype, repr(w.dtype), [n.dtype])
    print(w.dtype == tf.float64, n.dtype == np.int64, w.dtype.is_floating, n.dtype.name,
          {tf.float64: "f", tf.int64: "i"}[n.dtype], np.zeros(2, w.dtype.as_numpy_dtype).dtype)
    layer = tf.keras.layers.Dense(2)
    layer.build((None, 3))
    print(layer.kernel.dtype, layer.bias.dtype)
    return tf.cast(n, w.dtype), tf.zeros([2], n.dtype), w.dtype.name
