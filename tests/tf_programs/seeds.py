"""The examples of the seed documents (TensorFlow's guides on graphs, tf.function, AutoGraph
and eager execution), with random inputs replaced by constants where values are compared."""


def function_that_uses_a_graph(tf):
    def a_regular_function(x, y, b):
        x = tf.matmul(x, y)
        x = x + b
        return x

    a_function_that_uses_a_graph = tf.function(a_regular_function)
    x1 = tf.constant([[1.0, 2.0]])
    y1 = tf.constant([[2.0], [3.0]])
    b1 = tf.constant(4.0)
    orig_value = a_regular_function(x1, y1, b1).numpy()
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    assert orig_value == tf_function_value
    return tf_function_value


def my_function_branches(tf):
    def my_function(x):
        if tf.reduce_sum(x) <= 1:
            return x * x
        else:
            return x - 1

    a_function = tf.function(my_function)
    print("First branch, with graph:", a_function(tf.constant(1.0)).numpy())
    print("Second branch, with graph:", a_function(tf.constant([5.0, 5.0])).numpy())
    code = tf.autograph.to_code(my_function)
    return isinstance(code, str) and "def " in code


def my_relu_polymorphism(tf):
    @tf.function
    def my_relu(x):
        return tf.maximum(0., x)

    results = [my_relu(tf.constant(5.5)), my_relu([1, -1]), my_relu(tf.constant([3., -3.])),
               my_relu(tf.constant(-2.5)), my_relu(tf.constant([-1., 1.]))]
    signatures = my_relu.pretty_printed_concrete_signatures()
    return results, isinstance(signatures, str), my_relu.experimental_get_tracing_count()


def get_mse_print_once(tf):
    @tf.function
    def get_MSE(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = tf.pow(y_true - y_pred, 2)
        return tf.reduce_mean(sq_diff)

    y_true = tf.constant([2, 0, 7, 2, 3])
    y_pred = tf.constant([9, 9, 1, 1, 5])
    error = get_MSE(y_true, y_pred)
    error = get_MSE(y_true, y_pred)
    error = get_MSE(y_true, y_pred)
    tf.config.run_functions_eagerly(True)
    error2 = get_MSE(y_true, y_pred)
    error2 = get_MSE(y_true, y_pred)
    tf.config.run_functions_eagerly(False)
    y_rand = tf.random.uniform([5], maxval=10, dtype=tf.int32)
    return error, error2, y_rand.dtype.name, y_rand.shape.as_list()


def unused_return_non_strict(tf):
    def unused_return_eager(x):
        tf.gather(x, [1])  # unused
        return x

    try:
        print(unused_return_eager(tf.constant([0.0])).numpy())
        eager = "no error"
    except tf.errors.InvalidArgumentError as e:
        eager = type(e).__name__

    @tf.function
    def unused_return_graph(x):
        tf.gather(x, [1])  # unused
        return x

    return eager, unused_return_graph(tf.constant([0.0]))


def power_loop(tf):
    x = tf.constant([[1, 0, 1], [0, 1, 1], [1, 1, 0]])

    def power(x, y):
        result = tf.eye(3, dtype=tf.dtypes.int32)
        for _ in range(y):
            result = tf.matmul(x, result)
        return result

    power_as_graph = tf.function(power)
    return power(x, 5), power_as_graph(x, 5)


def tracing_function_python_args(tf):
    @tf.function
    def a_function_with_python_side_effect(x):
        print("Tracing!")
        return x * x + tf.constant(2)

    print(a_function_with_python_side_effect(tf.constant(2)).numpy())
    print(a_function_with_python_side_effect(tf.constant(3)).numpy())
    print(a_function_with_python_side_effect(2).numpy())
    print(a_function_with_python_side_effect(3).numpy())
    return a_function_with_python_side_effect.experimental_get_tracing_count()


def eager_fizzbuzz(tf):
    def fizzbuzz(max_num):
        counter = tf.constant(0)
        max_num = tf.convert_to_tensor(max_num)
        for num in range(1, max_num.numpy() + 1):
            num = tf.constant(num)
            if int(num % 3) == 0 and int(num % 5) == 0:
                print('FizzBuzz')
            elif int(num % 3) == 0:
                print('Fizz')
            elif int(num % 5) == 0:
                print('Buzz')
            else:
                print(num.numpy())
            counter += 1
        return counter

    return fizzbuzz(15)


def eager_variables_forward(tf):
    W = tf.Variable(tf.ones(shape=(2, 2)), name="W")
    b = tf.Variable(tf.zeros(shape=(2)), name="b")

    def forward(x):
        return W * x + b

    return forward([1, 0]), W.name.startswith("W"), b.dtype.name


def graph_function_type(tf):
    @tf.function
    def regular_function(x, y, b):
        x = tf.matmul(x, y)
        x = x + b
        return x

    @tf.function
    def tracing_function(x):
        print("Tracing")
        return x * x + tf.constant(2)

    print("#1: ", tracing_function(tf.constant(5)).numpy())
    print("#2: ", tracing_function(tf.constant(6)).numpy())
    print("#1: ", tracing_function(5).numpy())
    print("#2: ", tracing_function(6).numpy())
    return regular_function(tf.constant([[1.0, 2.0]]), tf.constant([[2.0], [3.0]]),
                            tf.constant(4.0)), callable(regular_function)
