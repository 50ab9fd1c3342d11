"""tf.data in converted code, in the manner of AutoGraph's reference tests (datasets_test.py,
loop_basic_test.py): loops over datasets and iterators, next(), break and return, reductions."""


def _range7(tf):
    return tf.data.Dataset.range(7)


def dataset_no_vars_loop(tf):
    @tf.function
    def f(ds):
        for e in ds:
            tf.print(e)

    f(_range7(tf))
    return 0


def iterator_no_vars_loop(tf):
    @tf.function
    def f(ds):
        for e in iter(ds):
            tf.print(e)

    f(_range7(tf))
    return 0


def single_and_two_var_loops(tf):
    @tf.function
    def single(ds):
        s = tf.constant(0, dtype=tf.int64)
        for e in ds:
            s = s * 10 + e
        return s

    @tf.function
    def single_iter(ds):
        s = tf.constant(0, dtype=tf.int64)
        for e in iter(ds):
            s = s * 10 + e
        return s

    @tf.function
    def two(ds):
        s = tf.constant(0, dtype=tf.int64)
        p = tf.constant(1, dtype=tf.int64)
        for e in iter(ds):
            s += e
            p *= e + 1
        return s, p

    ds = _range7(tf)
    return single(ds), single_iter(ds), two(ds)


def loops_with_break(tf):
    @tf.function
    def dataset_loop_with_break(ds):
        s = tf.constant(0, dtype=tf.int64)
        for e in ds:
            s = s * 10 + e
            if s > 100:
                break
        return s

    @tf.function
    def iterator_loop_with_break(ds):
        s = tf.constant(0, dtype=tf.int64)
        for e in iter(ds):
            s = s + e
            if s > 10:
                break
        return s

    ds = _range7(tf)
    return dataset_loop_with_break(ds), iterator_loop_with_break(ds)


def iterator_resuming_loop(tf):
    @tf.function
    def f(ds):
        s = tf.constant(0, dtype=tf.int64)
        itr = iter(ds)
        for e in itr:
            s = s * 10 + e
            break
        for e in itr:
            s = s * 10 + e
            break
        for e in itr:
            s = s * 10 + e
        return s

    return f(_range7(tf))


def iterator_next_calls(tf):
    @tf.function
    def first(ds):
        itr = iter(ds)
        return next(itr)

    @tf.function
    def two_calls(ds):
        itr = iter(ds)
        return 10 * next(itr) + next(itr)

    @tf.function
    def in_loop(ds, n):
        itr = iter(ds)
        s = tf.constant(0, dtype=tf.int64)
        for _ in range(n):
            s = s * 10 + next(itr)
        return s

    ds = _range7(tf)
    return first(ds), two_calls(ds), in_loop(ds, 7)


def iterator_next_past_the_end(tf):
    @tf.function
    def f(ds, cond):
        itr = iter(ds)
        while cond:
            next(itr)

    try:
        f(_range7(tf), tf.constant(True))
        return "no error"
    except tf.errors.OutOfRangeError:
        return "OutOfRangeError"


def return_inside_dataset_loop(tf):
    @tf.function
    def first_above(ds, limit):
        for x in ds:
            if x > limit:
                return x
        return tf.constant(-1, tf.int64)

    ds = _range7(tf)
    try:
        return first_above(ds, 3), first_above(ds, 10)
    except NotImplementedError:
        return "NotImplementedError"


def iterator_created_outside_function(tf):
    ds = tf.data.Dataset.range(10).batch(3)
    it = iter(ds)

    @tf.function
    def step(iterator):
        return tf.reduce_sum(next(iterator))

    return [step(it) for _ in range(3)], next(it)


def next_outside_function(tf):
    ds = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [4.0, 5.0, 6.0]))
    it = iter(ds)
    a = next(it)
    b = it.get_next()
    rest = [x for x, _ in it]
    try:
        next(it)
        end = "no error"
    except StopIteration:
        end = "StopIteration"
    return a, b, rest, end


def enumerate_and_zip_in_function(tf):
    @tf.function
    def f(a, b):
        s = tf.constant(0, tf.int64)
        for i, (x, y) in enumerate(tf.data.Dataset.zip((a, b))):
            s += tf.cast(i, tf.int64) * x + y
        return s

    @tf.function
    def g(ds):
        s = tf.constant(0, tf.int64)
        for i, x in ds.enumerate():
            s += i * x
        return s

    a = tf.data.Dataset.range(4)
    b = tf.data.Dataset.range(10, 14)
    return f(a, b), g(b)


def nested_dataset_loops(tf):
    @tf.function
    def f(outer, inner):
        s = tf.constant(0, tf.int64)
        for x in outer:
            for y in inner:
                if y > x:
                    break
                s += x * y
        return s

    return f(tf.data.Dataset.range(1, 4), tf.data.Dataset.range(1, 6))


def tuple_and_dict_elements_in_function(tf):
    @tf.function
    def weighted(ds):
        total = tf.constant(0.0)
        for features, label in ds:
            total += tf.reduce_sum(features) * tf.cast(label, tf.float32)
        return total

    @tf.function
    def dict_sum(ds):
        total = tf.constant(0.0)
        for item in ds:
            total += item["x"] * item["w"]
        return total

    pairs = tf.data.Dataset.from_tensor_slices((tf.ones([4, 2]), tf.constant([1, 2, 3, 4])))
    dicts = tf.data.Dataset.from_tensor_slices({"x": [1.0, 2.0, 3.0], "w": [0.5, 0.25, 2.0]})
    return weighted(pairs), dict_sum(dicts)


def continue_in_dataset_loop(tf):
    @tf.function
    def f(ds):
        s = tf.constant(0, tf.int64)
        n = 0
        for x in ds:
            if x % 2 == 0:
                continue
            s += x
            n += 1
        return s, n

    return f(tf.data.Dataset.range(10).map(lambda x: x + 1))


def dataset_made_inside_function(tf):
    @tf.function
    def f(x):
        ds = tf.data.Dataset.from_tensor_slices(x).map(lambda v: v * 2.0).batch(2)
        total = tf.constant(0.0)
        for b in ds:
            total += tf.reduce_max(b)
        return total

    @tf.function
    def g(n):
        return tf.data.Dataset.range(n).reduce(tf.constant(0, tf.int64), lambda a, b: a + b)

    return f(tf.constant([1.0, 5.0, 2.0, 7.0, 3.0])), g(tf.constant(5, tf.int64))


def reduce_in_function_and_take_while_loop(tf):
    @tf.function
    def f(ds):
        total = ds.reduce(tf.constant(0.0), lambda acc, x: acc + tf.reduce_sum(x))
        count = tf.constant(0)
        for _ in ds.take(2):
            count += 1
        return total, count

    return f(tf.data.Dataset.from_tensor_slices(tf.ones([5, 2])).batch(2))


def loop_var_first_defined_in_dataset_loop(tf):
    @tf.function
    def f(ds):
        last = tf.constant(0, tf.int64)
        count = 0
        for x in ds:
            last = x
            count += 1
        return last, count

    return f(tf.data.Dataset.range(3, 9))


def outside_iterator_past_the_end(tf):
    it = iter(tf.data.Dataset.range(3))
    first = next(it)

    @tf.function
    def step(iterator):
        return next(iterator) * 10

    values = [first, step(it), step(it)]
    try:
        step(it)
        end = "no error"
    except tf.errors.OutOfRangeError:
        end = "OutOfRangeError"
    return values, end


def next_in_a_graph_loop(tf):
    @tf.function
    def f(ds, n):
        itr = iter(ds)
        first = next(itr)
        s = tf.constant(0, tf.int64)
        for _ in tf.range(n):
            s = s * 10 + next(itr)
        return first, s

    ds = tf.data.Dataset.range(1, 9).map(lambda x: x * 2)
    return f(ds, 3), f(ds, 2)


def for_loop_over_an_iterator_argument(tf):
    """A for loop over an iterator passed to a tf.function goes on from its position and
    leaves it where the loop stopped (a break leaves the element after the one that broke
    out); next() outside continues from there."""
    @tf.function
    def sum_until(iterator, limit):
        total = tf.constant(0, tf.int64)
        for x in iterator:
            if x > limit:
                break
            total += x
        return total

    @tf.function
    def weighted(iterator):
        total = tf.constant(0.0, tf.float64)
        for a, b in iterator:
            total += tf.reduce_sum(a * b)
        return total

    numbers = iter(tf.data.Dataset.range(12))
    first = next(numbers)
    sums = [sum_until(numbers, tf.constant(limit, tf.int64)) for limit in (3, 7)]
    after = next(numbers)
    rest = sum_until(numbers, tf.constant(100, tf.int64))
    pairs = tf.data.Dataset.from_tensor_slices((tf.range(6.0, dtype=tf.float64),
                                                tf.range(6.0, dtype=tf.float64) * 10)).batch(4)
    return first, sums, after, rest, weighted(iter(pairs))
