"""What the plan writes instead of kernel calls (runtime.plan_lowering, runtime.plan_writes):
each form gives the kernel's bits, shows in the plan's source, and keeps the plan's aliasing
and variable rules (a value handed out never changes afterwards)."""

import re
import types
import warnings

import numpy as np
import pytest

import runtime as rt
from runtime import plan_softmax
from runtime.errors import InvalidArgumentError, RetracingWarning
from tests.runtime.graph_helpers import assert_identical

SPECIAL = [np.nan, -0.0, 0.0, np.inf, -np.inf, 1e-30, -2.5, 3.0, 1e4, -7.0, 0.5, 2.0]


def _values(dtype: str, shape: tuple) -> np.ndarray:
    count = int(np.prod(shape))
    if np.dtype(dtype).kind == "f":
        values = np.resize(np.array(SPECIAL, np.float64), count)
    else:
        values = np.arange(count) * 37 % 23 - 11
    return values.astype(dtype).reshape(shape)


def _plan_and_eager(fn, *arrays):
    """(results on the NumPy plan, results of the same ops run eagerly, the plan's source)."""
    plan = rt.function(fn, jit_compile=False)
    args = [rt.constant(a) for a in arrays]
    # Each case traces the same Python function anew, on purpose: no retracing advice wanted.
    with np.errstate(all="ignore"), warnings.catch_warnings():  # the special values overflow
        warnings.simplefilter("ignore", RetracingWarning)      # and make NaNs, as they should
        planned = rt.nest.flatten(plan(*args))
        eager = rt.nest.flatten(fn(*args))
    source = plan.get_concrete_function(*args).plan_source
    return [p.numpy() for p in planned], [e.numpy() for e in eager], source


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int8", "int32", "int64"])
def test_lowered_ops_give_the_bits_of_their_kernels(dtype):
    x = _values(dtype, (2, 3, 4))
    target = "int32" if np.dtype(dtype).kind == "f" else "float32"

    def f(x):
        return (rt.transpose(x), rt.transpose(x, [1, 0, 2]), rt.reshape(x, [6, 4]),
                rt.reshape(x, [-1]), rt.cast(x, target), rt.nn.relu(x),
                rt.nn.relu(x * 2), rt.transpose(rt.reshape(x, [6, 4])))

    planned, eager, source = _plan_and_eager(f, x)
    assert_identical(planned, eager)
    for form in (".T", ".transpose((1, 0, 2))", ".reshape((6, 4))", ".reshape((-1,))",
                 ".astype(dtype"):
        assert form in source, form


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("axis, keepdims", [(None, False), (0, False), (1, True), ([0, 2], False)])
def test_a_float_mean_is_its_kernels_sum_and_division(dtype, axis, keepdims):
    x = _values(dtype, (3, 4, 5)) / 3

    def f(x):
        return rt.reduce_mean(x, axis, keepdims=keepdims), rt.reduce_mean(rt.abs(x) + 1, axis)

    planned, eager, source = _plan_and_eager(f, x)
    assert_identical(planned, eager)
    assert re.search(r"sum\d+\(", source)


def test_integer_and_unknown_shape_means_run_the_kernel():
    f = rt.function(lambda x: rt.reduce_mean(x), jit_compile=False)
    assert "sum" not in f.get_concrete_function(rt.TensorSpec([3], rt.int32)).plan_source
    assert "sum" not in f.get_concrete_function(rt.TensorSpec([None], rt.float32)).plan_source
    assert int(f(rt.constant([1, 2, 4]))) == 2
    assert float(f(rt.constant([1.0, 2.0]))) == 1.5


def test_views_from_lowered_ops_are_never_overwritten():
    def f(x):
        doubled = x * 2.0
        flat = rt.reshape(doubled, [-1])      # a view of doubled
        turned = rt.transpose(doubled)        # another
        shifted = doubled + 1.0               # doubled's last use: may it be written into?
        return flat, turned, shifted

    x = _values("float32", (2, 3))
    planned, eager, _ = _plan_and_eager(f, x)
    assert_identical(planned, eager)


def test_constants_next_to_arrays_give_the_same_bits():
    def f(x, s):
        return (x * 0.1, x + 3.0, x > 0.5, x / 7.0, rt.maximum(x, 2.0), x - s, s * 0.1, s > 1.0,
                rt.where(x > 0.5, x, 2.0))

    for dtype in ("float16", "float32", "float64"):
        x = _values(dtype, (4, 3))
        planned, eager, source = _plan_and_eager(f, x, np.asarray(2.5, dtype))
        assert_identical(planned, eager)
        assert re.search(r"c\d+a\b", source)  # a 0-d constant as an array next to x


def test_a_scalar_variable_is_read_as_a_numpy_scalar():
    rate, scale = rt.Variable(np.float32(0.1)), rt.Variable(np.float64(3.0))

    def f(x):
        return x * rate + rate * rate, rt.cast(scale, rt.float32) * rate - 1.0

    planned, eager, source = _plan_and_eager(f, _values("float32", (3, 2)))
    assert_identical(planned, eager)
    assert re.search(r"var\d+\._value\[\(\)\]", source)


def test_kernels_with_attributes_are_called_with_keywords():
    def f(x):
        return rt.nn.softmax(x, axis=0), rt.concat([x, x], axis=1)

    x = _values("float32", (3, 2)) / 10
    planned, eager, source = _plan_and_eager(f, x)
    assert_identical(planned, eager)
    assert re.search(r"k\d+\(a0, axis=k\d+_axis\)", source)


# -- the loss and its gradient's softmax in one call ----------------------------------------


def _loss_and_gradient(labels, logits):
    with rt.GradientTape() as tape:
        tape.watch(logits)
        loss = rt.reduce_mean(rt.nn.softmax_cross_entropy_with_logits(labels, logits))
    return loss, tape.gradient(loss, logits)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_a_softmax_loss_and_its_gradient_share_one_call(dtype):
    rng = np.random.RandomState(3)
    logits = (rng.randn(8, 5) * 30).astype(dtype)
    logits[0, 1], logits[1] = 1e4, -1e4  # a dominant class, a row of equal huge values
    labels = np.eye(5, dtype=dtype)[rng.randint(0, 5, 8)]
    planned, eager, source = _plan_and_eager(_loss_and_gradient, labels, logits)
    assert_identical(planned, eager)
    assert re.search(r"v\d+, v\d+ = k\d+\(a0, a1, k\d+_0\)", source)
    assert "softmax" not in source


def test_a_softmax_on_another_axis_or_of_other_logits_stays_apart():
    def f(labels, logits):
        loss = rt.nn.softmax_cross_entropy_with_logits(labels, logits)
        return loss, rt.nn.softmax(logits, axis=0), rt.nn.softmax(logits * 2.0)

    rng = np.random.RandomState(4)
    logits, labels = rng.randn(3, 3).astype(np.float32), np.eye(3, dtype=np.float32)
    planned, eager, source = _plan_and_eager(f, labels, logits)
    assert_identical(planned, eager)
    assert not re.search(r"v\d+, v\d+ = ", source)


# -- variable writes --------------------------------------------------------------------------


def test_an_update_written_into_its_dying_value_leaves_earlier_reads_alone():
    v = rt.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))
    held = v.value()

    @rt.function(jit_compile=False)
    def step(x):
        before = v.read_value()
        v.assign_add(x * 2.0)
        v.assign_sub(x + 1.0)
        return before

    x = rt.constant(np.full((2, 3), 0.5, np.float32))
    expected_held = held.numpy().copy()
    returned = step(x)
    np.testing.assert_array_equal(returned.numpy(), expected_held)
    np.testing.assert_array_equal(held.numpy(), expected_held)
    np.testing.assert_array_equal(v.numpy(), expected_held + np.float32(1.0) - np.float32(1.5))
    assert not v.numpy().flags.writeable


def test_an_assigned_value_used_after_the_write_stays_the_callers():
    v = rt.Variable(np.zeros(3, np.float32))

    @rt.function(jit_compile=False)
    def f(x):
        y = x * 2.0
        v.assign(y)          # y lives on: v gets a copy
        v.assign(x * 3.0)    # dies here: v keeps it
        return y

    result = f(rt.constant(np.ones(3, np.float32))).numpy()
    result[0] = -1.0  # the caller's array: changing it changes no variable
    np.testing.assert_array_equal(v.numpy(), [3.0, 3.0, 3.0])
    assert not v.numpy().flags.writeable


def test_writes_of_scalars_and_partly_known_shapes_keep_their_checks():
    counter = rt.Variable(np.int64(0))
    vector = rt.Variable(np.zeros(2, np.float32))

    @rt.function(jit_compile=False)
    def f(x):
        counter.assign_add(1)
        vector.assign_add(x)
        return counter.read_value()

    f_any = f.get_concrete_function(rt.TensorSpec([None], rt.float32))
    assert int(f_any(rt.constant([1.0, 2.0]))) == 1
    with pytest.raises(InvalidArgumentError, match="cannot assign a value of shape"):
        f_any(rt.constant([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(vector.numpy(), [1.0, 2.0])


def test_a_write_before_the_variables_first_graph_ran_says_so():
    class Lazy(rt.Module):
        def __init__(self):
            self.v = None

        @rt.function(jit_compile=False)
        def __call__(self, x):
            if self.v is None:
                self.v = rt.Variable(x * 2.0)
            return self.v * x

    lazy = Lazy()
    x = rt.constant(np.ones(3, np.float32))
    lazy.__call__.get_concrete_function(x)  # traced, not run: the variable has no value yet
    bump = rt.function(lambda x: lazy.v.assign_add(x * 1.0), jit_compile=False)
    with pytest.raises(ValueError, match="is not initialized yet"):
        bump(x)


def test_a_constant_repeating_one_value_is_given_as_that_value():
    quarter = np.full((4, 1), 0.25, np.float32)
    signed = np.array([[0.0], [-0.0], [0.0], [0.0]], np.float32)  # equal, not the same bits

    def f(x, row):
        return (x * quarter, x + signed, row * np.full((4, 3), 2.0, np.float32),
                x - np.arange(4, dtype=np.float32).reshape(4, 1))

    x = _values("float32", (4, 3))
    planned, eager, source = _plan_and_eager(f, x, x[0])
    assert_identical(planned, eager)
    # quarter only: signed is not uniform, the (4, 3) constant sets the shape of row * it,
    # the range differs
    assert re.findall(r"\bc\d+a\b", source) == ["c1a"], source


def test_writes_of_scalar_variables_take_the_specialized_path():
    counter = rt.Variable(np.int64(2**62))
    total = rt.Variable(np.float32(0.5))

    @rt.function(jit_compile=False)
    def f(x):
        counter.assign_add(2**62)  # wraps around silently, as eager arrays do
        total.assign_sub(x)
        return counter.read_value()

    x = rt.constant(np.float32(0.25))
    assert int(f(x)) == np.int64(-2**63)
    assert total.numpy() == np.float32(0.25) and total.numpy().shape == ()
    assert not total.numpy().flags.writeable
    writers = [k for k, v in f.get_concrete_function(x).executable._namespace.items()
               if getattr(v, "__name__", "") == "write"]
    assert len(writers) == 2


def test_a_sum_kept_as_axes_only_to_be_reshaped_away_is_the_sum_without_them():
    def f(x):
        bias_gradient = rt.reshape(rt.reduce_sum(x, [0], keepdims=True), [3])
        kept = rt.reduce_max(x, [1], keepdims=True)
        also_used = rt.reshape(kept, [4]), kept * 2.0            # kept has two uses
        turned = rt.reshape(rt.reduce_sum(x + 1.0, [0], keepdims=True), [3, 1])  # another shape
        return bias_gradient, also_used, turned

    x = _values("float32", (4, 3))
    planned, eager, source = _plan_and_eager(f, x)
    assert_identical(planned, eager)
    assert source.count(".reshape(") == 2, source


def test_a_training_steps_bias_gradients_need_no_reshape():
    w, b = rt.Variable(np.ones((3, 2), np.float32)), rt.Variable(np.zeros(2, np.float32))

    def loss(x):
        with rt.GradientTape() as tape:
            y = rt.reduce_mean(rt.square(rt.matmul(x, w) + b))
        return tape.gradient(y, [w, b])

    planned, eager, source = _plan_and_eager(loss, _values("float32", (5, 3)) / 10)
    assert_identical(planned, eager)
    assert ".reshape(" not in source


def test_a_matrix_product_keeps_its_constant_operands_whole():
    # matmul is a ufunc with core dimensions: a constant of equal elements is a matrix to it
    def f(x):
        return rt.matmul(x, np.full((3, 3), 2.0, np.float32)), rt.matmul([[x[0, 0]]], [[2.0]])

    planned, eager, _ = _plan_and_eager(f, _values("float32", (3, 3)))
    assert_identical(planned, eager)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_softmax_loss_of_few_classes_gives_the_kernels_bits(dtype):
    rng = np.random.RandomState(5)
    specials = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, 88.0, -1e-40])
    for classes in range(1, 9):
        logits = (rng.randn(40, classes) * rng.choice([1.0, 30.0, 1e-3], (40, classes)))
        labels = rng.dirichlet(np.ones(classes), 40)
        for row in range(0, 40, 4):  # NaNs of both signs, infinities, in logits or labels
            logits[row, rng.randint(classes)] = rng.choice(specials)
        labels[3, 0], labels[7, -1] = -np.nan, np.inf
        logits[10:14], labels[14] = -np.inf, np.nan
        for rows in (slice(None), slice(16, 40)):  # the last 24 rows are finite
            arrays = labels[rows].astype(dtype), logits[rows].astype(dtype)
            planned, eager, source = _plan_and_eager(_loss_and_gradient, *arrays)
            assert [p.tobytes() for p in planned] == [e.tobytes() for e in eager], classes
        logits_type = types.SimpleNamespace(shape=(24, classes), dtype=np.dtype(dtype))
        chosen = plan_softmax.pair_kernel(logits_type, logits_type, 1)
        assert (chosen is plan_softmax.few_classes) == (classes < 8)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "float16", "int8"])
def test_a_large_select_with_a_zero_branch_runs_as_bit_masks(dtype):
    """``where(c, x, 0)`` and ``where(c, 0, x)`` on many 4- or 8-byte elements (a ReLU's
    gradient) give np.where's bits, NaNs and signed zeros included; other sizes and dtypes
    call np.where."""
    shape = (64, 128)
    x = _values(dtype, shape)
    c = (np.arange(x.size).reshape(shape) * 7919 % 13) > 5

    def f(c, x):
        return rt.where(c, x, rt.zeros_like(x)), rt.where(c, 0, x), rt.where(x > 1, x * 2, 0)

    planned, eager, source = _plan_and_eager(f, c, x)
    assert_identical(planned, eager)
    masked = np.dtype(dtype).itemsize in (4, 8)
    assert source.count(".view(bits") == (3 if masked else 0), source
    small, _, small_source = _plan_and_eager(f, c[:2, :3], x[:2, :3])
    assert ".view(bits" not in small_source
