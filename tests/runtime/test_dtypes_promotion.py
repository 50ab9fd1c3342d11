"""Dtype rules: JAX's promotion lattice for tensors, Python numbers weak in both directions,
comparisons exact, and eager, graph and inferred dtypes always the same.

Each case runs eagerly and inside ``rt.function``: the traced graph must infer the same dtype
the kernel produces, so eager and graph results cannot disagree.
"""

import operator
import warnings

import numpy as np
import pytest

import runtime as rt
from transpiler import function

MODES = ["eager", "graph"]


def run(mode, fn, *args):
    if mode == "eager":
        return fn(*args)
    traced = rt.function(fn)
    concrete = traced.get_concrete_function(*args)
    result = traced(*args)
    # The static dtype inferred while tracing is the dtype the plan really produces.
    for static, value in zip(concrete.graph.outputs, rt.nest.flatten(result)):
        assert static.dtype == value.dtype
    return result


WEAK_CASES = [
    # (tensor dtype, python scalar, op, expected dtype)
    (rt.int32, 1, lambda x, s: x + s, rt.int32),
    (rt.int32, 1, lambda x, s: s + x, rt.int32),
    (rt.int32, 3, lambda x, s: x * s, rt.int32),
    (rt.int32, 2, lambda x, s: x // s, rt.int32),
    (rt.int32, 2, lambda x, s: x % s, rt.int32),
    (rt.int32, 2, lambda x, s: x ** s, rt.int32),
    (rt.int8, 1, lambda x, s: x + s, rt.int8),
    (rt.uint8, 1, lambda x, s: x + s, rt.uint8),
    (rt.int64, 1, lambda x, s: x - s, rt.int64),
    (rt.float32, 2.0, lambda x, s: x * s, rt.float32),
    (rt.float32, 2, lambda x, s: x * s, rt.float32),
    (rt.float32, 2.0, lambda x, s: s / x, rt.float32),
    (rt.float16, 3.5, lambda x, s: x * s, rt.float16),
    (rt.float64, 1.0, lambda x, s: x + s, rt.float64),
    (rt.float64, 1, lambda x, s: x * s, rt.float64),
    (rt.int32, 1, lambda x, s: x < s, rt.bool),
    (rt.bool, True, lambda x, s: x & s, rt.bool),
    # A Python float next to an integer tensor: the float of the integer's width.
    (rt.int32, 1.5, lambda x, s: x * s, rt.float32),
    (rt.int32, 1.5, lambda x, s: s * x, rt.float32),
    (rt.int8, 1.5, lambda x, s: x + s, rt.float32),
    (rt.uint8, 0.5, lambda x, s: x - s, rt.float32),
    (rt.int64, 1.5, lambda x, s: x * s, rt.float64),
    (rt.int32, 2.0, lambda x, s: x ** s, rt.float32),
    (rt.bool, 1.5, lambda x, s: x * s, rt.float32),
    # A Python int next to a bool tensor: the default int.
    (rt.bool, 1, lambda x, s: x + s, rt.int32),
    # True division of integers is Python's exact answer.
    (rt.int32, 2, lambda x, s: x / s, rt.float64),
    (rt.int64, 2, lambda x, s: x / s, rt.float64),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype, scalar, op, expected", WEAK_CASES)
def test_python_scalars_are_weak(mode, dtype, scalar, op, expected):
    x = rt.constant(np.array([1, 2], dtype=dtype))
    result = run(mode, lambda t: op(t, scalar), x)
    assert result.dtype == expected
    np.testing.assert_allclose(result.numpy().astype(np.float64),
                               np.asarray(op(x.numpy(), scalar), np.float64), rtol=1e-3)


def test_the_examples_of_the_issue():
    assert (rt.constant(1) * 1.5).dtype == rt.float32
    assert float(rt.constant(1) * 1.5) == 1.5
    assert (rt.constant(np.int64(2**40)) * 1.5).dtype == rt.float64
    assert float(rt.constant(np.int64(2**40)) * 1.5) == 1.5 * 2**40


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("left, right, expected", [
    # JAX's lattice: ints below floats, any int next to a float gives that float.
    (rt.int32, rt.float32, rt.float32),
    (rt.int64, rt.float32, rt.float32),
    (rt.int8, rt.float16, rt.float16),
    (rt.int32, rt.float64, rt.float64),
    (rt.uint8, rt.float32, rt.float32),
    (rt.bool, rt.float32, rt.float32),
    # Same kind: the wider one; signed and unsigned: a signed type that holds both.
    (rt.int32, rt.int64, rt.int64),
    (rt.float32, rt.float64, rt.float64),
    (rt.int8, rt.uint8, rt.int16),
    (rt.uint8, rt.int32, rt.int32),
    (np.dtype("uint32"), rt.int32, rt.int64),
    (np.dtype("uint64"), rt.int64, rt.float64),
    (rt.bool, rt.int32, rt.int32),
    (rt.float64, rt.complex64, rt.complex128),
    (rt.int32, rt.complex64, rt.complex64),
])
def test_tensor_tensor_promotion_follows_the_lattice(mode, left, right, expected):
    a = rt.constant(np.array([1, 0], dtype=left))
    b = rt.constant(np.array([1, 1], dtype=right))
    for fn in (lambda x, y: x + y, lambda x, y: y * x, rt.maximum):
        result = run(mode, fn, a, b)
        assert result.dtype == expected
        expected_values = np.asarray(fn(a.numpy(), b.numpy())).astype(expected)
        np.testing.assert_array_equal(result.numpy(), expected_values)


def test_int32_plus_float32_values():
    a = rt.constant(np.array([3, -7], np.int32))
    b = rt.constant(np.array([0.5, 0.25], np.float32))
    np.testing.assert_array_equal((a + b).numpy(), np.array([3.5, -6.75], np.float32))


# -- every binary op, every pair of dtypes: eager, graph and inferred dtypes agree ----------

DTYPES = [rt.bool, rt.int8, rt.uint8, rt.int16, rt.int32, rt.int64, np.dtype("uint32"),
          np.dtype("uint64"), rt.float16, rt.float32, rt.float64, rt.complex64]
BINARY = {
    "add": rt.add, "subtract": rt.subtract, "multiply": rt.multiply, "divide": rt.divide,
    "floordiv": rt.floordiv, "mod": rt.mod, "pow": rt.pow, "maximum": rt.maximum,
    "minimum": rt.minimum, "equal": rt.equal, "not_equal": rt.not_equal, "less": rt.less,
    "less_equal": rt.less_equal, "greater": rt.greater, "greater_equal": rt.greater_equal,
    "logical_and": rt.logical_and, "logical_or": rt.logical_or, "logical_xor": rt.logical_xor,
    "and": operator.and_, "or": operator.or_, "xor": operator.xor,
    "matmul": lambda x, y: rt.matmul(rt.reshape(x, [1, 2]), rt.reshape(y, [2, 1])),
}


def _eager(fn, a, b):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(a, b)
        except Exception as error:  # noqa: BLE001 - the graph must refuse the same pairs
            return error


@pytest.mark.parametrize("shape", [(2,), ()])
@pytest.mark.parametrize("name", list(BINARY))
def test_eager_graph_and_declared_dtypes_agree_for_every_pair(name, shape):
    fn = BINARY[name]
    if name == "matmul" and shape == ():
        pytest.skip("matmul needs vectors")
    values = {d: rt.constant(np.resize(np.array([3, 1]), shape).astype(d)) for d in DTYPES}
    divisors = {d: rt.constant(np.resize(np.array([2, 1]), shape).astype(d)) for d in DTYPES}
    pairs = [(a, b) for a in DTYPES for b in DTYPES]
    eager = {pair: _eager(fn, values[pair[0]], divisors[pair[1]]) for pair in pairs}
    working = [pair for pair in pairs if not isinstance(eager[pair], Exception)]
    # One graph computes every pair that works eagerly.
    traced = rt.function(lambda *xs: [fn(xs[2 * i], xs[2 * i + 1]) for i in range(len(working))])
    args = [t for a, b in working for t in (values[a], divisors[b])]
    concrete = traced.get_concrete_function(*args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        results = traced(*args)
    for pair, declared, result in zip(working, concrete.graph.outputs, results):
        expected = eager[pair]
        assert (expected.dtype, result.dtype, declared.dtype) == (expected.dtype,) * 3, pair
        np.testing.assert_array_equal(result.numpy(), expected.numpy(), err_msg=str(pair))
        if name in ("add", "subtract", "multiply", "maximum", "minimum") and pair[0] != rt.bool:
            assert expected.dtype == rt.dtypes.promote_types(*pair)[0], pair
    for pair in pairs:  # what fails eagerly fails while tracing
        if isinstance(eager[pair], Exception):
            with pytest.raises(Exception):
                rt.function(fn).get_concrete_function(values[pair[0]], divisors[pair[1]])


# -- numbers and weak tensors ---------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_numpy_integers_are_strong(mode):
    assert run(mode, lambda t: t * np.int64(2), rt.constant([1, 2])).dtype == rt.int64
    assert run(mode, lambda t: t + np.array([1, 2], np.int64), rt.constant([1, 2])).dtype \
        == rt.int64


@pytest.mark.parametrize("mode", MODES)
def test_numpy_floats_next_to_a_tensor_take_its_width(mode):
    """As TensorFlow converts them: ``x - np.mean(data)`` stays float32 (it was float64, and
    assigning it to a float32 variable failed)."""
    x = rt.constant([1.0, 2.0])
    data = np.array([0.5, 1.5])
    for fn in (lambda t: t + np.float64(1.0), lambda t: t - np.mean(data),
               lambda t: np.float64(2.0) * t, lambda t: t * data, lambda t: rt.maximum(t, data),
               lambda t: rt.concat([t, data], 0), lambda t: rt.stack([t, data, [1.0, 2.0]])):
        assert run(mode, fn, x).dtype == rt.float32
    np.testing.assert_array_equal(run(mode, lambda t: t - np.mean(data), x).numpy(), [0.0, 1.0])
    assert run(mode, lambda t: t * np.float32(2.0), rt.constant([1.0], rt.float64)).dtype \
        == rt.float64
    assert run(mode, lambda t: t * np.float64(1.5), rt.constant([1, 2], rt.int64)).dtype \
        == rt.float64
    v = rt.Variable([1.0, 2.0])
    v.assign(v - np.mean(data))
    np.testing.assert_array_equal(v.numpy(), [0.0, 1.0])


def test_numpy_floats_alone_keep_their_dtype():
    assert rt.reduce_sum(np.array([1.0, 2.0])).dtype == rt.float64
    assert rt.add(np.float64(1.0), np.array([1.0], np.float32)).dtype == rt.float64


@pytest.mark.parametrize("mode", MODES)
def test_lists_of_python_scalars_are_weak(mode):
    ints = rt.constant([1, 2])
    assert run(mode, lambda t: t + [10, 20], ints).dtype == rt.int32
    halves = rt.constant(np.array([1, 2], np.float16))
    result = run(mode, lambda t: t + [1.5, 2], halves)
    assert result.dtype == rt.float16
    np.testing.assert_array_equal(result.numpy(), [2.5, 4.0])


def test_python_scalars_alone_get_default_dtypes():
    assert rt.add(1, 2).dtype == rt.int32
    assert rt.add(1, 2.0).dtype == rt.float32
    assert rt.add(True, 1).dtype == rt.int32
    assert rt.maximum(0.0, [1, -1]).dtype == rt.float32
    assert rt.logical_and(True, False).dtype == rt.bool
    assert rt.divide(1, 2).dtype == rt.float64


@pytest.mark.parametrize("mode", MODES)
def test_where_and_clip_promote_like_arithmetic(mode):
    condition = rt.constant([True, False])
    assert run(mode, lambda c, x: rt.where(c, x, 0), condition, rt.constant([1.0, 2.0])).dtype \
        == rt.float32
    mixed = run(mode, lambda c, x: rt.where(c, x, 0.5), condition, rt.constant([1, 2]))
    assert mixed.dtype == rt.float32
    np.testing.assert_array_equal(mixed.numpy(), [1.0, 0.5])
    clipped = run(mode, lambda t: rt.clip_by_value(t, 2, 6), rt.constant([1, 5, 9]))
    assert clipped.dtype == rt.int32
    np.testing.assert_array_equal(clipped.numpy(), [2, 5, 6])


@pytest.mark.parametrize("mode", MODES)
def test_python_int_that_does_not_fit_raises_instead_of_wrapping(mode):
    for dtype, value in ((rt.int8, 1000), (rt.uint8, -1), (rt.int32, 2**40)):
        with pytest.raises(OverflowError, match=rf"{value} does not fit in {dtype.name}"):
            run(mode, lambda t: t + value, rt.constant(np.array([1], dtype)))


@pytest.mark.parametrize("mode", MODES)
def test_comparisons_are_exact(mode):
    small = rt.constant(np.array([1, -2], np.int8))
    assert run(mode, lambda t: t < 300, small).numpy().tolist() == [True, True]
    assert run(mode, lambda t: t != 1000, small).numpy().tolist() == [True, True]
    three = rt.constant(np.array([3, 16777217], np.int32))
    # In float32 both sides would be equal; Python and NumPy compare the values exactly.
    assert run(mode, lambda t: t > 2.9999999, three).numpy().tolist() == [True, True]
    assert run(mode, lambda t: t > 16777216.5, three).numpy().tolist() == [False, True]
    floats = rt.constant(np.array([2.5, 16777216.0], np.float32))
    assert run(mode, lambda a, b: a > b, three, floats).numpy().tolist() == [True, True]
    # A Python float next to a float32 tensor is a float32, as in NumPy 2.
    assert run(mode, lambda t: t == 0.1, rt.constant([0.1])).numpy().tolist() == [True]


def test_as_dtype_names():
    assert rt.as_dtype(float) == rt.float32
    assert rt.as_dtype(int) == rt.int32
    assert rt.as_dtype(bool) == rt.bool
    assert rt.as_dtype("f64") == rt.float64
    assert rt.as_dtype(np.int16) == rt.int16
    with pytest.raises(TypeError, match="is not a dtype"):
        rt.as_dtype("no such dtype")


# -- weak tensors: loop counters in converted code stand for Python ints --------------------


def counter_times_tensor(n, x):
    for i in range(n):
        x = x + i * x
    return x


def counter_plus_python_int(start, stop):
    last = 0
    for i in range(start, stop):
        last = i + 2**33
    return last


def counter_next_to_small_ints(n, x):
    for i in range(n):
        x = x + i
    return x


def counter_summed(n):
    s = 0
    for i in range(n):
        s += i
    return s


def counter_times_python_float(n):
    s = 0.0
    for i in range(n):
        s += i * 0.5
    return s


@pytest.mark.parametrize("counter", [rt.int32, rt.int64])
@pytest.mark.parametrize("dtype", [rt.float32, rt.float64, rt.int32, rt.int64])
def test_a_loop_counter_takes_the_dtype_of_the_tensor_it_meets(counter, dtype):
    n = rt.constant(np.array(3, counter))
    x = rt.constant(np.array([1, 2], dtype))
    result = function(counter_times_tensor)(n, x)
    assert result.dtype == dtype
    np.testing.assert_array_equal(result.numpy(), counter_times_tensor(3, x.numpy()))


@pytest.mark.parametrize("counter, expected", [
    (rt.int8, rt.int32), (rt.uint8, rt.int32), (rt.int32, rt.int32), (rt.int64, rt.int64)])
def test_a_loop_counter_with_python_ints_keeps_its_width_at_least_int32(counter, expected):
    # An int8 counter plus Python ints is at least an int32, as a Python int would not wrap.
    result = function(counter_summed)(rt.constant(np.array(100, counter)))
    assert result.dtype == expected and int(result) == 4950
    floats = function(counter_times_python_float)(rt.constant(np.array(4, counter)))
    assert floats.dtype == (rt.float64 if counter == rt.int64 else rt.float32)
    assert float(floats) == 3.0


def test_an_int64_counter_plus_a_big_python_int_stays_int64():
    result = function(counter_plus_python_int)(rt.constant(np.int64(2**32)),
                                               rt.constant(np.int64(2**32 + 3)))
    assert result.dtype == rt.int64 and int(result) == 2**32 + 2 + 2**33


def test_a_counter_that_does_not_fit_the_tensor_it_meets_raises_at_run_time():
    x = rt.constant(np.array([0], np.int8))
    result = function(counter_next_to_small_ints)(rt.constant(10), x)
    assert result.dtype == rt.int8 and int(result[0]) == 45
    # The counter reaches 128: Python (NumPy 2) raises for int8 + 128 rather than wrap.
    with pytest.raises(rt.errors.InvalidArgumentError, match="128 does not fit in int8"):
        function(counter_next_to_small_ints)(rt.constant(130), x)


def test_range_promotes_its_bounds_and_never_wraps_them():
    assert rt.range(rt.constant(np.int64(3))).dtype == rt.int64
    halves = rt.range(rt.constant(2), 3.5)
    assert halves.dtype == rt.float32 and halves.numpy().tolist() == [2.0, 3.0]
    with pytest.raises(OverflowError, match=r"range: -1 does not fit in uint8"):
        rt.range(rt.constant(np.uint8(5)), -1, -1)


@pytest.mark.parametrize("mode", MODES)
def test_an_unsigned_range_counts_down(mode):
    result = run(mode, lambda n: rt.range(n, 0, -1), rt.constant(np.uint8(5)))
    assert result.dtype == rt.uint8 and result.numpy().tolist() == [5, 4, 3, 2, 1]


def test_an_explicit_cast_makes_a_counter_an_ordinary_tensor():
    # The Python int 0 makes `i` a loop variable standing for a Python number: plus an int8
    # tensor it would be int8; after rt.cast it is an int32 tensor, so int32 + int8 is int32.
    step = lambda i, out: (i + 1, rt.cast(i, rt.int32) + rt.constant(1, rt.int8))  # noqa: E731
    f = rt.function(lambda n: rt.while_loop(lambda i, out: i < n, step,
                                            (0, rt.zeros([], rt.int32)))[1])
    got = f(rt.constant(3))
    assert got.dtype == rt.int32 and int(got) == 3
