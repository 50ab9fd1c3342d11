"""tf.data pipelines iterated in Python and inside tf.function loops."""


def slices_map_batch(tf):
    ds = tf.data.Dataset.from_tensor_slices(tf.range(10))
    ds = ds.map(lambda x: x * 2).filter(lambda x: x % 3 != 0).batch(3)
    return [b.numpy() for b in ds]


def tuples_shuffle_free_training(tf):
    x = tf.reshape(tf.range(12, dtype=tf.float32), [6, 2])
    y = tf.constant([0.0, 1.0, 0.0, 1.0, 0.0, 1.0])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(4)
    w = tf.Variable([0.1, -0.1])

    @tf.function
    def step(xb, yb):
        with tf.GradientTape() as tape:
            logits = tf.linalg.matvec(xb, w)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=yb, logits=logits))
        w.assign_sub(0.01 * tape.gradient(loss, w))
        return loss

    losses = []
    for epoch in range(3):
        for xb, yb in ds:
            losses.append(step(xb, yb))
    return losses, w


def dict_dataset(tf):
    ds = tf.data.Dataset.from_tensor_slices({"a": [1, 2, 3], "b": [10.0, 20.0, 30.0]})
    out = []
    for item in ds:
        out.append(float(item["a"]) * item["b"].numpy())
    return out, sorted(ds.element_spec.keys())


def as_numpy_iterator_and_list(tf):
    ds = tf.data.Dataset.range(5).map(lambda x: x * x)
    return list(ds.as_numpy_iterator()), ds.cardinality().numpy()


def take_skip_repeat_enumerate(tf):
    ds = tf.data.Dataset.range(4).repeat(2).skip(1).take(5)
    pairs = [(int(i), int(x)) for i, x in ds.enumerate(start=10)]
    return pairs


def zip_and_concatenate(tf):
    a = tf.data.Dataset.range(3)
    b = tf.data.Dataset.from_tensor_slices(tf.constant([1.5, 2.5, 3.5]))
    z = tf.data.Dataset.zip((a, b))
    c = a.concatenate(tf.data.Dataset.range(10, 12))
    return [(int(i), float(v)) for i, v in z], [int(v) for v in c]


def reduce_dataset(tf):
    ds = tf.data.Dataset.range(1, 6)
    total = ds.reduce(tf.constant(0, tf.int64), lambda s, x: s + x)
    prod = ds.reduce(tf.constant(1, tf.int64), lambda s, x: s * x)
    return total, prod


def loop_in_function_with_break(tf):
    ds = tf.data.Dataset.from_tensor_slices(tf.constant([3, 1, 4, 1, 5, 9, 2, 6]))

    @tf.function
    def sum_until(ds, limit):
        total = tf.constant(0)
        for x in ds:
            if total + x > limit:
                break
            total += x
        return total

    return sum_until(ds, 10), sum_until(ds, 100)


def batched_mean_in_function(tf):
    ds = tf.data.Dataset.from_tensor_slices(tf.reshape(tf.range(20.0), [10, 2])).batch(4)

    @tf.function
    def mean_of_batches(ds):
        total = tf.zeros([2])
        count = 0.0
        for batch in ds:
            total += tf.reduce_sum(batch, axis=0)
            count += tf.cast(tf.shape(batch)[0], tf.float32)
        return total / count

    return mean_of_batches(ds)


def padded_batch_and_unbatch(tf):
    ds = tf.data.Dataset.range(1, 5).map(lambda n: tf.fill([n], n))
    padded = [b.numpy() for b in ds.padded_batch(2)]
    flat = [int(v) for v in tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).unbatch()]
    return padded, flat


def dataset_element_spec_and_len(tf):
    ds = tf.data.Dataset.from_tensor_slices((tf.zeros([5, 3]), tf.range(5))).batch(2)
    spec_x, spec_y = ds.element_spec
    return (spec_x.shape.as_list(), spec_x.dtype.name, spec_y.dtype.name, len(ds),
            tf.data.experimental.cardinality(ds).numpy())


def get_next_until_out_of_range(tf):
    """``iterator.get_next()`` past the end raises ``tf.errors.OutOfRangeError``, which the
    classic input loop catches."""
    iterator = iter(tf.data.Dataset.range(5).map(lambda x: x * x).batch(2))
    batches = []
    while True:
        try:
            batches.append(iterator.get_next())
        except tf.errors.OutOfRangeError:
            break
    return batches


def group_by_window_and_buckets(tf):
    """Windows by key (full ones at once, the rest in the order of their keys at the end),
    a window size per key, tuple elements, and sequences batched by length buckets: padded to
    the longest, to the bucket's boundary, or not padded with drop_remainder."""
    numbers = tf.data.Dataset.range(10)
    by_three = numbers.group_by_window(lambda x: x % 3, lambda key, w: w.batch(2), window_size=2)
    sized = numbers.group_by_window(lambda x: x % 2,
                                    lambda key, w: w.map(lambda v: v * 10 + key).batch(5),
                                    window_size_func=lambda key: 2 + key)
    pairs = tf.data.Dataset.from_tensor_slices((tf.range(6), tf.range(6) * 2))
    tuples = pairs.group_by_window(lambda a, b: tf.cast(a % 2, tf.int64), lambda key, w: w.batch(3),
                                   window_size=3)
    sequences = [[1], [1, 2, 3], [1, 2], [1, 2, 3, 4, 5], [7], [8, 9, 1, 2], [3, 3, 3]]
    ragged = tf.data.Dataset.from_generator(lambda: iter(sequences),
                                            output_signature=tf.TensorSpec([None], tf.int32))
    length = lambda x: tf.shape(x)[0]  # noqa: E731
    buckets = [ragged.bucket_by_sequence_length(length, [2, 4], [2, 2, 2]),
               ragged.bucket_by_sequence_length(length, [3, 6], [2, 2, 2],
                                                pad_to_bucket_boundary=True),
               ragged.bucket_by_sequence_length(length, [2, 4], [3, 1, 2], drop_remainder=True)]
    doubled = buckets[0].map(lambda x: x * 2)  # needs the element spec, traced with any key
    return ([b.numpy() for b in by_three], [b.numpy() for b in sized],
            [(a.numpy(), b.numpy()) for a, b in tuples],
            [[x.numpy() for x in dataset] for dataset in buckets],
            [x.numpy() for x in doubled], doubled.element_spec.shape.as_list())


def save_and_load_preprocessed(tf):
    """A pipeline's preprocessed elements saved once and loaded back: dicts and tuples of
    components, batches whose last one is shorter, sequences of growing length, and a
    graph loop over a loaded dataset."""
    import os
    import tempfile

    import numpy as np
    with tempfile.TemporaryDirectory() as directory:
        features = os.path.join(directory, "features")
        (tf.data.Dataset.range(5)
         .map(lambda x: {"x": tf.cast(x, tf.float64) * 1.5, "y": (x, tf.fill([2], x))})
         .save(features))
        loaded = tf.data.Dataset.load(features)
        rows = list(loaded.as_numpy_iterator())
        sequences = os.path.join(directory, "sequences")
        tf.data.Dataset.range(1, 4).map(lambda n: tf.range(n)).save(sequences,
                                                                     compression="GZIP")
        grown = [v.tolist() for v in tf.data.Dataset.load(sequences, compression="GZIP")
                 .as_numpy_iterator()]
        batches = os.path.join(directory, "batches")
        tf.data.Dataset.from_tensor_slices((np.arange(6.0).reshape(3, 2).astype("float32"),
                                            np.array([1, 0, 1]))).batch(2).save(batches)
        print(tf.data.Dataset.load(batches).element_spec)

        @tf.function
        def total(ds):
            s = tf.constant(0.0)
            for x, y in ds:
                s += tf.reduce_sum(x) * tf.cast(tf.reduce_sum(y), tf.float32)
            return s

        return (rows, grown, list(tf.data.Dataset.load(batches).as_numpy_iterator()),
                int(loaded.cardinality()), total(tf.data.Dataset.load(batches)))
