"""Gradients of the array, conversion and broadcasting ops, through ``rt.GradientTape``.

Every rule is checked the same way (``check_gradients``): the tape's gradient eagerly, the
same computation traced by ``rt.function`` (optionally with unknown dimensions), and central
finite differences in float64 must agree, and each gradient must have its source's dtype and
shape. The weight of each output element is a random ``output_gradients`` seed, so no test
depends on the reductions' own rules. The other files ``test_gradients_array_*.py`` reuse
these helpers for indexing and ``rt.TensorArray``.
"""

import warnings

import numpy as np
import pytest

import runtime as rt
from runtime.errors import GradientWarning
from runtime.ops.broadcast_ops import broadcast_to, sum_to_shape
from tests.runtime.gradient_helpers import numeric_gradient, tape_gradients, value_of

RNG = np.random.default_rng(1234)


def _random(*shape):
    return RNG.standard_normal(shape)


# -- helpers (also used by the other test_gradients_array_*.py files) ------------------------








_ARITIES = {
    1: lambda body: lambda a: body(a),
    2: lambda body: lambda a, b: body(a, b),
    3: lambda body: lambda a, b, c: body(a, b, c),
    4: lambda body: lambda a, b, c, d: body(a, b, c, d),
}


def graph_gradients(fn, arrays, wrt, seed, signature=None) -> list:
    """``tape_gradients`` inside a function traced by ``rt.function``."""
    traced = rt.function(_ARITIES[len(arrays)](lambda *xs: tape_gradients(fn, list(xs), wrt, seed)),
                         input_signature=signature)
    return traced(*[rt.constant(a) for a in arrays])


def check_gradients(fn, *arrays, wrt=None, signature=None, rtol=1e-6, atol=1e-6) -> list:
    """Eager tape, traced tape and finite differences agree for every float input in
    ``wrt`` (default: all float inputs); returns the eager gradients."""
    arrays = [np.asarray(a) for a in arrays]
    if wrt is None:
        wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    y = value_of(fn, arrays)
    seed = _random(*y.shape).astype(y.dtype)
    eager = tape_gradients(fn, [rt.constant(a) for a in arrays], wrt, seed)
    graph = graph_gradients(fn, arrays, wrt, seed, signature)
    for i, e, g in zip(wrt, eager, graph):
        assert e is not None and g is not None, f"no gradient for input {i}"
        assert e.dtype == arrays[i].dtype and g.dtype == arrays[i].dtype
        assert e.shape == arrays[i].shape and g.shape == arrays[i].shape
        if arrays[i].dtype == np.float64:
            expected = numeric_gradient(fn, arrays, i, seed)
            np.testing.assert_allclose(e.numpy(), expected, rtol=rtol, atol=atol)
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-12, atol=1e-12)
    return eager


def gradient_of(fn, *tensors, seed=None):
    """The eager gradients of ``fn`` with respect to every tensor given."""
    with rt.GradientTape() as tape:
        tape.watch(list(tensors))
        y = fn(*tensors)
    return tape.gradient(y, list(tensors), output_gradients=seed)


# -- the rules against finite differences ----------------------------------------------------

X23, X34, X43, X22 = _random(2, 3), _random(3, 4), _random(4, 3), _random(2, 2)
X234, X213 = _random(2, 3, 4), _random(2, 1, 3)
UNKNOWN_ROWS = [rt.TensorSpec([None, 3], rt.float64)]
UNKNOWN_ROWS_2 = UNKNOWN_ROWS * 2

# (name, fn, inputs, input_signature for a second trace with unknown dims or None)
CASES = [
    ("reshape", lambda x: rt.reshape(x, [3, 2]), [X23], None),
    ("reshape_minus_one", lambda x: rt.reshape(x, [-1]), [X23], UNKNOWN_ROWS),
    ("dynamic_reshape", lambda x: rt.reshape(x, rt.shape(x)[::-1]), [X23], UNKNOWN_ROWS),
    ("transpose", lambda x: rt.transpose(x), [X234], None),
    ("transpose_perm", lambda x: rt.transpose(x, [2, 0, 1]), [X234], None),
    ("transpose_unknown", lambda x: rt.transpose(x, [1, 0]), [X23], UNKNOWN_ROWS),
    ("concat", lambda a, b: rt.concat([a, b, a], 0), [X23, X43], UNKNOWN_ROWS_2),
    ("concat_negative_axis", lambda a, b: rt.concat([a, b], -1), [X23, X22], None),
    ("concat_unknown_axis_1", lambda a, b: rt.concat([b, a * a], 1), [X23, X23],
     [rt.TensorSpec([2, None], rt.float64)] * 2),
    ("stack", lambda a, b: rt.stack([a, b * b]), [X23, X23], UNKNOWN_ROWS_2),
    ("stack_negative_axis", lambda a, b: rt.stack([a, b], axis=-1), [X23, X23], UNKNOWN_ROWS_2),
    ("unstack", lambda x: rt.unstack(x)[1], [X23], None),
    ("unstack_negative_axis", lambda x: rt.unstack(x, axis=-1)[2] * rt.unstack(x, axis=-1)[0],
     [X23], UNKNOWN_ROWS),
    ("unstack_num", lambda x: rt.unstack(x, num=2)[0], [X23], UNKNOWN_ROWS),
    ("squeeze", lambda x: rt.squeeze(x, 1), [X213], [rt.TensorSpec([None, 1, 3], rt.float64)]),
    ("squeeze_all", lambda x: rt.squeeze(x), [X213], [rt.TensorSpec([None, 1, 3], rt.float64)]),
    ("expand_dims", lambda x: rt.expand_dims(x, -1), [X23], UNKNOWN_ROWS),
    ("gather_repeats", lambda x: rt.gather(x, [2, 0, 2, 2, 1]), [X34],
     [rt.TensorSpec([None, 4], rt.float64)]),
    ("gather_negative_axis", lambda x: rt.gather(x, [[1, 2], [0, 1]], axis=-1), [X23],
     UNKNOWN_ROWS),
    ("gather_middle_axis", lambda x: rt.gather(x, rt.constant([2, 2, 0]), axis=1), [X234], None),
    ("fill", lambda v: rt.fill([2, 3], v), [np.float64(1.5)], None),
    ("fill_dynamic", lambda v, x: rt.fill(rt.shape(x), v) * x, [np.float64(1.5), X23],
     [rt.TensorSpec([], rt.float64), rt.TensorSpec([None, 3], rt.float64)]),
    ("where", lambda x, y: rt.where(X34 > 0, x, y), [_random(3, 1), np.float64(2.0)], None),
    ("where_broadcast_condition", lambda x, y: rt.where(np.array([True, False, True]), x, y),
     [X23, X23 + 1], UNKNOWN_ROWS_2),
    ("clip_by_value", lambda t, lo, hi: rt.clip_by_value(t, lo, hi),
     [np.linspace(-3, 3, 12).reshape(3, 4) + 0.1, np.array([[-1.0], [0.0], [-2.0]]),
      np.float64(1.3)], None),
    ("clip_by_value_numbers", lambda t: rt.clip_by_value(t, -0.5, 0.5), [X23], UNKNOWN_ROWS),
    ("identity", lambda x: rt.identity(x) * x, [X23], UNKNOWN_ROWS),
    ("cast_through_complex", lambda x: rt.cast(rt.cast(x, rt.complex128) * (2 + 1j), rt.float64),
     [X23], UNKNOWN_ROWS),
    ("broadcast_to", lambda x: broadcast_to(x, [4, 2, 3]), [_random(2, 1)], None),
    ("broadcast_to_dynamic", lambda x: broadcast_to(x[:1], rt.shape(x)) * x, [X23], UNKNOWN_ROWS),
]

CASE_IDS = [case[0] for case in CASES]


@pytest.mark.parametrize("name, fn, arrays, signature", CASES, ids=CASE_IDS)
def test_gradient_matches_finite_differences(name, fn, arrays, signature):
    check_gradients(fn, *arrays)
    if signature is not None:
        check_gradients(fn, *arrays, signature=signature)


@pytest.mark.parametrize("name, fn, arrays, signature", CASES, ids=CASE_IDS)
def test_float32_inputs_give_float32_gradients(name, fn, arrays, signature):
    narrow = [np.asarray(a, np.float32) for a in arrays]
    wide = [np.asarray(a) for a in arrays]
    y = value_of(fn, wide)
    seed = _random(*y.shape)
    expected = tape_gradients(fn, [rt.constant(a) for a in wide], range(len(wide)), seed)
    got = tape_gradients(fn, [rt.constant(a) for a in narrow], range(len(narrow)),
                         seed.astype(np.float32))
    for e, g in zip(expected, got):
        assert g.dtype == np.float32
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-4, atol=1e-4)


INTEGER_CASES = [
    ("reshape", lambda x: rt.reshape(x, [-1])),
    ("transpose", lambda x: rt.transpose(x)),
    ("concat", lambda x: rt.concat([x, x], 0)),
    ("stack", lambda x: rt.stack([x, x])),
    ("unstack", lambda x: rt.unstack(x)[0]),
    ("gather", lambda x: rt.gather(x, [1, 1])),
    ("getitem", lambda x: x[::-1, 1]),
    ("expand_dims", lambda x: rt.expand_dims(x, 0)),
    ("identity", lambda x: rt.identity(x)),
    ("where", lambda x: rt.where(x > 2, x, 0)),
]


@pytest.mark.parametrize("name, fn", INTEGER_CASES, ids=[c[0] for c in INTEGER_CASES])
def test_integer_inputs_get_no_gradient(name, fn):
    x = rt.constant(np.arange(6, dtype=np.int32).reshape(2, 3))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    assert tape.gradient(y, x) is None


# -- rules with something particular to check ------------------------------------------------


def test_unstack_keeps_inf_and_nan_of_dy_in_their_own_piece():
    x = rt.constant(X23)
    grads = gradient_of(lambda v: rt.unstack(v)[0], x, seed=np.array([np.inf, np.nan, 1.0]))
    expected = np.array([[np.inf, np.nan, 1.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(grads[0].numpy(), expected)


def test_where_keeps_inf_of_dy_out_of_the_branch_not_taken():
    x, y = rt.constant(X23), rt.constant(X23)
    condition = np.array([[True, False, True], [False, False, True]])
    dx, dy = gradient_of(lambda a, b: rt.where(condition, a, b), x, y,
                         seed=np.full((2, 3), np.inf))
    np.testing.assert_array_equal(dx.numpy(), np.where(condition, np.inf, 0.0))
    np.testing.assert_array_equal(dy.numpy(), np.where(condition, 0.0, np.inf))


def test_where_condition_gets_no_gradient():
    c = rt.constant(X23)
    with rt.GradientTape() as tape:
        tape.watch(c)
        y = rt.where(rt.cast(c, rt.bool), 1.0, 2.0)
    with pytest.warns(GradientWarning, match="passes where"):
        assert tape.gradient(y, c) is None


def test_clip_by_value_ties_follow_tensorflow():
    """At t == lo or t == hi the gradient goes to t, as in TensorFlow; past them to the bound."""
    t = rt.constant(np.array([-1.0, 0.0, 0.5, 1.0, 2.0]))
    lo, hi = rt.constant(np.float64(0.0)), rt.constant(np.float64(1.0))
    dt, dlo, dhi = gradient_of(lambda a, b, c: rt.clip_by_value(a, b, c), t, lo, hi,
                               seed=np.array([1.0, 2.0, 4.0, 8.0, 16.0]))
    np.testing.assert_array_equal(dt.numpy(), [0.0, 2.0, 4.0, 8.0, 0.0])
    assert float(dlo) == 1.0 and float(dhi) == 16.0


def test_clip_by_value_nan_gets_no_gradient():
    t = rt.constant(np.array([np.nan, 0.5]))
    (dt,) = gradient_of(lambda a: rt.clip_by_value(a, 0.0, 1.0), t)
    np.testing.assert_array_equal(dt.numpy(), [0.0, 1.0])


def test_fill_gradient_is_the_sum_of_dy():
    v = rt.constant(np.float64(2.0))
    (dv,) = gradient_of(lambda a: rt.fill([2, 2], a), v, seed=np.array([[1.0, 2.0], [3.0, 4.0]]))
    assert dv.shape == () and float(dv) == 10.0


@pytest.mark.parametrize("dtype", [rt.int32, rt.bool])
def test_cast_through_integers_carries_no_gradient(dtype):
    x = rt.constant(X23)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(rt.cast(x, dtype), rt.float64)
    with pytest.warns(GradientWarning):
        assert tape.gradient(y, x) is None


def test_cast_between_float_widths_casts_the_gradient_back():
    x = rt.constant(X23.astype(np.float32))
    (dx,) = gradient_of(lambda a: rt.cast(a, rt.float64) * 3.0, x)
    assert dx.dtype == np.float32
    np.testing.assert_array_equal(dx.numpy(), np.full((2, 3), 3.0, np.float32))


def test_cast_to_complex_gives_the_real_part_of_dy_quietly():
    x = rt.constant(X23)
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(x, rt.complex128)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning from the cast back
        dx = tape.gradient(y, x, output_gradients=np.full((2, 3), 2.0 - 5.0j))
    assert dx.dtype == np.float64
    np.testing.assert_array_equal(dx.numpy(), np.full((2, 3), 2.0))


def test_checked_cast_carries_no_gradient():
    from runtime.ops.array_ops import checked_cast
    x = rt.constant(np.array([1.0, 2.0]))
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.cast(checked_cast(x, rt.int64), rt.float64)
    with pytest.warns(GradientWarning):
        assert tape.gradient(y, x) is None


def test_shape_queries_carry_no_gradient_in_graphs():
    @rt.function(input_signature=UNKNOWN_ROWS)
    def f(x):
        with rt.GradientTape(persistent=True) as tape:
            tape.watch(x)
            outs = [rt.cast(rt.shape(x), rt.float64), rt.cast(rt.size(x), rt.float64),
                    rt.cast(rt.where(x), rt.float64), rt.range(0.0, x[0, 0], 1.0)]
        return [tape.gradient(out, x, unconnected_gradients="zero") for out in outs]

    with pytest.warns(GradientWarning):
        grads = f(rt.constant(X23 + 5.0))
    for grad in grads:
        np.testing.assert_array_equal(grad.numpy(), np.zeros((2, 3)))


def test_eye_rank_and_range_are_not_differentiable():
    from runtime.ops.registry import NOT_DIFFERENTIABLE, get_op
    for name in ("eye", "range", "shape", "size", "rank", "argwhere", "checked_cast",
                 "tensor_array_new"):
        assert get_op(name).gradient is NOT_DIFFERENTIABLE, name


def test_sum_to_shape_with_shapes_known_at_run_time():
    """Traced with unknown dims, sum_to_shape is its own op, whose gradient is broadcast_to.
    (Eagerly it is a reduce_sum, whose rule is tested with the reductions.)"""
    def fn(x, like):
        return sum_to_shape(x * x, like) * like

    arrays = [X23, _random(1, 3)]
    seed = _random(1, 3)
    unknown = [rt.TensorSpec([None, 3], rt.float64)] * 2
    grads = graph_gradients(fn, arrays, [0, 1], seed, unknown)
    for i, grad in enumerate(grads):
        np.testing.assert_allclose(grad.numpy(), numeric_gradient(fn, arrays, i, seed),
                                   rtol=1e-6, atol=1e-6)


def test_stack_of_a_list_given_as_an_op_input_is_differentiated():
    """An op's input written as a list of tensors becomes a stack node (auto-packing)."""
    a, b = rt.constant(np.float64(2.0)), rt.constant(np.float64(3.0))
    da, db = gradient_of(lambda x, y: rt.multiply([x, y], [10.0, 100.0]), a, b)
    assert float(da) == 10.0 and float(db) == 100.0


def test_second_order_through_concat_and_unstack():
    x = rt.constant(np.array([1.0, 2.0, 3.0]))
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            pieces = rt.unstack(rt.concat([x * x, x], 0))
            y = pieces[1] * pieces[4]  # x1**2 * x1
        g = inner.gradient(y, x)     # [0, 3 * x1**2, 0]
    gg = outer.gradient(g, x, output_gradients=np.array([0.0, 1.0, 0.0]))
    np.testing.assert_allclose(g.numpy(), [0.0, 12.0, 0.0])
    np.testing.assert_allclose(gg.numpy(), [0.0, 12.0, 0.0])  # 6 * x1


def test_graph_gradients_keep_the_known_dimensions():
    @rt.function(input_signature=UNKNOWN_ROWS)
    def f(x):
        with rt.GradientTape() as tape:
            tape.watch(x)
            y = rt.reshape(rt.transpose(x), [-1])
        return tape.gradient(y, x)

    graph = f.get_concrete_function().graph
    assert graph.outputs[0].shape == (None, 3)
