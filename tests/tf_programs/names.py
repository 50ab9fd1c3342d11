"""TensorFlow names programs use around their computations: tf.errors' classes and codes,
top-level helpers, and checks in tf.debugging; eagerly and inside tf.function."""

from tests.tf_programs import error_name

ERRORS = ("AbortedError AlreadyExistsError CancelledError DataLossError DeadlineExceededError "
          "FailedPreconditionError InternalError InvalidArgumentError NotFoundError "
          "OutOfRangeError PermissionDeniedError ResourceExhaustedError UnauthenticatedError "
          "UnavailableError UnimplementedError UnknownError").split()
CODES = ("OK CANCELLED UNKNOWN INVALID_ARGUMENT DEADLINE_EXCEEDED NOT_FOUND ALREADY_EXISTS "
         "PERMISSION_DENIED RESOURCE_EXHAUSTED FAILED_PRECONDITION ABORTED OUT_OF_RANGE "
         "UNIMPLEMENTED INTERNAL UNAVAILABLE DATA_LOSS UNAUTHENTICATED").split()


def error_classes_and_codes(tf):
    caught = []
    for name in ERRORS:
        try:
            raise getattr(tf.errors, name)(None, None, f"{name} raised by the program")
        except tf.errors.OpError as error:
            caught.append((type(error).__name__, error.message, str(error), error.error_code,
                           error.op, error.node_def))
    generic = tf.errors.OpError(None, None, "generic", tf.errors.UNAVAILABLE)
    return caught, {code: getattr(tf.errors, code) for code in CODES}, generic.error_code


def catching_what_ops_raise(tf):
    try:
        tf.reshape(tf.range(6), [4, 2])
    except tf.errors.OpError as error:
        reshape = (type(error).__name__, error.error_code)
    iterator = iter(tf.data.Dataset.range(1))

    @tf.function
    def two_steps():
        return next(iterator) + next(iterator)

    try:
        two_steps()
    except tf.errors.OutOfRangeError as error:
        out_of_range = (type(error).__name__, error.error_code)
    return reshape, out_of_range, error_name(lambda: tf.errors.NotFoundError("message only"))


def top_level_helpers(tf):
    with tf.name_scope("outer"):
        with tf.name_scope("inner"):
            scope = tf.get_current_name_scope()

    @tf.function
    def inside(x):
        a, b = tf.identity_n([x, tf.cast(x, tf.int32)])
        c, d = tf.tuple([a * 2.0, b + 1])
        return c, d, tf.guarantee_const(x), tf.inside_function(), tf.realdiv(x, 4.0)

    stamp = tf.timestamp()
    shapes = (tf.broadcast_static_shape(tf.TensorShape([2, 1]), tf.TensorShape([3])),
              tf.broadcast_static_shape(tf.TensorShape([None, 1]), tf.TensorShape([4])))
    bins = tf.histogram_fixed_width_bins([-1.0, 0.0, 1.5, 2.0, 5.0, 15.0], [0.0, 5.0], nbins=5)
    v = tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN,
                    synchronization=tf.VariableSynchronization.ON_READ)
    return (scope, tf.get_current_name_scope(), inside(tf.constant([1.0, 6.0])),
            tf.inside_function(), stamp.dtype == tf.float64, float(stamp) > 1.7e9, shapes,
            error_name(lambda: tf.broadcast_static_shape(tf.TensorShape([2]),
                                                         tf.TensorShape([3]))),
            bins, v.aggregation.name, v.synchronization.name, tf.Variable(0.0).aggregation.name,
            [member.name for member in tf.VariableSynchronization],
            error_name(lambda: tf.realdiv(tf.constant(3), tf.constant(2))) != "no error")


def assert_eagerly_and_in_a_function(tf):
    @tf.function
    def half_of_positive(x):
        tf.Assert(tf.reduce_all(x > 0), ["x must be positive", x])
        return x / 2.0

    eager_pass = tf.Assert(tf.constant(True), ["never shown"])
    return (eager_pass, half_of_positive(tf.constant([2.0, 4.0])),
            error_name(lambda: half_of_positive(tf.constant([1.0, -1.0]))),
            error_name(lambda: tf.debugging.Assert(tf.constant(False), ["bad", tf.constant(3)])))


def debugging_checks(tf):
    x = tf.constant([1.0, 2.0])
    infinite = tf.constant([float("inf"), 2.0])
    d = tf.debugging

    @tf.function
    def checked(a, b):
        d.assert_near(a, b, rtol=0.01, message="near")
        d.assert_none_equal(a, b)
        d.assert_all_finite(a, "finite")
        d.assert_rank_in(a, [1, 2])
        d.assert_scalar(a[0])
        d.assert_type(a, tf.float32)
        d.assert_integer(tf.shape(a))
        return a + b

    return (d.assert_near(x, x + 1e-7), error_name(lambda: d.assert_near(x, x + 0.1)),
            d.assert_near(x, x + 0.1, atol=0.2),
            error_name(lambda: d.assert_near(tf.constant([1, 2]), tf.constant([1, 2]))),
            d.assert_all_finite(x, "finite"), error_name(lambda: d.assert_all_finite(infinite, "")),
            d.assert_type(x, tf.float32), error_name(lambda: d.assert_type(x, tf.int32)),
            d.assert_scalar(tf.constant(1.0)), error_name(lambda: d.assert_scalar(x)),
            d.assert_integer(tf.constant(1)), error_name(lambda: d.assert_integer(x)),
            d.assert_none_equal(x, x + 1),
            error_name(lambda: d.assert_none_equal(x, tf.constant([1.0, 3.0]))),
            d.assert_rank_in(x, [1, 2]), error_name(lambda: d.assert_rank_in(x, [0, 2])),
            d.assert_same_float_dtype([x, x]) == tf.float32,
            d.assert_same_float_dtype() == tf.float32,
            error_name(lambda: d.assert_same_float_dtype([x, tf.cast(x, tf.float64)])),
            error_name(lambda: d.assert_same_float_dtype([tf.constant([1])])),
            d.is_numeric_tensor(x), d.is_numeric_tensor(tf.constant(True)),
            d.is_numeric_tensor(x.numpy()),
            checked(x, x * 1.001), error_name(lambda: checked(x, x * 1.1)),
            error_name(lambda: checked(infinite, x)))


def debugging_switches(tf):
    d = tf.debugging
    before = d.is_traceback_filtering_enabled()
    d.disable_traceback_filtering()
    off = d.is_traceback_filtering_enabled()
    d.enable_traceback_filtering()
    placement = [d.get_log_device_placement()]
    d.set_log_device_placement(True)
    placement.append(d.get_log_device_placement())
    d.set_log_device_placement(False)
    return before, off, d.is_traceback_filtering_enabled(), placement


def gradients_and_hessians_in_a_function(tf):
    v = tf.Variable([1.0, 3.0])

    @tf.function
    def derivatives(x):
        y = tf.reduce_sum(x ** 3) + x[0] * x[1]
        z = tf.reduce_sum(tf.sin(x) * v)
        first = tf.gradients(y, [x, v],
                             aggregation_method=tf.AggregationMethod.EXPERIMENTAL_TREE)
        both = tf.gradients([z, y], [x, v], unconnected_gradients="zero")
        return (first[0], first[1] is None, both, tf.hessians(y, x), tf.hessians(z, [x]),
                tf.gradients(y, x, grad_ys=2.0))

    methods = tf.AggregationMethod
    return (derivatives(tf.constant([1.0, 2.0])),
            [methods.ADD_N, methods.DEFAULT, methods.EXPERIMENTAL_TREE,
             methods.EXPERIMENTAL_ACCUMULATE_N],
            error_name(lambda: tf.gradients(tf.constant(1.0), tf.constant(1.0))),
            error_name(lambda: tf.hessians(tf.constant(1.0), tf.constant(1.0))))


def check_numerics_switch(tf):
    infinite = tf.constant([float("inf"), 1.0])

    @tf.function
    def shifted(x):
        return x - 1.0

    tf.debugging.enable_check_numerics()
    try:
        checked = (tf.constant([2.0]) - 1.0, error_name(lambda: infinite - 1.0),
                   shifted(tf.constant([3.0])), error_name(lambda: shifted(infinite)),
                   tf.cast(tf.constant([1, 2]) * 2, tf.float32))
    finally:
        tf.debugging.disable_check_numerics()
    return checked, infinite - 1.0
