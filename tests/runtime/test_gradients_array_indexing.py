"""Gradients of ``x[key]``: ``dy`` added into zeros of ``x``'s shape at the key (the op
``getitem_grad``), for every kind of key getitem supports, against finite differences;
random keys come from hypothesis."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import runtime as rt
from runtime.errors import RetracingWarning
from tests.runtime.test_gradients_array import check_gradients, gradient_of

RNG = np.random.default_rng(99)
X = RNG.standard_normal((3, 4, 5))
X34 = RNG.standard_normal((3, 4))

# (name, fn, inputs, input_signature with unknown dims or None)
KEYS = [
    ("int", lambda x: x[1], [X], None),
    ("negative_int", lambda x: x[-1, 2], [X], None),
    ("slice", lambda x: x[1:, :3], [X], None),
    ("negative_step", lambda x: x[::-2, 3:0:-1], [X], None),
    ("ellipsis", lambda x: x[..., 1], [X], [rt.TensorSpec([None, 4, 5], rt.float64)]),
    ("newaxis", lambda x: x[None, 1, None, ::2], [X], None),
    ("int_tensor_repeats", lambda x: x[rt.constant([2, 0, 2, 2])], [X34],
     [rt.TensorSpec([None, 4], rt.float64)]),
    ("int_list_negative", lambda x: x[:, [-1, 0, -1]], [X34], None),
    ("int_tensor_2d", lambda x: x[rt.constant([[0, 1], [1, 1]]), 2:], [X34], None),
    ("int_tensor_apart_from_int", lambda x: x[0, :, [4, 4, 1]], [X], None),
    ("two_int_tensors", lambda x: x[rt.constant([0, 0, 2]), :, rt.constant([1, 1, 1])], [X], None),
    ("bool_mask", lambda x: x[rt.constant(X34 > 0)], [X34], None),
    ("bool_mask_axis_1", lambda x: x[:, rt.constant([True, False, True, True])], [X], None),
    ("bool_mask_traced", lambda x: x[x > 0.0] * x[x > 0.0], [X34],
     [rt.TensorSpec([None, 4], rt.float64)]),
    ("tensor_bounds", lambda x: x[rt.constant(1):rt.constant(-1), ::rt.constant(-1)], [X34], None),
    ("dynamic_bounds", lambda x: x[rt.shape(x)[0] - 2:, :rt.shape(x)[1] // 2], [X34],
     [rt.TensorSpec([None, None], rt.float64)]),
    ("scalar", lambda x: x[...] * x[None], [np.float64(1.5)], None),
]


@pytest.mark.parametrize("name, fn, arrays, signature", KEYS, ids=[k[0] for k in KEYS])
def test_getitem_gradient_matches_finite_differences(name, fn, arrays, signature):
    check_gradients(fn, *arrays)
    if signature is not None:
        check_gradients(fn, *arrays, signature=signature)


def test_integer_index_tensors_and_bounds_get_no_gradient():
    x, i, n = rt.constant(X34), rt.constant([1, 1]), rt.constant(3)
    with rt.GradientTape() as tape:
        tape.watch([x, i, n])
        y = x[i, :n]
    dx, di, dn = tape.gradient(y, [x, i, n])
    assert di is None and dn is None
    np.testing.assert_array_equal(dx.numpy(), [[0, 0, 0, 0], [2, 2, 2, 0], [0, 0, 0, 0]])


def test_float32_getitem_gradient_is_float32():
    x = rt.constant(X34.astype(np.float32))
    (dx,) = gradient_of(lambda v: v[rt.constant([0, 0])], x)
    assert dx.dtype == np.float32
    np.testing.assert_array_equal(dx.numpy()[0], np.full(4, 2.0, np.float32))


def test_repeated_indices_keep_inf_and_nan_in_place():
    x = rt.constant(X34)
    (dx,) = gradient_of(lambda v: v[rt.constant([2, 2])], x,
                        seed=np.array([[np.inf, 1, 1, 1], [1, np.nan, 1, 1]]))
    np.testing.assert_array_equal(dx.numpy()[:2], np.zeros((2, 4)))
    np.testing.assert_array_equal(dx.numpy()[2], [np.inf, np.nan, 2, 2])


def test_getitem_grad_is_printed_and_differentiable_again():
    """The gradient of getitem_grad is getitem at the same key: second derivatives work."""
    @rt.function(input_signature=[rt.TensorSpec([None, 4], rt.float64)])
    def second(x):
        with rt.GradientTape() as outer:
            outer.watch(x)
            with rt.GradientTape() as inner:
                inner.watch(x)
                picked = x[rt.constant([1, 1]), ::-1]
                y = picked * picked              # sum: 2 * (x[1] reversed)**2
            g = inner.gradient(y, x)             # row 1: 4 * x[1]
        return g, outer.gradient(g, x)           # row 1: 4

    g, gg = second(rt.constant(X34))
    np.testing.assert_allclose(g.numpy()[1], 4 * X34[1])
    np.testing.assert_array_equal(gg.numpy(), [[0] * 4, [4] * 4, [0] * 4])
    assert "getitem_grad(" in str(second.get_concrete_function().graph)


# -- random keys ------------------------------------------------------------------------------


@st.composite
def shapes_and_keys(draw):
    """A shape and a NumPy key for it: ints, slices (any step), None, at most one ``...``,
    and at most one integer (repeats allowed) or bool index array."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    ellipsis_at = draw(st.none() | st.integers(0, len(shape)))
    indexed = draw(st.integers(0, len(shape)))
    if ellipsis_at is None:
        ellipsis_at = -1
    key, array_used, dim = [], False, 0
    for position in range(indexed + 1):
        if position == ellipsis_at:
            key.append(Ellipsis)
            dim = len(shape) - (indexed - position)
        if position == indexed:
            break
        if draw(st.booleans()) and draw(st.booleans()):
            key.append(None)
        size = shape[dim]
        kind = draw(st.sampled_from(["int", "slice", "slice", "array", "mask"]))
        if kind in ("array", "mask") and array_used:
            kind = "slice"
        if kind == "int":
            key.append(draw(st.integers(-size, size - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-size - 1, size + 1)
            step = draw(st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]))
            key.append(slice(draw(bound), draw(bound), step))
        elif kind == "array":
            array_used = True
            key.append(np.array(draw(st.lists(st.integers(-size, size - 1), min_size=0,
                                              max_size=5)), dtype=np.int64))
        else:
            array_used = True
            key.append(np.array(draw(st.lists(st.booleans(), min_size=size, max_size=size))))
        dim += 1
    return shape, tuple(key)


def _as_tensor_key(key):
    return tuple(rt.constant(k) if isinstance(k, np.ndarray) else k for k in key)


def _numeric(x, key, seed):
    """Central differences of sum(seed * x[key]), in NumPy."""
    grad = np.zeros(x.shape)
    for position in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[position] += 1e-6
        minus[position] -= 1e-6
        grad[position] = (np.sum(seed * plus[key]) - np.sum(seed * minus[key])) / 2e-6
    return grad


SETTINGS = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@SETTINGS
@given(shapes_and_keys(), st.integers(0, 2**32 - 1))
def test_random_keys_match_finite_differences_eagerly_and_traced(shape_and_key, seed_value):
    shape, key = shape_and_key
    rng = np.random.default_rng(seed_value)
    x = rng.standard_normal(shape)
    seed = rng.standard_normal(np.shape(x[key]))
    expected = _numeric(x, key, seed)

    def grad(v):
        with rt.GradientTape() as tape:
            tape.watch(v)
            y = v[_as_tensor_key(key)]
        return tape.gradient(y, v, output_gradients=seed)

    eager = grad(rt.constant(x))
    np.testing.assert_allclose(eager.numpy(), expected, rtol=1e-6, atol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        unknown = rt.TensorSpec([None] * len(shape), rt.float64)
        traced = rt.function(grad, input_signature=[unknown])(rt.constant(x))
    assert traced.shape == shape and traced.dtype == np.float64
    np.testing.assert_allclose(traced.numpy(), eager.numpy(), rtol=1e-12, atol=1e-12)
