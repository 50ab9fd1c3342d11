"""Programs in the shape of TensorFlow users' code (tutorials, questions and answers) that
once differed from TensorFlow: shapes known while tracing through ``tf.shape`` arithmetic,
dropout and random draws of a batch of any size, printed shapes and specs, tf.image."""

import numpy as np

from tests.tf_programs import error_name


def dynamic_batch_dropout_and_draws(tf):
    dropout = tf.keras.layers.Dropout(0.5)
    dense = tf.keras.layers.Dense(3, kernel_initializer="ones")
    traced = []

    @tf.function(input_signature=[tf.TensorSpec([None, 4])])
    def step(x):
        dropped = dropout(x, training=True)
        noise = tf.random.uniform(tf.shape(x))
        rows = tf.random.normal([tf.shape(x)[0], 2])
        shared = tf.nn.dropout(x, 0.5, noise_shape=[tf.shape(x)[0], 1])
        traced.append([t.shape.as_list() for t in (dropped, noise, rows, shared)])
        kept = tf.reduce_all((dropped == 0.0) | (dropped == 2.0))
        same_in_row = tf.reduce_all(shared[:, :1] == shared)
        return tf.shape(dropped), tf.shape(noise), tf.shape(rows), kept, same_in_row

    return (step(tf.ones([3, 4])), step(tf.ones([5, 4])), traced,
            dense(tf.ones([2, 6, 4])).shape.as_list())


def static_shapes_through_shape_arithmetic(tf):
    traced = []
    dense = tf.keras.layers.Dense(2, kernel_initializer="ones")
    dense.build((None, 4))

    @tf.function
    def f(x):
        flat = tf.reshape(x, tf.concat([tf.shape(x)[:-2], [-1]], axis=0))
        filled = tf.fill(tf.shape(x)[1:], 2.0)
        projected = dense(x)
        rows = tf.reshape(x, [tf.shape(x)[0], -1])
        zeros = tf.zeros([tf.shape(x)[1], tf.shape(x)[-1]])
        traced.append([t.shape.as_list() for t in (flat, filled, projected, rows, zeros)])
        return flat, filled, projected, rows, zeros

    values = f(tf.reshape(tf.range(24.0), [2, 3, 4]))
    return values, traced


def printed_specs_and_shapes(tf):
    ds = tf.data.Dataset.from_tensor_slices((np.arange(4.0, dtype="float32"), np.arange(4)))
    print(ds.batch(2).element_spec)
    weights = tf.Variable(tf.zeros([3, 2]))
    print([weights.shape, tf.ones([2]).shape, tf.zeros([]).shape])
    print(tf.TensorSpec([None, 3], tf.int32, name="x"), repr(tf.TensorSpec([2])))
    print(weights.shape, f"{tf.ones([4, 1]).shape}")


def image_basics(tf):
    batch = tf.reshape(tf.range(2 * 4 * 5 * 3, dtype=tf.float32), [2, 4, 5, 3]) / 120.0
    photo = tf.cast(tf.reshape(tf.range(4 * 4 * 3) * 5, [4, 4, 3]), tf.uint8)
    image = tf.image

    def all_of(batch, photo):
        return (image.resize(batch, [3, 7]), image.resize(batch, [8, 2], method="nearest"),
                image.resize(photo, [6, 3]), image.resize(photo, [2, 2], method="nearest"),
                image.resize(batch[0], [4, 4], preserve_aspect_ratio=True),
                image.resize_with_pad(batch, 6, 4), image.resize_with_crop_or_pad(photo, 3, 6),
                image.flip_left_right(batch), image.flip_up_down(photo), image.rot90(photo),
                image.rot90(batch, k=3), image.transpose(batch), image.central_crop(batch, 0.5),
                image.crop_to_bounding_box(photo, 1, 0, 2, 3),
                image.pad_to_bounding_box(batch, 1, 2, 6, 8),
                image.convert_image_dtype(photo, tf.float32),
                image.convert_image_dtype(batch, tf.uint8),
                image.convert_image_dtype(photo, tf.int32),
                image.convert_image_dtype(tf.constant([[[70000]]], tf.int32), tf.uint16),
                image.rgb_to_grayscale(batch), image.rgb_to_grayscale(photo),
                image.grayscale_to_rgb(batch[..., :1]), image.adjust_brightness(batch, 0.25),
                image.adjust_brightness(photo, 0.5), image.adjust_contrast(batch, 1.5),
                image.per_image_standardization(photo),
                image.per_image_standardization(tf.cast(batch, tf.float64)),
                image.resize(batch, [2, 2], method=image.ResizeMethod.NEAREST_NEIGHBOR))

    with tf.GradientTape() as tape:
        tape.watch(batch)
        resized = image.resize(batch, [5, 3]) * tf.range(3, dtype=tf.float32)
    flips = tf.data.Dataset.from_tensors(batch[0]).repeat(6).map(
        lambda x: image.random_flip_left_right(x)[0, 0, 0])
    seen = sorted({round(float(v), 4) for v in flips})
    return (all_of(batch, photo), tf.function(all_of)(batch, photo),
            tape.gradient(tf.reduce_sum(resized), batch), set(seen) <= {0.0, 0.1},
            image.random_flip_up_down(batch).shape.as_list(),
            image.random_brightness(photo, 0.1).dtype == tf.uint8)


def image_errors(tf):
    batch = tf.zeros([1, 4, 4, 3])
    return [error_name(lambda: f()) for f in (
        lambda: tf.image.crop_to_bounding_box(batch, 2, 2, 3, 3),
        lambda: tf.image.pad_to_bounding_box(batch, 2, 2, 3, 3),
        lambda: tf.image.flip_left_right(tf.zeros([4, 4])))]


def math_and_linalg_additions(tf):
    values = tf.constant([[0.0, 1.5, -2.0], [0.0, 0.0, 4.0]])
    spd = tf.constant([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], tf.float64)

    def all_of(values, spd):
        return (tf.math.zero_fraction(values), tf.math.zero_fraction(tf.constant([0, 3, 0, 0])),
                tf.math.accumulate_n([values, values * 2.0]),
                tf.histogram_fixed_width(tf.constant([-1.0, 0.0, 1.5, 2.0, 2.5, 5.0, 9.0]),
                                         [0.0, 5.0], nbins=5),
                tf.histogram_fixed_width(tf.constant([[1, 2], [7, 9]]), [0, 10], nbins=3,
                                         dtype=tf.int64),
                tf.linalg.eigvalsh(spd), tf.linalg.eigvalsh(tf.stack([spd, spd * 2.0])),
                tf.linalg.normalize(values), tf.linalg.normalize(values, axis=1),
                tf.linalg.normalize(values[:, 1:], ord=1, axis=0))

    with tf.GradientTape() as tape:
        tape.watch(spd)
        smallest = tf.linalg.eigvalsh(spd)[0] + tf.reduce_sum(tf.linalg.normalize(spd)[0][0])
    return all_of(values, spd), tf.function(all_of)(values, spd), tape.gradient(smallest, spd)


def dtypes_saturate_cast(tf):
    return (tf.dtypes.saturate_cast(tf.constant([300.0, -5.0, 7.6]), tf.uint8),
            tf.dtypes.saturate_cast(tf.constant([70000, -3]), tf.int16))


def unique_counts_and_integer_linspace(tf):
    values = tf.constant([3, 1, 3, 2, 3, 1])

    def counted(values):
        found = tf.unique_with_counts(values, out_idx=tf.int64)
        return found.y, found.idx, found.count

    return (tf.unique_with_counts(values), tf.function(counted)(values), tf.linspace(0, 10, 3),
            tf.linspace(-2, 2, 5))


def float_only_ops_refuse_integers(tf):
    integers = tf.constant([1, 4])

    def traced(fn):
        return tf.function(lambda x: fn(x))

    ops = (tf.sqrt, tf.exp, tf.math.log, tf.math.rsqrt, tf.sin, tf.math.sigmoid, tf.nn.softmax,
           tf.nn.elu, tf.math.floor, tf.math.is_nan, tf.reduce_logsumexp, tf.nn.softplus)
    return ([error_name(lambda: op(integers)) for op in ops],
            [error_name(lambda: traced(op)(integers)) for op in ops],
            error_name(lambda: tf.math.sqrt(4)), error_name(lambda: tf.sqrt(tf.Variable([1, 2]))),
            tf.sqrt(4.0), tf.sqrt(tf.cast(integers, tf.float32)), tf.math.exp(x=tf.constant(0.0)),
            tf.round(integers), traced(tf.round)(integers),
            tf.round(tf.constant([0.5, 1.5, -2.5])),
            tf.reduce_mean(integers), tf.square(integers), tf.nn.relu(tf.constant([-1, 2])),
            tf.math.xdivy(tf.constant([0.0, 3.0]), tf.constant([0.0, 2.0])))


def numpy_inputs_times_variables_in_a_tape(tf):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(20, 3)).astype("float32")
    y = (x[:, 0] > 0).astype("int64") + (x[:, 1] > 0).astype("int64")
    weights = tf.Variable(tf.zeros([3, 3]))
    bias = tf.Variable(tf.zeros([3]))
    optimizer = tf.keras.optimizers.Adam(0.1)
    losses = []
    for _ in range(4):
        with tf.GradientTape() as tape:
            logits = x @ weights + bias  # a NumPy array on the left of a variable
            loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=y, logits=logits))
        gradients = tape.gradient(loss, [weights, bias])
        optimizer.apply_gradients(zip(gradients, [weights, bias]))
        losses.append(loss.numpy())
    scaled = np.float32(2.0) * bias
    return losses, weights, bias, tf.is_tensor(scaled), tf.is_tensor(x[:2] - weights[0])


def printed_datasets(tf):
    dataset = tf.data.Dataset
    numbers = dataset.range(6)
    for ds in (numbers, dataset.from_tensor_slices(np.arange(4)), dataset.from_tensors(1),
               numbers.map(lambda x: x * 2), numbers.map(lambda x: x, num_parallel_calls=2),
               numbers.batch(2), numbers.shuffle(3, seed=1), numbers.prefetch(1), numbers.cache(),
               numbers.take(2).skip(1).repeat(2), numbers.filter(lambda x: x > 1),
               dataset.zip((numbers, numbers)), numbers.enumerate(), numbers.padded_batch(2),
               numbers.batch(2).unbatch(), numbers.with_options(tf.data.Options())):
        print(ds)


def tape_options_and_custom_gradients(tf):
    x = tf.Variable([1.0, 2.0, 3.0])
    unused = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * x
        z = tf.reduce_sum(y ** 2)
        w = tf.reduce_mean(tf.sin(x))
    several = (tape.gradient(z, x), tape.gradient(w, x), tape.gradient(y, x), tape.jacobian(y, x),
               tape.gradient(z, [x, unused]),
               tape.gradient(z, {"a": x, "b": unused}, unconnected_gradients="zero"))

    @tf.custom_gradient
    def clip_gradient(value):
        return tf.identity(value), lambda dy: tf.clip_by_value(dy, -0.5, 0.5)

    points = tf.constant([1.0, -2.0, 3.0])
    target_weights = tf.Variable([[0.5], [-0.25]])
    with tf.GradientTape() as tape:
        tape.watch(points)
        clipped = tf.reduce_sum(clip_gradient(points) * tf.constant([2.0, -0.1, 0.3]))
        target = tf.stop_gradient(tf.matmul(points[None, :2], target_weights) * 0.9 + 1.0)
        loss = clipped + tf.reduce_sum(tf.square(target - points[0]))
    return several, tape.gradient(loss, [points, target_weights])


def data_pipelines_users_write(tf):
    features = {"a": np.arange(10, dtype="float32"), "b": np.arange(10, 20)}
    pairs = tf.data.Dataset.from_tensor_slices((features, np.arange(10) % 3)).map(
        lambda f, y: ({"s": f["a"] * 2.0 + tf.cast(f["b"], tf.float32)}, y),
        num_parallel_calls=tf.data.AUTOTUNE).batch(4, drop_remainder=True).prefetch(1)
    print(pairs.element_spec, pairs.cardinality().numpy(), len(pairs))
    series = tf.data.Dataset.from_tensor_slices(np.arange(8.0, dtype="float32"))
    windows = series.window(3, shift=1, drop_remainder=True).flat_map(
        lambda w: w.batch(3)).map(lambda w: (w[:-1], w[-1]))
    numbers = tf.data.Dataset.range(1, 11)
    evens = numbers.filter(lambda x: x % 2 == 0)
    running = numbers.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s + x))
    print(evens.cardinality().numpy(), running.cardinality().numpy(),
          numbers.repeat().cardinality().numpy() == tf.data.INFINITE_CARDINALITY)
    return ([(x["s"], y) for x, y in pairs], list(windows.as_numpy_iterator()),
            numbers.reduce(tf.constant(0, tf.int64), lambda s, x: s + x),
            list(evens.as_numpy_iterator()), list(running.take(4).as_numpy_iterator()),
            list(numbers.interleave(lambda x: tf.data.Dataset.from_tensors(x).repeat(2),
                                    cycle_length=2, block_length=1).take(6)))


def fizzbuzz_and_running_sums_in_functions(tf):
    @tf.function
    def fizzbuzz(n):
        out = tf.TensorArray(tf.int32, size=n)
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                out = out.write(i - 1, -15)
            elif i % 3 == 0:
                out = out.write(i - 1, -3)
            elif i % 5 == 0:
                out = out.write(i - 1, -5)
            else:
                out = out.write(i - 1, i)
        return out.stack()

    @tf.function
    def running(x):
        sums = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        total = tf.constant(0.0)
        for i in tf.range(tf.shape(x)[0]):
            total += x[i]
            sums = sums.write(i, total)
        return sums.stack(), sums.size()

    return fizzbuzz(tf.constant(16)), running(tf.constant([1.0, 2.0, 3.0, 4.0]))


def casts_divisions_and_tensor_protocol(tf):
    floats = tf.constant([-1.7, -0.5, 0.5, 1.7, 300.2])
    x = tf.constant([[1, 2], [3, 4]])
    return (tf.cast(floats, tf.int32), tf.cast(tf.constant([0, 2, -1]), tf.bool),
            error_name(lambda: tf.constant(1.5, dtype=tf.int32)),
            tf.convert_to_tensor([1, 2.5]).dtype.name, tf.constant(-7) // 2, tf.constant(-7) % 3,
            tf.truncatediv(tf.constant(-7), 2), tf.constant(7) / 2, tf.range(0, 1, 0.25),
            tf.constant(2.0) ** -1, x.shape[0], x.ndim, len(x), [r.numpy().tolist() for r in x],
            int(x[1, 0]), x.numpy().sum().item(), tf.reduce_sum(x).numpy().dtype.name,
            tf.sort(tf.constant([3, 1, 2]), direction="DESCENDING"),
            tf.split(tf.range(8), [2, -1, 3]),
            tf.pad(tf.reshape(tf.range(1, 7), [2, 3]), [[0, 0], [2, 2]], mode="REFLECT"))


def shape_errors_eagerly_and_while_tracing(tf):
    x = tf.ones([2, 3])
    cases = (lambda: tf.split(tf.range(7), 2), lambda: tf.reduce_sum(x, axis=3),
             lambda: tf.tile(tf.ones([2]), [2, 2]), lambda: tf.linalg.inv(x),
             lambda: tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=tf.ones([2, 4])),
             lambda: tf.math.top_k(tf.range(3), 5), lambda: tf.matmul(x, tf.ones([4, 2])),
             lambda: tf.concat([tf.ones([2]), x], 0), lambda: tf.reshape(tf.range(6), [4, -1]),
             lambda: tf.einsum("ij,jk->ik", x, x), lambda: tf.einsum("ij->ijk", x),
             lambda: tf.boolean_mask(x, tf.constant([True, False, True])),
             lambda: tf.roll(x, [1, 2], axis=[0]), lambda: tf.pad(x, [[1, 1]]),
             lambda: tf.debugging.assert_shapes([(x, ("a", "a"))]),
             lambda: tf.debugging.assert_rank(x, 3), lambda: tf.ensure_shape(x, [3, 3]),
             lambda: tf.gather(x, [0], axis=4), lambda: tf.linalg.matvec(x, tf.ones([2])))
    eager = [error_name(case) for case in cases]
    traced = [error_name(lambda case=case: tf.function(case)()) for case in cases]
    return eager, traced


def least_squares_fits(tf):
    rng = np.random.default_rng(5)
    a = tf.constant(rng.normal(size=(6, 3)).astype("float32"))
    b = tf.constant(rng.normal(size=(6, 2)).astype("float32"))
    wide = tf.constant(rng.normal(size=(2, 4)))
    batch = tf.constant(rng.normal(size=(2, 5, 2)).astype("float32"))
    with tf.GradientTape() as tape:
        tape.watch(a)
        x = tf.linalg.lstsq(a, b)
        loss = tf.reduce_sum(x ** 2)
    return (x, tf.linalg.lstsq(a, b, l2_regularizer=0.5),
            tf.linalg.lstsq(wide, tf.ones([2, 1], tf.float64)),
            tf.linalg.lstsq(batch, tf.ones([2, 5, 1])), tf.linalg.lstsq(a, b, fast=False),
            tape.gradient(loss, a), tf.function(lambda a, b: tf.linalg.lstsq(a, b))(a, b))


def device_blocks_and_function_arguments(tf):
    with tf.device("CPU:0"):
        weights = tf.Variable([1.0, 2.0])
    with tf.device("/GPU:0"):  # no GPU: TensorFlow places it on the CPU
        product = weights * tf.constant([3.0, 4.0])

    @tf.function(experimental_relax_shapes=True)
    def total(x):
        return tf.reduce_sum(x)

    @tf.function(autograph=False)
    def absolute(x):
        if x > 0:
            return x
        return -x

    sums = [total(tf.ones([n])) for n in range(1, 5)]
    return (product, len(tf.config.list_physical_devices("GPU")), sums,
            total.experimental_get_tracing_count(), error_name(lambda: absolute(tf.constant(-2))),
            tf.function(lambda x: x * 2, jit_compile=False)(tf.constant(3)))


def legacy_experimental_dataset_transformations(tf):
    experimental = tf.data.experimental
    numbers = tf.data.Dataset.range(10)
    transformed = (
        numbers.batch(3).apply(experimental.unbatch()),
        numbers.apply(experimental.enumerate_dataset(start=5)).take(3),
        numbers.apply(experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s * 2))),
        numbers.apply(experimental.map_and_batch(lambda x: x * 3, 4, drop_remainder=True)),
        numbers.take(3).apply(experimental.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(2), cycle_length=2)),
        numbers.apply(experimental.group_by_window(lambda x: x % 2, lambda k, w: w.batch(5),
                                                   window_size=5)),
        experimental.Counter(start=3, step=2).take(3))
    return ([list(ds.as_numpy_iterator()) for ds in transformed],
            experimental.cardinality(transformed[3]).numpy(), experimental.AUTOTUNE,
            experimental.INFINITE_CARDINALITY, experimental.UNKNOWN_CARDINALITY,
            experimental.get_single_element(tf.data.Dataset.from_tensors(7)))


def tensor_array_read_then_stack_eagerly(tf):
    """A TensorArray filled eagerly, read, then stacked (clear_after_read is True by
    default)."""
    rows = tf.TensorArray(tf.float64, size=3, element_shape=[2])
    rows = rows.write(0, [1.0, 2.0]).write(1, [3.0, 4.0]).write(2, [5.0, 6.0])
    middle = rows.read(1)
    return middle, rows.stack(), rows.gather([2, 0])


def tensor_array_read_twice_eagerly(tf):
    """An eager read clears the element: reading it again raises until it is written again;
    clear_after_read=False keeps it; inside a tf.function reads never clear."""
    steps = tf.TensorArray(tf.int64, size=2).write(0, 5).write(1, 6)
    first = steps.read(0)
    try:
        steps.read(0)
        again = "no error"
    except tf.errors.InvalidArgumentError:
        again = "InvalidArgumentError"
    steps = steps.write(0, 7)
    kept = tf.TensorArray(tf.float64, size=2, clear_after_read=False).write(1, 2.5)

    @tf.function
    def read_twice(values):
        array = tf.TensorArray(tf.float64, size=2).unstack(values)
        return array.read(1) + array.read(1), array.stack()

    return (first, again, steps.read(0), steps.stack(), kept.read(1), kept.read(1),
            kept.stack(), read_twice(tf.constant([1.0, 4.0], tf.float64)))



def distributed_training_on_one_device(tf):
    """The custom training loop of TensorFlow's distributed training tutorial, and Keras' fit
    in a strategy's scope, on a machine with one device (one replica)."""
    import numpy as np
    strategy = tf.distribute.MirroredStrategy()
    print("replicas:", strategy.num_replicas_in_sync, tf.distribute.has_strategy())
    global_batch = 4
    x = np.arange(24, dtype="float32").reshape(8, 3) / 24.0
    y = x.sum(axis=1, keepdims=True)
    dist_ds = strategy.experimental_distribute_dataset(
        tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch))
    with strategy.scope():
        print(tf.distribute.has_strategy(), tf.distribute.get_strategy() is strategy,
              tf.distribute.in_cross_replica_context())
        model = tf.keras.Sequential([tf.keras.Input((3,)),
                                     tf.keras.layers.Dense(1, kernel_initializer="ones")])
        optimizer = tf.keras.optimizers.SGD(0.1)
        loss_object = tf.keras.losses.MeanSquaredError(reduction="none")

        def compute_loss(labels, predictions):
            per_example = loss_object(labels, predictions)
            return tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)

    def train_step(inputs):
        features, labels = inputs
        with tf.GradientTape() as tape:
            loss = compute_loss(labels, model(features, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def distributed_train_step(inputs):
        per_replica = strategy.run(train_step, args=(inputs,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    losses = []
    for epoch in range(2):
        total, batches = 0.0, 0
        for batch in dist_ds:
            total += distributed_train_step(batch)
            batches += 1
        losses.append(float(total / batches))
    local = strategy.experimental_local_results(tf.constant(3.0))
    mean = strategy.reduce("MEAN", tf.constant([1.0, 3.0], tf.float64), axis=0)
    print(tf.distribute.get_strategy().num_replicas_in_sync,
          tf.distribute.in_cross_replica_context())
    with strategy.scope():
        fitted = tf.keras.Sequential([tf.keras.Input((3,)),
                                      tf.keras.layers.Dense(1, kernel_initializer="zeros")])
        fitted.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = fitted.fit(x, y, batch_size=4, epochs=2, verbose=0, shuffle=False)
    from_fn = strategy.distribute_datasets_from_function(
        lambda context: tf.data.Dataset.range(context.num_replicas_in_sync + 2).batch(
            context.get_per_replica_batch_size(global_batch)))
    return (losses, model.get_weights(), local, mean, history.history,
            [b for b in from_fn])


def image_psnr(tf):
    """tf.image.psnr of uint8 images (max_val 255), of their float64 versions (max_val 1),
    of single images, of equal images (infinity), and of float32 images with another peak."""
    import numpy as np
    rng = np.random.default_rng(47)
    a = rng.integers(0, 256, size=(2, 5, 6, 3)).astype("uint8")
    b = np.clip(a.astype(int) + rng.integers(-9, 10, size=a.shape), 0, 255).astype("uint8")
    fa, fb = a.astype("float64") / 255.0, b.astype("float64") / 255.0
    return (tf.image.psnr(a, b, max_val=255), tf.image.psnr(fa, fb, max_val=1.0),
            tf.image.psnr(fa[0], fb[0], 1.0), tf.image.psnr(a, a, 255),
            tf.image.psnr(tf.constant(fa, tf.float32), tf.constant(fb, tf.float32), 2.0))
