"""``import transpiler.tf as tf``: TensorFlow 2 programs, written as a TensorFlow user writes
them, run on eager2graph. The expected values were printed by TensorFlow 2.21 running the
same programs with ``import tensorflow as tf``."""

import subprocess
import sys

import numpy as np
import pytest

import runtime
import transpiler
import transpiler.tf as tf


# -- the programs (module level: the transpiler reads their source) ---------------------------


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


@tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
def running_sum(x):
    total = tf.constant(0.0)
    out = tf.TensorArray(tf.float32, size=tf.shape(x)[0])
    for i in tf.range(tf.shape(x)[0]):
        total += x[i]
        out = out.write(i, total)
    return out.stack()


class Dense(tf.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.w = tf.Variable(tf.ones([n_in, n_out]) * 0.1)
        self.b = tf.Variable(tf.zeros([n_out]))

    @tf.function
    def __call__(self, x):
        return tf.nn.relu(x @ self.w + self.b)


@tf.function
def sum_until(ds, limit):
    total = tf.constant(0)
    for batch in ds:
        if tf.reduce_sum(batch) > limit:
            break
        total += tf.reduce_sum(batch)
    return total


def clamp_small(v):
    if v < 3:
        v = v * 0
    return v


@tf.function
def functional(x):
    squares = tf.map_fn(lambda row: tf.reduce_sum(row * row), x)
    running = tf.scan(lambda a, row: a + row, x)
    sign = tf.switch_case(tf.cast(tf.reduce_sum(x) > 0, tf.int32),
                          [lambda: tf.constant(-1.0), lambda: tf.constant(1.0)])
    return squares, running, sign


@tf.custom_gradient
def clip_gradient(v):
    def grad(dy):
        return tf.clip_by_value(dy, -0.5, 0.5)
    return v * 1.0, grad


@tf.function
def growing(n):
    x = tf.constant([0.0])
    for i in tf.range(n):
        tf.autograph.experimental.set_loop_options(shape_invariants=[(x, tf.TensorShape([None]))])
        x = tf.concat([x, [tf.cast(i, tf.float32)]], 0)
    return x


@tf.function
def checked(x):
    tf.debugging.assert_less(x, 10.0, message="x too large")
    return x * 2


# -- tf.function, control flow, retracing --------------------------------------------------------


def test_function_with_python_control_flow_on_tensors():
    assert collatz(tf.constant(27)).numpy() == 111
    assert collatz.tracing_count == 1


def test_input_signature_and_tensor_array_loop():
    np.testing.assert_array_equal(running_sum(tf.constant([1.0, 2.0, 3.0])).numpy(), [1, 3, 6])
    np.testing.assert_array_equal(running_sum(tf.constant([4.0, 5.0])).numpy(), [4, 9])
    assert running_sum.tracing_count == 1


def test_set_loop_options_through_tf_autograph():
    np.testing.assert_array_equal(growing(tf.constant(3)).numpy(), [0, 0, 1, 2])


def test_function_is_the_transpilers():
    assert isinstance(tf.function(clamp_small), type(transpiler.function(clamp_small)))
    assert tf.autograph.to_graph is transpiler.convert and tf.autograph.to_code is transpiler.to_code
    assert tf.autograph.experimental.do_not_convert is transpiler.do_not_convert
    assert "ag__" in tf.autograph.to_code(clamp_small)
    converted = tf.autograph.to_graph(clamp_small)
    assert converted(tf.constant(1)).numpy() == 0 and converted(tf.constant(5)).numpy() == 5


def test_function_takes_tensorflow_s_arguments():
    def absolute(x):
        if x > 0:
            return x
        return -x

    assert tf.function(absolute)(tf.constant(-2)).numpy() == 2
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.function(absolute, autograph=False)(tf.constant(-2))  # not converted, as in TensorFlow
    relaxed = tf.function(lambda x: tf.reduce_sum(x), experimental_relax_shapes=True)
    for n in range(1, 5):
        relaxed(tf.ones([n]))
    assert relaxed.experimental_get_tracing_count() == 2
    with pytest.raises(NotImplementedError, match="experimental_follow_type_hints"):
        tf.function(absolute, experimental_follow_type_hints=True)


def test_device_blocks_place_everything_on_the_cpu():
    with tf.device("/GPU:0"):
        assert tf.add(tf.ones([2]), 1.0).numpy().tolist() == [2.0, 2.0]
    with pytest.raises(TypeError, match="device name"):
        with tf.device(3):
            pass


def test_run_functions_eagerly():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x + 1

    tf.config.run_functions_eagerly(True)
    try:
        assert tf.config.functions_run_eagerly()
        f(tf.constant(1))
        f(tf.constant(1))
    finally:
        tf.config.run_functions_eagerly(False)
    assert len(calls) == 2


# -- variables, tapes, modules -------------------------------------------------------------------


def test_gradient_tape_training_loop():
    w, b = tf.Variable(0.0), tf.Variable(0.0)
    xs = tf.constant(np.linspace(-1, 1, 20).astype(np.float32))
    ys = 3.0 * xs + 0.5

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(w * xs + b - ys))
        gw, gb = tape.gradient(loss, [w, b])
        w.assign_sub(0.1 * gw)
        b.assign_sub(0.1 * gb)
        return loss

    for _ in range(100):
        loss = step()
    np.testing.assert_allclose([w.numpy(), b.numpy(), loss.numpy()],
                               [2.9985776, 0.49999994, 8.6882426e-07], rtol=1e-5, atol=1e-9)


def test_module_with_a_function_method():
    layer = Dense(3, 2)
    np.testing.assert_allclose(layer(tf.constant([[1.0, 2.0, 3.0]])).numpy(), [[0.6, 0.6]])
    assert len(layer.trainable_variables) == 2


def test_custom_gradient():
    v = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(v)
        y = tf.reduce_sum(clip_gradient(v) * 3.0)
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [0.5, 0.5])


def test_print_and_assert_in_a_function(capfd):
    @tf.function
    def f(x):
        tf.print("x is", x)
        return x

    f(tf.constant([1, 2]))
    assert "x is [1 2]" in capfd.readouterr().err  # standard error, as TensorFlow writes it
    assert checked(tf.constant(3.0)).numpy() == 6.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="x too large"):
        checked(tf.constant(30.0))


# -- tf.data -------------------------------------------------------------------------------------


def test_data_is_the_runtimes():
    assert tf.data is runtime.data and tf.data.AUTOTUNE == runtime.data.AUTOTUNE
    ds = tf.data.Dataset.from_tensor_slices(np.arange(10, dtype=np.int32)).map(
        lambda v: v * 2, num_parallel_calls=tf.data.AUTOTUNE).batch(3).prefetch(tf.data.AUTOTUNE)
    assert [b.numpy().tolist() for b in ds] == [[0, 2, 4], [6, 8, 10], [12, 14, 16], [18]]
    assert sum_until(ds, tf.constant(20)).numpy() == 6


def test_dataset_functions_are_converted_as_in_tensorflow():
    ds = tf.data.Dataset.range(6).map(clamp_small)
    assert [int(v) for v in ds] == [0, 0, 0, 3, 4, 5]


# -- ops by namespace ----------------------------------------------------------------------------

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], np.float32)


def test_math_linalg_and_array_ops():
    x = tf.constant(X)
    np.testing.assert_allclose(tf.math.reduce_std(x).numpy(), 2.0899894, rtol=1e-6)
    np.testing.assert_allclose(tf.math.l2_normalize(x, axis=1).numpy()[0],
                               [0.26726124, -0.5345225, 0.8017837], rtol=1e-6)
    assert tf.linalg.trace(tf.eye(3)).numpy() == 3.0
    np.testing.assert_array_equal(tf.roll(x, 1, axis=1).numpy()[0], [3.0, 1.0, -2.0])
    assert tf.sequence_mask([1, 2], 3).numpy().tolist() == [[True, False, False],
                                                            [True, True, False]]
    np.testing.assert_array_equal(tf.math.segment_sum(x, [0, 0]).numpy(), [[1.5, 2.0, 2.0]])
    assert tf.gather(x, [[2], [0]], batch_dims=1).numpy().tolist() == [[3.0], [0.5]]
    np.testing.assert_allclose(tf.math.unsorted_segment_sum(x, [1, 1], 2).numpy(),
                               [[0, 0, 0], [1.5, 2.0, 2.0]])
    np.testing.assert_allclose(tf.linalg.matmul(x, x, transpose_b=True).numpy(), X @ X.T)
    np.testing.assert_allclose(tf.math.truediv(x, 2.0).numpy(), X / 2)
    assert tf.double == np.float64 and tf.half == np.float16 and tf.dtypes.uint32 == np.uint32


def test_nn_ops_and_named_tuples():
    x = tf.constant(X)
    np.testing.assert_allclose(tf.nn.softmax(x).numpy()[0], [0.11849965, 0.00589975, 0.8756006],
                               rtol=1e-6)
    mean_variance = tf.nn.moments(x, axes=[0])
    assert type(mean_variance) is tuple
    np.testing.assert_allclose(mean_variance[1].numpy(), [0.0625, 9.0, 4.0])
    top = tf.math.top_k(x, 2)
    assert top.values.numpy().tolist() == [[3.0, 1.0], [4.0, 0.5]]
    assert top.indices.numpy().tolist() == [[2, 0], [1, 0]]
    assert tf.nn.top_k(x, 1).indices.numpy().tolist() == [[2], [1]]
    unique = tf.unique([3, 1, 3])
    assert unique.y.numpy().tolist() == [3, 1] and unique.idx.numpy().tolist() == [0, 1, 0]
    assert tf.linalg.slogdet(tf.eye(2) * 2.0).sign.numpy() == 1.0


def test_map_fn_scan_switch_case_in_a_function():
    squares, running, sign = functional(tf.constant(X))
    np.testing.assert_allclose(squares.numpy(), [14.0, 17.25])
    assert running.numpy().tolist() == [[1.0, -2.0, 3.0], [1.5, 2.0, 2.0]]
    assert sign.numpy() == 1.0


def test_random_and_debugging():
    tf.random.set_seed(3)
    a = tf.random.uniform([3], minval=0.0, maxval=1.0, seed=1)
    assert a.shape == [3] and np.all((a.numpy() >= 0) & (a.numpy() < 1))
    tf.debugging.assert_equal(tf.constant(1), 1)
    assert tf.debugging.check_numerics(tf.constant(1.0), "ok").numpy() == 1.0


def test_ops_accept_tensorflows_name_argument():
    x = tf.constant(X, name="x")
    assert tf.reduce_sum(x, name="total").numpy() == pytest.approx(X.sum())
    assert tf.identity(x, name="same").shape == (2, 3)
    assert tf.nn.relu(x, name="r").numpy().min() == 0.0
    y = tf.while_loop(lambda i: i < 5, lambda i: i + 1, [tf.constant(0)],
                      parallel_iterations=1, name="loop")
    assert y[0].numpy() == 5


# -- shapes, dtypes, static values ---------------------------------------------------------------


def test_shape_answers_like_a_tensorshape():
    x = tf.constant(X)
    assert x.shape == (2, 3) and x.shape == [2, 3] and x.shape.as_list() == [2, 3]
    assert x.shape.rank == 2 and x.shape.ndims == 2 and x.shape[0] == 2 and len(x.shape) == 2
    assert str(x.shape) == "(2, 3)"
    assert tf.TensorShape([2, None]).as_list() == [2, None]


def test_cast_with_numpy_dtypes_and_static_values():
    x = tf.constant(X)
    assert tf.cast(x, np.int32).numpy().tolist() == [[1, -2, 3], [0, 4, -1]]
    assert tf.cast(x, tf.float64).dtype == np.float64 and tf.float32 == np.float32
    assert tf.get_static_value(tf.constant([1, 2])).tolist() == [1, 2]
    assert tf.convert_to_tensor([1.0, 2.0]).dtype == tf.float32
    assert tf.dtypes.as_dtype(np.int64) == tf.int64 and tf.dtypes.cast(x, tf.int32).dtype == tf.int32


def test_nest():
    assert tf.nest.flatten({"b": 2, "a": (1, [3])}) == [1, 3, 2]
    assert tf.nest.map_structure(lambda a, b: a + b, (1, [2]), (10, [20])) == (11, [22])
    assert tf.nest.pack_sequence_as((0, [0]), [5, 6]) == (5, [6])
    with pytest.raises(ValueError, match="structures differ"):
        tf.nest.map_structure(lambda a, b: a, (1, 2), [1, 2, 3])


# -- tf.test -------------------------------------------------------------------------------------


class TensorFlowStyleTest(tf.test.TestCase):

    def test_assertions(self):
        x = tf.constant([1.0, 2.0])
        self.assertAllClose(x, [1.0, 2.0 + 1e-7])
        self.assertAllClose({"a": x, "b": [x, 3.0]}, {"a": [1.0, 2.0], "b": [[1.0, 2.0], 3.0]})
        self.assertAllEqual(tf.constant([1, 2]), np.array([1, 2]))
        self.assertNotAllClose(x, [1.0, 2.1])
        self.assertEqual(self.evaluate(x).tolist(), [1.0, 2.0])
        self.assertEqual(self.evaluate({"v": tf.Variable(3.0)})["v"], 3.0)
        self.assertAllGreater(x, 0.5)
        self.assertAllLess(x, 2.5)
        self.assertDTypeEqual(x, np.float32)
        with self.assertRaises(AssertionError):
            self.assertAllClose(x, [1.0, 2.1])
        with self.assertRaises(AssertionError):
            self.assertAllEqual(x, [[1.0, 2.0]])  # shapes must match, as in TensorFlow


def test_no_gradient_takes_an_op_type_name_once():
    tf.no_gradient("TestNamespaceCustomOp")  # a custom library's op: accepted, nothing changes
    with pytest.raises(KeyError, match="called before"):
        tf.no_gradient("TestNamespaceCustomOp")
    with pytest.raises(TypeError, match="a string"):
        tf.no_gradient(3)


def test_distribute_contexts_on_one_replica():
    strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
    assert tf.distribute.get_replica_context().num_replicas_in_sync == 1
    seen = []
    with strategy.scope():
        assert tf.distribute.in_cross_replica_context()
        assert tf.distribute.get_replica_context() is None
        total = strategy.run(lambda x: seen.append(tf.distribute.get_replica_context()) or x * 2,
                             args=(tf.constant([1, 2], tf.int64),))
    assert seen[0].all_reduce("SUM", total) is total
    assert strategy.reduce(tf.distribute.ReduceOp.SUM, total, axis=0).numpy() == 6
    assert not tf.distribute.has_strategy()
    with pytest.raises(ValueError, match="ReduceOp.SUM or ReduceOp.MEAN"):
        strategy.reduce("MAX", total, axis=None)
    with pytest.raises(ValueError, match="multiple of the number of replicas"):
        tf.distribute.InputContext(num_replicas_in_sync=2).get_per_replica_batch_size(5)


# -- what is not there ---------------------------------------------------------------------------


@pytest.mark.parametrize("module,name", [(tf, "RaggedTensor"), (tf.math, "zeta"),
                                         (tf.math, "igamma"), (tf.nn, "conv3d"),
                                         (tf.linalg, "lu"), (tf.random, "stateless_binomial"),
                                         (tf.math, "igammac"),
                                         (tf.config, "set_logical_device_configuration"),
                                         (tf.autograph, "set_verbosity"), (tf.test, "Benchmark")])
def test_a_missing_name_is_named_in_the_error(module, name):
    prefix = module.__name__.replace("transpiler.tf", "tf")
    with pytest.raises(AttributeError, match=rf"^{prefix}\.{name} is not supported by "
                                             rf"eager2graph yet"):
        getattr(module, name)
    assert not hasattr(module, name)


def test_dunder_probes_stay_plain_attribute_errors():
    assert not hasattr(tf, "__wrapped__")
    with pytest.raises(AttributeError, match="has no attribute '__foo__'"):
        tf.__foo__  # noqa: B018


def test_importing_it_imports_no_other_engine():
    code = ("import sys, transpiler.tf; "
            "print(sorted(m for m in ('jax', 'torch', 'numba', 'onnx', 'tensorflow') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_functions_given_to_map_fn_and_scan_are_converted_as_in_tensorflow():
    def clipped(x):  # defined outside any converted function: converted when map_fn calls it
        if x > 2.0:
            return x * 0.0
        return x

    def running(total, x):
        if x > 2.0:
            total = total + 10.0
        return total + x

    @tf.function
    def apply(xs):
        return tf.map_fn(clipped, xs), tf.scan(running, xs, initializer=tf.constant(0.0))

    mapped, scanned = apply(tf.constant([1.0, 3.0, 2.0, 5.0]))
    assert mapped.numpy().tolist() == [1.0, 0.0, 2.0, 0.0]
    assert scanned.numpy().tolist() == [1.0, 14.0, 16.0, 31.0]


def test_names_programs_use_at_their_start():
    assert tf.__version__.startswith("2.") and tf.version.VERSION == tf.__version__
    tf.get_logger().setLevel("ERROR")  # what programs do first
    assert tf.keras.backend.epsilon() == 1e-7 and tf.keras.backend.image_data_format() == \
        "channels_last"
    assert tf.keras.backend.int_shape(tf.keras.Input((3,))) == (None, 3)
    assert tf.keras.preprocessing.sequence.pad_sequences([[1, 2], [3]]).tolist() == \
        [[1, 2], [0, 3]]
    layer = tf.keras.layers.Dense(2, kernel_initializer=tf.constant_initializer(0.5),
                                  bias_initializer=tf.zeros_initializer())
    assert layer(np.ones((1, 3), np.float32)).numpy().tolist() == [[1.5, 1.5]]
    np.testing.assert_allclose(tf.nn.softsign(tf.constant([-2.0, 3.0])).numpy(),
                               [-2 / 3, 0.75], rtol=1e-6)


def test_assert_same_structure_tells_nesting_from_sequence_types():
    tf.nest.assert_same_structure([1, (2, 3)], [4, (5, 6)])
    tf.nest.assert_same_structure([1, 2], (1, 2), check_types=False)
    with pytest.raises(TypeError, match="different types"):
        tf.nest.assert_same_structure([1, 2], (1, 2))
    with pytest.raises(ValueError, match="do not nest alike"):
        tf.nest.assert_same_structure({"a": 1}, {"b": 1})


def test_tensorboard_callback_is_accepted_and_says_it_records_nothing():
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    with pytest.warns(UserWarning, match="TensorBoard writes no logs"):
        model.fit(np.ones((4, 2)), np.ones((4, 1)), verbose=0,
                  callbacks=[tf.keras.callbacks.TensorBoard(log_dir="unused")])


def test_summaries_are_accepted_and_written_nowhere():
    with pytest.warns(UserWarning, match="tf.summary writes no event files"):
        writer = tf.summary.create_file_writer("unused-logs")

    @tf.function
    def logged_step(x):
        tf.summary.scalar("x", x, step=1)
        return x * 2

    with writer.as_default():
        assert tf.summary.scalar("loss", 0.5, step=0) is False
        assert float(logged_step(tf.constant(2.0))) == 4.0
    writer.flush()


def test_shape_errors_are_tensorflow_s_kernel_errors_eagerly_only():
    import runtime as rt
    with pytest.raises(tf.errors.InvalidArgumentError, match="cannot split") as caught:
        tf.split(tf.range(7), 2)
    assert isinstance(caught.value, rt.errors.ShapeError)  # the runtime's class still catches it
    with pytest.raises(rt.errors.ShapeError) as caught:
        tf.function(lambda: tf.split(tf.range(7), 2))()
    assert not isinstance(caught.value, tf.errors.InvalidArgumentError)  # TensorFlow: ValueError
    with pytest.raises(ValueError) as caught:  # checked in Python by TensorFlow, eagerly too
        tf.debugging.assert_rank(tf.ones([2]), 3)
    assert not isinstance(caught.value, tf.errors.InvalidArgumentError)


def test_float_only_ops_refuse_integers_and_keep_their_signature():
    import inspect
    with pytest.raises(tf.errors.InvalidArgumentError, match="floating-point"):
        tf.sqrt(tf.constant([4]))
    with pytest.raises(TypeError, match="floating-point"):
        tf.function(lambda x: tf.math.log(x))(tf.constant([4]))
    assert list(inspect.signature(tf.nn.softmax).parameters)[:2] == ["logits", "axis"]
    assert tf.math.sqrt(x=tf.constant(4.0)).numpy() == 2.0
