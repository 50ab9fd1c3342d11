"""Algebraic simplification: exact identities only, never changing dtype, shape or value."""

import numpy as np
import pytest

import runtime as rt
from tests.runtime.graph_helpers import ops, run_unoptimized, traced

F32 = rt.TensorSpec([3], rt.float32)
I32 = rt.TensorSpec([3], rt.int32)
SPECIAL = np.array([-0.0, np.nan, np.inf], np.float32)


@pytest.mark.parametrize("fn, spec", [
    (lambda x: x * 1.0, F32), (lambda x: 1.0 * x, F32), (lambda x: x - 0.0, F32),
    (lambda x: x / 1.0, F32), (lambda x: x + 0, I32), (lambda x: x // 1, I32),
    (lambda x: -(-x), F32), (lambda x: x ** 1, F32), (lambda x: rt.identity(x), F32),
    (lambda x: rt.cast(rt.identity(x), rt.float32), F32), (lambda x: rt.reshape(x, [3]), F32),
    (lambda x: rt.transpose(x), F32),
])
def test_identities_disappear_and_results_stay_identical(fn, spec):
    concrete = traced(fn, spec)
    assert ops(concrete.graph) == []
    data = SPECIAL if spec.dtype == rt.float32 else np.array([-4, 0, 7], np.int32)
    np.testing.assert_array_equal(concrete(data).numpy(), run_unoptimized(concrete, data)[0])


@pytest.mark.parametrize("fn", [lambda x: x + 0.0, lambda x: x * 0.0, lambda x: 0.0 * x,
                                lambda x: x - (-0.0)])
def test_float_rules_that_are_not_exact_are_not_applied(fn):
    concrete = traced(fn, F32)
    assert ops(concrete.graph) != []
    np.testing.assert_array_equal(concrete(SPECIAL).numpy(), fn(SPECIAL))


def test_integer_times_zero_is_zero_but_keeps_the_shape():
    concrete = traced(lambda x: x * 0, I32)
    assert ops(concrete.graph) == ["const"] or ops(concrete.graph) == []
    np.testing.assert_array_equal(concrete(np.array([5, -1, 3], np.int32)).numpy(), [0, 0, 0])


def test_broadcasting_identities_are_not_removed():
    concrete = traced(lambda x: x * rt.ones([2, 3]), F32)
    assert concrete(np.ones(3, np.float32)).shape == (2, 3)


def test_pow_two_becomes_square():
    concrete = traced(lambda x: x ** 2, F32)
    assert ops(concrete.graph) == ["square"]
    np.testing.assert_array_equal(concrete(SPECIAL).numpy(), np.power(SPECIAL, 2))


def test_logical_neutral_elements():
    concrete = traced(lambda b: rt.logical_or(rt.logical_and(b, True), False),
                      rt.TensorSpec([2], rt.bool))
    assert ops(concrete.graph) == []
    np.testing.assert_array_equal(concrete(np.array([True, False])).numpy(), [True, False])
