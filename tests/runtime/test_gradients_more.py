"""Gradients of issue 13's math and array ops against central finite differences."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.gradient_helpers import numeric_gradient, tape_gradients

RNG = np.random.default_rng(13)
X = RNG.uniform(-0.8, 0.8, (2, 3))
POSITIVE = RNG.uniform(0.5, 2.0, (2, 3))

CASES = {
    "asin": (rt.math.asin, [X]), "acos": (rt.math.acos, [X]), "atan": (rt.math.atan, [X]),
    "sinh": (rt.math.sinh, [X]), "cosh": (rt.math.cosh, [X]), "expm1": (rt.math.expm1, [X]),
    "erf": (rt.math.erf, [X]), "log_sigmoid": (rt.math.log_sigmoid, [X]),
    "atan2": (rt.math.atan2, [X, POSITIVE]), "rsqrt": (rt.math.rsqrt, [POSITIVE]),
    "reciprocal": (rt.math.reciprocal, [POSITIVE]),
    "squared_difference": (rt.math.squared_difference, [X, POSITIVE]),
    "divide_no_nan": (rt.math.divide_no_nan, [X, POSITIVE]),
    "multiply_no_nan": (rt.math.multiply_no_nan, [X, POSITIVE]),
    "reduce_std": (lambda x: rt.math.reduce_std(x, axis=-1), [X]),
    "reduce_variance": (lambda x: rt.math.reduce_variance(x, axis=0, keepdims=True), [X]),
    "reduce_euclidean_norm": (rt.math.reduce_euclidean_norm, [X]),
    "add_n": (lambda a, b: rt.add_n([a, b, a]), [X, POSITIVE]),
    "polyval": (lambda c, x: rt.math.polyval([c, 2.0, c], x), [X, POSITIVE]),
    "cumsum": (lambda x: rt.math.cumsum(x, axis=-1, exclusive=True, reverse=True), [X]),
    "cumprod": (lambda x: rt.math.cumprod(x, axis=1), [POSITIVE]),
    "cumprod_exclusive": (lambda x: rt.math.cumprod(x, axis=0, exclusive=True, reverse=True),
                          [POSITIVE]),
    "top_k": (lambda x: rt.math.top_k(x, 2)[0], [X]),
    "sort": (lambda x: rt.sort(x, axis=0, direction="DESCENDING"), [X]),
    "pad_constant": (lambda x: rt.pad(x, [[1, 0], [2, 1]], constant_values=3.0), [X]),
    "pad_reflect": (lambda x: rt.pad(x, [[1, 1], [2, 1]], "REFLECT"), [X]),
    "pad_symmetric": (lambda x: rt.pad(x, [[2, 0], [1, 3]], "SYMMETRIC"), [X]),
    "gather_nd": (lambda x: rt.gather_nd(x, [[1, 2], [0, 0], [1, 2]]), [X]),
    "scatter_nd": (lambda u: rt.scatter_nd([[1], [0], [1]], u, [2, 3]), [RNG.normal(size=(3, 3))]),
    "tensor_scatter_nd_update": (lambda t, u: rt.tensor_scatter_nd_update(t, [[1, 0]], u),
                                 [X, RNG.normal(size=(1,))]),
    "tensor_scatter_nd_add": (lambda t, u: rt.tensor_scatter_nd_add(t, [[0], [0]], u),
                              [X, RNG.normal(size=(2, 3))]),
    "tile_split": (lambda x: rt.split(rt.tile(x, [2, 1]), [1, -1], axis=0)[1], [X]),
    "slice_reverse_repeat": (lambda x: rt.repeat(rt.reverse(rt.slice(x, [0, 1], [2, -1]), [1]),
                                                 [1, 3], axis=1), [X]),
    "boolean_mask": (lambda x: rt.boolean_mask(x, x > 0), [X]),
    "one_hot_values": (lambda on: rt.one_hot([0, 2, -1], 3, on_value=on, off_value=0.5),
                       [np.array(1.5)]),
    "linspace": (lambda a, b: rt.linspace(a, b, 4), [np.array(0.25), np.array(2.0)]),
    "meshgrid": (lambda a, b: rt.meshgrid(a, b)[0] * rt.meshgrid(a, b)[1],
                 [RNG.normal(size=3), RNG.normal(size=2)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradient_matches_finite_differences(name):
    fn, arrays = CASES[name]
    seed = RNG.normal(size=np.shape(fn(*[rt.constant(a) for a in arrays]).numpy()))
    tensors = [rt.constant(a) for a in arrays]
    for run in (fn, rt.function(fn)):
        grads = tape_gradients(run, tensors, range(len(arrays)), rt.constant(seed))
        for index, grad in enumerate(grads):
            expected = numeric_gradient(fn, arrays, index, seed)
            np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_integer_and_index_outputs_carry_no_gradient():
    x = rt.constant([3.0, 1.0, 2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(rt.argsort(x), rt.float32) + rt.cast(rt.math.is_nan(x), rt.float32)
    with pytest.warns(rt.errors.GradientWarning, match="carries no gradient"):
        assert tape.gradient(y, x) is None
