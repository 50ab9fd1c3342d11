"""Dtype rules: Python scalars (and lists of them) are weak, everything else follows NumPy.

Each case runs eagerly and inside ``rt.function``: the traced graph must infer the same dtype
the kernel produces, so eager and graph results cannot disagree.
"""

import numpy as np
import pytest

import runtime as rt

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
    (rt.int32, 1, lambda x, s: x < s, rt.bool),
    (rt.bool, True, lambda x, s: x & s, rt.bool),
    # Where a weak scalar cannot keep the tensor's kind, NumPy's rules decide.
    (rt.int32, 2.0, lambda x, s: x * s, rt.float64),
    (rt.int32, 2, lambda x, s: x / s, rt.float64),
    (rt.bool, 1, lambda x, s: x + s, rt.int64),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype, scalar, op, expected", WEAK_CASES)
def test_python_scalars_are_weak(mode, dtype, scalar, op, expected):
    x = rt.constant(np.array([1, 2], dtype=dtype))
    result = run(mode, lambda t: op(t, scalar), x)
    assert result.dtype == expected
    np.testing.assert_array_equal(result.numpy(), op(x.numpy(), scalar))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("left, right, expected", [
    (rt.int32, rt.int64, rt.int64),
    (rt.float32, rt.float64, rt.float64),
    (rt.int32, rt.float32, rt.float64),
    (rt.int8, rt.uint8, rt.int16),
    (rt.bool, rt.int32, rt.int32),
])
def test_tensor_tensor_promotion_follows_numpy(mode, left, right, expected):
    a = rt.constant(np.array([1, 0], dtype=left))
    b = rt.constant(np.array([1, 1], dtype=right))
    assert run(mode, lambda x, y: x + y, a, b).dtype == expected


@pytest.mark.parametrize("mode", MODES)
def test_numpy_scalars_are_strong(mode):
    x = rt.constant([1.0, 2.0])
    assert run(mode, lambda t: t + np.float64(1.0), x).dtype == rt.float64
    assert run(mode, lambda t: t * np.int64(2), rt.constant([1, 2])).dtype == rt.int64


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


@pytest.mark.parametrize("mode", MODES)
def test_where_and_clip_promote_scalars_weakly(mode):
    condition = rt.constant([True, False])
    assert run(mode, lambda c, x: rt.where(c, x, 0), condition, rt.constant([1.0, 2.0])).dtype \
        == rt.float32
    clipped = run(mode, lambda t: rt.clip_by_value(t, 2, 6), rt.constant([1, 5, 9]))
    assert clipped.dtype == rt.int32
    np.testing.assert_array_equal(clipped.numpy(), [2, 5, 6])


def test_weak_scalar_that_does_not_fit_raises_instead_of_wrapping():
    with pytest.raises(OverflowError, match="1000"):
        rt.constant(1, rt.int8) + 1000


def test_as_dtype_names():
    assert rt.as_dtype(float) == rt.float32
    assert rt.as_dtype(int) == rt.int32
    assert rt.as_dtype(bool) == rt.bool
    assert rt.as_dtype("f64") == rt.float64
    assert rt.as_dtype(np.int16) == rt.int16
    with pytest.raises(TypeError, match="is not a dtype"):
        rt.as_dtype("no such dtype")
