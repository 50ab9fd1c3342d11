"""GradientTape: gradients, training loops by hand, in and out of tf.function."""


def square_gradient(tf):
    w = tf.Variable([[1.0]])
    with tf.GradientTape() as tape:
        loss = w * w
    grad = tape.gradient(loss, w)
    return grad


def watch_constant_and_persistent(tf):
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    dz_dx = tape.gradient(z, x)
    dy_dx = tape.gradient(y, x)
    del tape
    return dz_dx, dy_dx


def nested_tapes_second_derivative(tf):
    x = tf.Variable(1.5)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = x ** 3 + tf.sin(x)
        dy = inner.gradient(y, x)
    d2y = outer.gradient(dy, x)
    return dy, d2y


def linear_regression_loop(tf):
    xs = tf.constant([[1.0], [2.0], [3.0], [4.0]])
    ys = tf.constant([[3.0], [5.0], [7.0], [9.0]])
    w = tf.Variable([[0.1]])
    b = tf.Variable([0.0])

    @tf.function
    def train_step(x, y, lr):
        with tf.GradientTape() as tape:
            pred = tf.matmul(x, w) + b
            loss = tf.reduce_mean(tf.square(pred - y))
        dw, db = tape.gradient(loss, [w, b])
        w.assign_sub(lr * dw)
        b.assign_sub(lr * db)
        return loss

    losses = [train_step(xs, ys, 0.05) for _ in range(50)]
    return losses[0], losses[-1], w, b


def sgd_optimizer_loop(tf):
    x = tf.Variable(3.0)
    opt = tf.optimizers.SGD(learning_rate=0.1)
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = (x - 1.0) ** 2
        grads = tape.gradient(loss, [x])
        opt.apply_gradients(zip(grads, [x]))
    return x


def gradient_through_control_flow(tf):
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.constant(1.0)
            for i in tf.range(3):
                if y < 10.0:
                    y = y * x
        return y, tape.gradient(y, x)

    return f(tf.constant(2.0)), f(tf.constant(3.0))


def custom_gradient_log1pexp(tf):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    def grad_log1pexp(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            value = log1pexp(x)
        return tape.gradient(value, x)

    return grad_log1pexp(tf.constant(0.0)).numpy(), grad_log1pexp(tf.constant(100.0)).numpy()


def custom_gradient_second_derivative(tf):
    @tf.custom_gradient
    def softplus(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    v = tf.Variable(2.0)

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            return dy * v * v, [dy * 2.0 * v * x]
        return x * v * v, grad

    def of_argument(x):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = softplus(x)
            first = inner.gradient(y, x)
        return first, outer.gradient(first, x)

    def of_variable(x):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = scaled(x)
            first = inner.gradient(y, v)
        return first, outer.gradient(first, v)

    x = tf.constant(1.0)
    return (of_argument(x), tf.function(of_argument)(x), of_variable(x),
            tf.function(of_variable)(x))


def line_search(tf):
    def line_search_step(fn, init_x, rate=1.0):
        with tf.GradientTape() as tape:
            tape.watch(init_x)
            value = fn(init_x)
        grad = tape.gradient(value, init_x)
        init_value = value - 1
        while value > init_value:
            x = init_x - rate * grad
            value = fn(x)
            rate /= 2.0
        return x, value

    return line_search_step(lambda x: tf.reduce_sum(x * x), tf.constant([1.0, 2.0]))


def jacobian_and_stop_gradient(tf):
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = tf.reduce_sum(y * tf.stop_gradient(x))
    return tape.jacobian(y, x), tape.gradient(z, x)


def unconnected_and_none(tf):
    a = tf.Variable(1.0)
    b = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = a * 3.0
    ga, gb = tape.gradient(y, [a, b])
    with tf.GradientTape() as tape:
        y = a * 3.0
    zeros = tape.gradient(y, b, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    return ga, gb is None, zeros


def custom_gradient_of_a_variable_argument(tf):
    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.5, 0.5)
        return tf.identity(x), grad

    v = tf.Variable([1.0, 2.0])
    weights = tf.constant([3.0, 0.1])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(clip_gradient(v) * weights)

    @tf.function
    def traced():
        with tf.GradientTape() as inner:
            z = tf.reduce_sum(clip_gradient(v) * weights)
        return inner.gradient(z, v)

    return tape.gradient(y, v).numpy(), traced().numpy()


def gradients_at_singular_points(tf):
    # (inputs whose forward values are finite: NumPy warns of sqrt(-1) and 1/0, TensorFlow not)
    results = []
    for fn, values in ((tf.sqrt, [0.0, 4.0]), (tf.math.reciprocal, [-1.0, 2.0])):
        x = tf.constant(values, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(tf.where(x > 0, fn(x), tf.zeros_like(x)))
        results.append(tape.gradient(y, x).numpy())
    at_zero = tf.constant([0.0, -0.0, 1e-300, -0.5], tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(at_zero)
        y = tf.reduce_sum(tf.nn.selu(at_zero))
    results.append(tape.gradient(y, at_zero).numpy())
    return results


def batch_jacobian_and_jacobian_options(tf):
    x = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]], tf.float64)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.stack([tf.sin(x[:, 0]) * x[:, 1], x[:, 0] ** 2, tf.reduce_sum(x, axis=1)], axis=1)
    batch = tape.batch_jacobian(y, x)
    full = tape.jacobian(y, x, experimental_use_pfor=False, parallel_iterations=2)

    @tf.function
    def traced(v):
        with tf.GradientTape() as inner:
            inner.watch(v)
            w = tf.tanh(v) * v[:, :1]
        return inner.batch_jacobian(w, v)

    return batch.numpy(), full.numpy(), traced(x).numpy()


def tape_options_and_unconnected_sources(tf):
    """A persistent tape asked twice, nested tapes (a second derivative), stop_gradient,
    output_gradients, watch_accessed_variables=False, a source the target does not reach
    (None) and a gradient through a cast to float64."""
    x = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        squares = tf.reduce_sum(x ** 2)
        sines = tf.reduce_sum(tf.sin(x))
    first, second = tape.gradient(squares, x), tape.gradient(sines, x)
    del tape
    c = tf.constant(2.0, tf.float64)
    with tf.GradientTape() as outer:
        outer.watch(c)
        with tf.GradientTape() as inner:
            inner.watch(c)
            cube = c ** 3
        slope = inner.gradient(cube, c)
    curvature = outer.gradient(slope, c)
    with tf.GradientTape() as tape:
        held = tf.stop_gradient(x * 2) * x
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as unconnected:
        only_a = a * 3.0
    with tf.GradientTape() as cast_tape:
        wide = tf.cast(a, tf.float64) * 2
    with tf.GradientTape(watch_accessed_variables=False) as chosen:
        chosen.watch(b)
        product = a * b
    with tf.GradientTape() as weighted:
        doubled = x * 2
    return (first, second, slope, curvature, tape.gradient(held, x),
            unconnected.gradient(only_a, [a, b]), cast_tape.gradient(wide, a),
            chosen.gradient(product, [a, b]),
            weighted.gradient(doubled, x, output_gradients=tf.constant([1.0, 0.0, 2.0])))
