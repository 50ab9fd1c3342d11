"""tf.function basics: graphs from Python functions, control flow, retracing, input_signature."""


def relu_branches(tf):
    @tf.function
    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    return simple_relu(tf.constant(1)).numpy(), simple_relu(tf.constant(-1)).numpy()


def collatz_steps(tf):
    @tf.function
    def collatz(n):
        steps = tf.constant(0)
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    return [collatz(tf.constant(k)).numpy() for k in (1, 6, 27)]


def tracing_counts(tf):
    traces = []

    @tf.function
    def square_plus(x):
        traces.append(1)
        print("Tracing!")
        return x * x + tf.constant(2)

    a = square_plus(tf.constant(2))
    b = square_plus(tf.constant(3))
    c = square_plus(tf.constant([1, 2]))
    d = square_plus(2)
    e = square_plus(3)
    return a, b, c, d, e, len(traces), square_plus.experimental_get_tracing_count()


def input_signature_fixed(tf):
    @tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.int32)])
    def next_collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    r1 = next_collatz(tf.constant([1, 2]))
    r2 = next_collatz(tf.constant([3, 4, 5]))
    try:
        next_collatz(tf.constant([[1, 2], [3, 4]]))
        raised = False
    except (TypeError, ValueError):
        raised = True
    return r1, r2, raised, next_collatz.experimental_get_tracing_count()


def reduce_retracing_shapes(tf):
    @tf.function(reduce_retracing=True)
    def total(x):
        return tf.reduce_sum(x)

    values = [total(tf.ones([n])) for n in (1, 2, 3, 4)]
    return values


def concrete_function_call(tf):
    @tf.function
    def double(a):
        return a + a

    concrete = double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.float32))
    return concrete(tf.constant([1.0, 2.0])), double(tf.constant(3)), double(2)


def loop_over_tensor(tf):
    @tf.function
    def sum_even(items):
        s = 0
        for c in items:
            if c % 2 > 0:
                continue
            s += c
        return s

    return sum_even(tf.constant([10, 12, 15, 20]))


def python_loop_unrolled_and_tensor_loop(tf):
    @tf.function
    def f(x, n):
        for i in range(n):          # Python int: unrolled
            x = x * 2.0
        for i in tf.range(3):       # tensor: a graph loop
            x = x + tf.cast(i, tf.float32)
        return x

    return f(tf.constant(1.0), 3), f(tf.constant(1.0), 0)


def while_with_tensor_array(tf):
    @tf.function
    def fib(n):
        ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
        a, b = 0, 1
        for i in tf.range(n):
            ta = ta.write(i, a)
            a, b = b, a + b
        return ta.stack()

    return fib(tf.constant(10))


def running_eagerly(tf):
    @tf.function
    def get_mse(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = tf.pow(y_true - y_pred, 2)
        return tf.reduce_mean(sq_diff)

    y_true = tf.constant([2, 0, 7, 2, 3])
    y_pred = tf.constant([9, 9, 1, 1, 5])
    results = [get_mse(y_true, y_pred) for _ in range(3)]
    tf.config.run_functions_eagerly(True)
    try:
        results += [get_mse(y_true, y_pred) for _ in range(2)]
        eager_flag = tf.config.functions_run_eagerly()
    finally:
        tf.config.run_functions_eagerly(False)
    return results, eager_flag


def nested_functions_and_recursion_of_calls(tf):
    def inner_function(x, y, b):
        x = tf.matmul(x, y)
        x = x + b
        return x

    @tf.function
    def outer_function(x):
        y = tf.constant([[2.0], [3.0]])
        b = tf.constant(4.0)
        return inner_function(x, y, b)

    @tf.function
    def twice(x):
        return outer_function(x) + outer_function(x * 2.0)

    return outer_function(tf.constant([[1.0, 2.0]])).numpy(), twice(tf.constant([[1.0, 2.0]]))


def early_return_and_cond(tf):
    @tf.function
    def classify(x):
        if x > 10:
            return tf.constant(2)
        elif x > 0:
            return tf.constant(1)
        else:
            return tf.constant(0)

    @tf.function
    def pick(x):
        return tf.cond(x > 0, lambda: x * 10, lambda: -x)

    return ([classify(tf.constant(v)).numpy() for v in (20, 5, -1)],
            pick(tf.constant(3)), pick(tf.constant(-3)))


def dtype_and_shape_api(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    i = tf.cast(x, tf.int32)
    return (x.shape.as_list(), x.shape.rank, x.dtype.name, x.dtype.is_floating,
            i.dtype.is_integer, i.dtype == tf.int32, tf.float32.as_numpy_dtype.__name__,
            x.numpy().tolist(), int(tf.size(x)), tf.rank(x), x.shape[0], x.ndim,
            tf.as_dtype("float64").name, x.dtype.size, tf.float32.max > 1e38)


def dtype_objects(tf):
    """TensorFlow's dtype objects: limits for masking, kinds, NumPy types, names, equality."""
    scores = tf.constant([[0.5, 2.0, -1.0], [1.0, 0.0, 3.0]])
    mask = tf.constant([[True, False, True], [False, True, True]])
    masked = tf.where(mask, scores, tf.float32.min)
    kinds = [(d.name, d.is_floating, d.is_integer, d.is_unsigned, d.is_bool, d.is_complex,
              d.size, d.as_datatype_enum)
             for d in (tf.float16, tf.float32, tf.float64, tf.int8, tf.int32, tf.int64,
                       tf.uint8, tf.bool, tf.complex64)]
    limits = [tf.int8.min, tf.int8.max, tf.uint8.limits, tf.int64.min, tf.float64.max,
              tf.float16.min, tf.bool.limits]
    try:
        tf.bool.min
        bool_min = "no error"
    except TypeError:
        bool_min = "TypeError"
    as_dtypes = [tf.as_dtype(name) == tf.as_dtype(name) for name in ("float32", "double")]
    scores_dtype = tf.as_dtype(scores.dtype)
    return (tf.nn.softmax(masked).numpy(), kinds, limits, bool_min, as_dtypes,
            scores_dtype.is_floating, scores_dtype.max, scores.dtype == tf.float32,
            tf.float32 == tf.float64, tf.as_dtype("half").name, tf.complex128.real_dtype.name,
            tf.float32.as_numpy_dtype(1.5), {tf.float32: "f", tf.int32: "i"}[scores.dtype],
            str(tf.int64), repr(tf.float32), tf.zeros([2], tf.float64.as_numpy_dtype).dtype.name,
            tf.float32.is_compatible_with(tf.float32), tf.float32.base_dtype.name)


def module_functions_named_like_list_methods(tf):
    """tf.add, tf.math.add, tf.sort and tf.reverse in loops and branches on tensors: calls of
    a module's functions, not changes to a Python object (``list.sort``, ``set.add``)."""
    @tf.function
    def running(m):
        out = tf.zeros([2])
        for i in tf.range(tf.shape(m)[0]):
            out = tf.add(out, m[i])
            out = tf.math.add(out, 0.5)
        if tf.reduce_sum(out) > 0:
            out = tf.reverse(tf.sort(out), [0])
        while tf.reduce_max(out) < 100.0:
            out = tf.math.multiply(out, 2.0)
        return out

    return running(tf.constant([[1.0, 3.0], [2.0, -1.0], [0.5, 0.5]]))


def loops_over_float_ranges(tf):
    """``for t in tf.range(...)`` with float bounds and steps, up and down, in a graph loop."""
    @tf.function
    def total(start, limit, delta):
        s = tf.constant(0.0)
        count = tf.constant(0)
        for t in tf.range(start, limit, delta):
            s += t
            count += 1
        return s, count

    return [total(*bounds) for bounds in [(0.0, 1.0, 0.25), (1.0, 0.0, -0.25), (0.0, 2.5, 1.0),
                                          (0.5, 3.0, 0.5), (0.0, 1.0, 0.1), (2.0, 2.0, 0.5)]]


def shape_invariant_of_unknown_rank(tf):
    """``tf.TensorShape(None)`` as a loop variable's shape invariant: any shape at all."""
    @tf.function
    def grow(n):
        m = tf.zeros([2, 2])
        for _ in tf.range(n):
            tf.autograph.experimental.set_loop_options(shape_invariants=[(m, tf.TensorShape(None))])
            m = tf.pad(m, [[1, 1], [1, 1]])
        return m

    return grow(tf.constant(2)).shape.as_list(), grow(tf.constant(0)).shape.as_list()


def constants_refuse_floats_for_integer_dtypes(tf):
    """``tf.constant(2.5, tf.int32)`` raises (nothing truncates silently); NumPy values cast."""
    import numpy as np

    refused = []
    for value, dtype in [(2.5, tf.int32), ([1.7, -1.7], tf.int64), (2.0, tf.int32)]:
        try:
            tf.constant(value, dtype)
            refused.append(False)
        except TypeError:
            refused.append(True)
    return refused, tf.constant(np.array([1.5, -2.5]), tf.int32), tf.constant([1, 2], tf.float64)


def input_signature_converts_numpy_arrays(tf):
    """NumPy arrays passed to a function with an input_signature take its dtype (float64 data
    into a float32 signature, int64 into float32); a tensor of another dtype is refused."""
    import numpy as np

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def scaled(x):
        return x * 2

    refused = False
    try:
        scaled(tf.constant([1.0], tf.float64))
    except (TypeError, ValueError):
        refused = True
    return scaled(np.array([1.0, 2.5])), scaled(np.array([1, 2])), refused


def tensor_array_with_tensorflow_s_options(tf):
    """TensorArray's other TensorFlow arguments are accepted (clear_after_read, infer_shape,
    name); in a graph a read clears nothing."""
    @tf.function
    def doubled(n):
        ta = tf.TensorArray(tf.float32, size=n, clear_after_read=True, infer_shape=True,
                            name="squares")
        for i in tf.range(n):
            ta = ta.write(i, tf.cast(i * i, tf.float32))
        return ta.read(1) + ta.read(1), ta.stack()

    return doubled(tf.constant(3))


def concrete_function_with_a_python_argument(tf):
    """A concrete function traced with a Python value is called without it (TensorFlow's
    concrete functions guide); passing the same value again works too."""
    @tf.function
    def power(x, k):
        return x ** k

    cube = power.get_concrete_function(tf.TensorSpec([None], tf.float32), 3)
    both = power.get_concrete_function(tf.constant([1.0]), tf.constant(2.0))
    return (cube(tf.constant([2.0, 3.0])), cube(tf.constant([2.0]), 3),
            both(tf.constant([4.0]), tf.constant(0.5)), both(x=tf.constant([4.0]), k=tf.constant(2.0)))


def numpy_floats_next_to_tensors(tf):
    """NumPy floats (float64 scalars and arrays from NumPy's functions) next to a float32
    tensor become float32, as TensorFlow converts them: data centred with NumPy's mean is
    assigned to a float32 variable and joined with float32 tensors."""
    import numpy as np
    data = np.array([1.0, 2.0, 4.0])
    x = tf.constant([1.0, 2.0, 4.0])
    centred = (x - np.mean(data)) / np.std(data)
    weights = tf.Variable(tf.zeros([3]))
    weights.assign(centred * np.float64(0.5))

    @tf.function
    def scaled(t):
        return tf.concat([t * np.sqrt(2.0), data[:1]], 0) + np.array([0.25, 0.5, 0.75, 1.0])

    return (centred.dtype.name, centred, weights, scaled(x).dtype.name, scaled(x),
            tf.maximum(x, np.float64(1.5)))


def printing_tensors_and_variables(tf):
    """print and repr of eager tensors (scalars, vectors, matrices, a list of them), of
    variables (named or not) and f-strings print what TensorFlow prints."""
    x = tf.constant([1.0, 2.5])
    print(x)
    print(repr(x))
    print(tf.constant(3), repr(tf.constant(3)))
    print([tf.constant(1.5), tf.constant([1, 2])])
    print(tf.Variable([1.0, 2.0]))
    print(repr(tf.Variable(3, name="count")))
    print(tf.constant([[1, 2], [3, 4]], tf.int64))
    print(repr(tf.constant([[1.5, 2], [3, 4]], tf.float64)))
    print(tf.constant(True), repr(tf.constant([True, False])))
    print(f"{x} {tf.constant(2.0):.3f}", "value: %s" % tf.constant(2.0))
    return x


def dtypes_print_and_compare(tf):
    """An eager tensor's dtype prints as TensorFlow's, answers its questions, and still
    equals, keys and converts like the NumPy dtype (inside a traced function too)."""
    import numpy as np
    x = tf.constant([1, 2, 3])
    y = tf.constant([1.0, 2.0], tf.float64)
    print(x.dtype, y.dtype, tf.cast(x, tf.int64).dtype, tf.constant(True).dtype)
    print(repr(x.dtype), f"{y.dtype}", [x.dtype])
    print(x.dtype == tf.int32, y.dtype != tf.float32, x.dtype == np.int32, np.float64 == y.dtype,
          y.dtype in (tf.float32, tf.float64), {tf.int32: "i", tf.float64: "f"}[x.dtype])
    print(y.dtype.name, y.dtype.is_floating, x.dtype.is_integer, x.dtype.size, y.dtype.max > 1e300)

    @tf.function
    def traced(t):
        scale = tf.constant(2, dtype=x.dtype)  # an eager tensor's dtype as an argument
        return tf.cast(t, y.dtype) * tf.cast(scale, y.dtype), t.dtype == tf.int64

    summed, is_int64 = traced(tf.constant([4, 5], tf.int64))
    return (summed, is_int64, np.zeros(2, x.dtype.as_numpy_dtype), tf.zeros([2], dtype=y.dtype),
            tf.as_dtype(y.dtype).name, x.numpy().dtype == x.dtype)


def dtypes_while_tracing(tf):
    """Inside a traced function a tensor's dtype prints and answers as TensorFlow's too."""
    @tf.function
    def traced(t):
        print("tracing", t.dtype, t.shape)
        return tf.cast(t, tf.float64), t.dtype.is_integer, t.dtype.name

    return traced(tf.constant([4, 5], tf.int64))


def shape_api_while_tracing(tf):
    """``x.shape`` inside a traced function answers TensorShape's questions with unknown sizes
    as None: as_list, rank, ndims, is_fully_defined, num_elements, indexing and slicing."""
    seen = []

    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float64)])
    def rows(x):
        shape = x.shape
        seen.append((shape.as_list(), shape.rank, shape.ndims, shape.is_fully_defined(),
                     shape.num_elements(), shape[-1], shape[0], shape[1:].as_list(),
                     shape.is_compatible_with([7, 3])))
        print(shape, x.get_shape().as_list())
        return tf.reshape(x, [-1, shape[-1] * 1]) * 2.0, tf.shape(x)[0]

    @tf.function
    def fixed(x):
        seen.append((x.shape.as_list(), x.shape.is_fully_defined(), x.shape.num_elements(),
                     len(x.shape), x.shape == [2, 2]))
        return tf.reduce_sum(x, axis=x.shape.rank - 1)

    return rows(tf.ones([4, 3], tf.float64)), fixed(tf.ones([2, 2], tf.int64)), seen


def printing_specs_dtypes_and_empty_tensors(tf):
    """print of shapes, tf.shape, specs (TensorSpec.from_tensor too), dtype objects and
    empty tensors."""
    import numpy as np
    x = tf.ones([2, 3], tf.float64)
    print(x.shape, tf.shape(x), x.shape.as_list(), x.ndim, x.shape.rank)
    print(tf.TensorSpec(shape=[None, 3], dtype=tf.int64), tf.TensorSpec.from_tensor(x))
    print(tf.TensorSpec.from_tensor(tf.constant([1, 2]), name="ids"))
    print(tf.float32, tf.int64, repr(tf.bool), tf.as_dtype(np.float64), [tf.int32])
    print(tf.constant([[1.5, 2.25]]).numpy(), tf.constant(2) + 3, tf.constant([1.0]) / 3)
    print(tf.zeros([2, 0]), tf.constant([]), tf.zeros([0], tf.int64))


def empty_integer_constants(tf):
    """An empty list becomes an empty tensor of the dtype asked for."""
    ids = tf.constant([], tf.int32)
    steps = tf.constant([[]], dtype=tf.int64)
    return ids, steps, tf.concat([ids, [4, 5]], 0), tf.convert_to_tensor([], dtype=tf.bool)


def empty_lists_of_other_dtypes(tf):
    """Empty lists become empty tensors of float64 and int64 too (also as variables and in
    zeros_like); a list of floats still does not become integers."""
    floats = tf.constant([], tf.float64)
    counts = tf.Variable([], dtype=tf.int64)
    try:
        tf.constant([1.5, 2.0], tf.int64)
        refused = "no error"
    except (TypeError, ValueError):
        refused = "refused"
    return (floats, counts.numpy(), tf.zeros_like(tf.constant([[]], tf.int64)),
            tf.convert_to_tensor([[], []], dtype=tf.float64), refused)
