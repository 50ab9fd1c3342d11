"""tf.math's special functions as programs use them: values in float32 and float64, at poles
and domain edges, gradients (also second ones), integer tensors refused, inside tf.function."""

from tests.tf_programs import error_name

# acosh and atanh take their own inputs: outside their domains NumPy warns (as for log).
UNARY = ("asinh", "erfc", "erfinv", "lgamma", "digamma", "rint", "ndtri",
         "bessel_i0e", "bessel_i1e", "bessel_i0", "bessel_i1")


def values_and_edges(tf):
    x = tf.constant([-3.5, -1.0, -0.5, 0.0, 0.25, 0.5, 0.999, 1.0, 1.5, 2.5, 7.0, 40.0])
    results = {name: getattr(tf.math, name)(x) for name in UNARY}
    results["x64"] = [getattr(tf.math, name)(tf.cast(x, tf.float64)) for name in UNARY]
    inside = tf.constant([-0.75, 0.0, 0.5, 0.9], tf.float64)
    return (results, tf.asinh(x), tf.acosh(tf.abs(x) + 1.0), tf.atanh(x / 41.0),
            tf.math.acosh(2.0 - inside), tf.math.atanh(inside))


def gradients(tf):
    x = tf.constant([0.3, 0.6, 0.9], tf.float64)
    rows = []
    for name in UNARY + ("acosh", "atanh"):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = getattr(tf.math, name)(x + 1.0 if name == "acosh" else x)
            first = inner.gradient(y, x)
        rows.append((first, None if first is None else outer.gradient(first, x)))
    return rows


def polygamma_and_lgamma_in_a_function(tf):
    @tf.function
    def log_beta_and_rates(a, b):
        log_beta = tf.math.lgamma(a) + tf.math.lgamma(b) - tf.math.lgamma(a + b)
        return log_beta, tf.math.digamma(a) - tf.math.digamma(a + b), \
            tf.math.polygamma(1.0, a), tf.math.polygamma(tf.constant([0.0, 2.0, 3.0]), b)

    return log_beta_and_rates(tf.constant([0.5, 2.0, 3.5]), tf.constant([1.5, 1.0, 0.25]))


def normal_quantiles(tf):
    p = tf.constant([1e-6, 0.025, 0.5, 0.975, 1.0 - 1e-6])
    z = tf.math.ndtri(p)
    return z, tf.math.erfinv(2.0 * p - 1.0) * tf.sqrt(2.0), tf.math.erfc(-z / tf.sqrt(2.0)) / 2.0


def integer_tensors_are_refused(tf):
    ints = tf.constant([1, 2])
    return [error_name(lambda: getattr(tf.math, name)(ints)) for name in UNARY + ("acosh",)]


def special_namespace(tf):
    x = tf.constant([-2.0, 0.5, 3.0])
    return [getattr(tf.math.special, name)(x) for name in
            ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e")]
