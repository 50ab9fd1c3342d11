"""Gradients of the elementwise math, reduction and matmul ops, through ``rt.GradientTape``.

Each rule is checked three ways that must agree: the tape's gradient eagerly, the same
computation traced by ``rt.function``, and central finite differences in float64. Every output
element gets a random weight (``output_gradients``), so a rule that mixes up elements cannot
pass by symmetry. Then TensorFlow's conventions at ties and zeros, dtypes, second derivatives,
and random chains of ops (hypothesis).
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.errors import GradientError, GradientWarning
from runtime.ops import linalg_ops, math_ops, nn_ops, random_ops, reduce_ops
from runtime.ops.registry import NOT_DIFFERENTIABLE, OpDef
from tests.runtime.gradient_helpers import EPS, numeric_gradient, tape_gradients, value_of

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")

RNG = np.random.default_rng(20261123)


def _random(*shape, low=-2.0, high=2.0):
    return RNG.uniform(low, high, shape)


# -- the three-way check ----------------------------------------------------------------------








# rt.function takes an input_signature for positional parameters only (not *args).
_POSITIONAL = {1: lambda body: lambda a: body(a), 2: lambda body: lambda a, b: body(a, b),
               3: lambda body: lambda a, b, c: body(a, b, c)}


def graph_gradients(fn, arrays, wrt, seed, signature=None) -> list:
    """``tape_gradients`` inside a function traced by ``rt.function``."""
    traced = _POSITIONAL[len(arrays)](lambda *tensors: tape_gradients(fn, list(tensors), wrt, seed))
    return rt.function(traced, input_signature=signature)(*[rt.constant(a) for a in arrays])


def check_gradients(fn, *arrays, wrt=None, signature=None, rtol=1e-6, atol=1e-6) -> list:
    """Eager tape, traced tape and finite differences agree for the inputs ``wrt`` (default:
    every float input); each gradient has its source's dtype and shape. Returns the eager
    gradients."""
    arrays = [np.asarray(a) for a in arrays]
    wrt = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"] if wrt is None else wrt
    y = value_of(fn, arrays)
    seed = RNG.uniform(0.5, 1.5, y.shape).astype(y.dtype)
    eager = tape_gradients(fn, [rt.constant(a) for a in arrays], wrt, seed)
    graph = graph_gradients(fn, arrays, wrt, seed, signature)
    for i, e, g in zip(wrt, eager, graph):
        assert e is not None and g is not None, f"no gradient for input {i}"
        assert e.dtype == g.dtype == arrays[i].dtype, (e.dtype, g.dtype, arrays[i].dtype)
        assert e.shape == g.shape == arrays[i].shape, (e.shape, g.shape, arrays[i].shape)
        np.testing.assert_array_equal(g.numpy(), e.numpy())
        if arrays[i].dtype == np.float64:
            expected = numeric_gradient(fn, arrays, i, seed)
            np.testing.assert_allclose(e.numpy(), expected, rtol=rtol, atol=atol)
    return eager


def gradient(fn, *values):
    """The eager gradient of ``fn`` (its output summed) with respect to each value."""
    tensors = [rt.constant(v) for v in values]
    with rt.GradientTape() as tape:
        tape.watch(tensors)
        y = fn(*tensors)
    grads = tape.gradient(y, tensors)
    return [None if g is None else g.numpy() for g in grads]


def graph_gradient(fn, *values):
    """``gradient`` inside ``rt.function``."""
    def traced(*tensors):
        with rt.GradientTape() as tape:
            tape.watch(list(tensors))
            y = fn(*tensors)
        return tape.gradient(y, list(tensors))
    grads = rt.function(traced)(*[rt.constant(v) for v in values])
    return [None if g is None else g.numpy() for g in grads]


# -- elementwise ops --------------------------------------------------------------------------

POSITIVE = _random(2, 3, low=0.3, high=2.0)
AWAY_FROM_ZERO = np.array([[-1.5, -0.4, 0.3], [0.7, -2.0, 1.1]])

UNARY = [
    ("negative", rt.negative, AWAY_FROM_ZERO),
    ("abs", rt.abs, AWAY_FROM_ZERO),
    ("exp", rt.exp, _random(2, 3)),
    ("log", rt.log, POSITIVE),
    ("log1p", rt.log1p, _random(2, 3, low=-0.5)),
    ("sqrt", rt.sqrt, POSITIVE),
    ("square", rt.square, _random(2, 3)),
    ("sin", rt.sin, _random(2, 3)),
    ("cos", rt.cos, _random(2, 3)),
    ("tan", rt.tan, _random(2, 3, low=-1.2, high=1.2)),
    ("tanh", rt.tanh, _random(2, 3)),
    ("sigmoid", rt.sigmoid, _random(2, 3, low=-6, high=6)),
    ("neg_operator", lambda x: -x, _random(3)),
    ("abs_operator", lambda x: abs(x), AWAY_FROM_ZERO),
    ("pow_operator", lambda x: x ** 3, _random(2, 3)),
    ("rpow_operator", lambda x: 2.0 ** x, _random(2, 3)),
    ("scalar", lambda x: rt.exp(x) * 3.0, np.array(0.7)),
]


@pytest.mark.parametrize("name, fn, x", UNARY, ids=[u[0] for u in UNARY])
def test_unary_gradient_matches_finite_differences(name, fn, x):
    check_gradients(fn, x)


def test_sign_has_a_zero_gradient_not_none():
    assert gradient(rt.sign, [-2.0, 0.0, 3.0])[0].tolist() == [0.0, 0.0, 0.0]
    assert graph_gradient(rt.sign, [-2.0, 0.0, 3.0])[0].tolist() == [0.0, 0.0, 0.0]


def test_positive_passes_the_gradient_through():
    x = rt.constant([1.0, -2.0])
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = rt.multiply(math_ops.apply_op(math_ops.POSITIVE, (x,)), [3.0, 4.0])
    assert tape.gradient(y, x).numpy().tolist() == [3.0, 4.0]


# Shapes that broadcast both ways, with size-1 axes (the keepdims shapes of a reduction).
BROADCAST_SHAPES = [((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)),
                    ((4, 1, 3), (2, 1))]

BINARY = [
    ("add", rt.add, None),
    ("subtract", rt.subtract, None),
    ("multiply", rt.multiply, None),
    ("divide", rt.divide, "positive_y"),
    ("pow", rt.pow, "positive_x"),
    ("maximum", rt.maximum, None),
    ("minimum", rt.minimum, None),
    ("mod", rt.mod, "positive_y"),
    ("truediv_operator", lambda x, y: x / y, "positive_y"),
    ("mod_operator", lambda x, y: x % y, "positive_y"),
]


def _binary_inputs(shapes, domain):
    x, y = _random(*shapes[0]), _random(*shapes[1])
    if domain == "positive_x":
        x = np.abs(x) + 0.5
    if domain == "positive_y":
        y = np.abs(y) + 0.5
    return x, y


@pytest.mark.parametrize("shapes", BROADCAST_SHAPES, ids=str)
@pytest.mark.parametrize("name, fn, domain", BINARY, ids=[b[0] for b in BINARY])
def test_binary_gradient_matches_finite_differences(name, fn, domain, shapes):
    x, y = _binary_inputs(shapes, domain)
    if name in ("maximum", "minimum"):  # tenths + 0.01 vs + 0.05: never within 0.04 of a tie
        x, y = np.round(x, 1) + 0.01, np.round(y, 1) + 0.05
    if name.startswith("mod"):  # keep x / y away from an integer, where floor jumps
        ratio = np.broadcast_to(x, np.broadcast_shapes(x.shape, y.shape)) / y
        if np.any(np.abs(ratio - np.round(ratio)) < 1e-3):
            pytest.skip("an input lands on a jump of floor(x / y)")
    check_gradients(fn, x, y)


def test_binary_gradients_with_unknown_dimensions():
    """Broadcasting against a dimension unknown while tracing (the sums happen at run time)."""
    x, y = _random(4, 3), _random(3)
    spec = [rt.TensorSpec((None, 3), rt.float64), rt.TensorSpec((None,), rt.float64)]
    for fn in (rt.multiply, rt.divide, rt.maximum, lambda a, b: rt.pow(rt.abs(a) + 1.0, b)):
        check_gradients(fn, x, np.abs(y) + 0.5, signature=spec)


@pytest.mark.parametrize("name, fn", [("floordiv", rt.floordiv),
                                      ("floor", lambda x, y: rt.floor(x * y)),
                                      ("ceil", lambda x, y: rt.ceil(x * y)),
                                      ("round", lambda x, y: rt.round(x * y))])
def test_piecewise_constant_ops_give_none_as_tensorflow(name, fn):
    with pytest.warns(GradientWarning, match="carries no gradient"):
        grads = gradient(fn, [1.5, 2.5], [2.0, 3.0])
    assert grads == [None, None]


def test_python_number_operands_compute_in_the_ops_dtype():
    """An eager op records the Python number it was given: the rule must turn it into a
    tensor of the op's dtype (float64 here), not of Python's default float32."""
    w = np.array([0.3, 1.7])
    (g,) = gradient(lambda w: 0.1 ** w, w)
    np.testing.assert_allclose(g, 0.1 ** w * np.log(0.1), rtol=1e-15)
    (g,) = gradient(lambda w: rt.divide(0.1, w), w)
    np.testing.assert_allclose(g, -0.1 / w / w, rtol=1e-15)
    (g,) = gradient(lambda w: rt.maximum(w, np.array([0.5, 0.5])), w)
    assert g.tolist() == [0.0, 1.0]


def test_a_watched_constant_in_a_trace_gets_the_gradient_of_every_operand_position():
    """Inside a trace a watched eager tensor is a const node: the rules must not take a
    constant for something no gradient can reach."""
    def fn(x):
        c = rt.constant(2.0)
        with rt.GradientTape() as tape:
            tape.watch(c)
            y = (rt.pow(x, c) + rt.pow(c, x) + x / c + rt.mod(x, c) + rt.maximum(x, c)
                 + rt.matmul([[x]], [[c]])[0, 0])
        return tape.gradient(y, c)

    x = 3.0
    expected = np.log(3.0) * 9 + 3 * 2 ** 2 - 3 / 4 - np.floor(3 / 2) + 0 + 3
    np.testing.assert_allclose(fn(rt.constant(x)).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(rt.function(fn)(rt.constant(x)).numpy(), expected, rtol=1e-6)


# -- TensorFlow's conventions at ties and zeros -----------------------------------------------


def test_maximum_and_minimum_give_a_tie_to_x():
    for run in (gradient, graph_gradient):
        assert [g.tolist() for g in run(rt.maximum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])] == \
            [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        assert [g.tolist() for g in run(rt.minimum, [1.0, 2.0, 3.0], [1.0, 1.0, 4.0])] == \
            [[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]


def test_abs_relu_and_sqrt_at_zero():
    for run in (gradient, graph_gradient):
        assert run(rt.abs, [-1.0, 0.0, 2.0])[0].tolist() == [-1.0, 0.0, 1.0]
        assert run(rt.nn.relu, [-1.0, 0.0, 2.0])[0].tolist() == [0.0, 0.0, 1.0]
        with np.errstate(divide="ignore"):
            assert run(rt.sqrt, [0.0, 4.0])[0].tolist() == [np.inf, 0.25]


def test_pow_at_zero_base_has_no_false_singularity():
    """d(x**y)/dy is x**y * log(x), taken as 0 for x <= 0 (TensorFlow's mask), so a zero base
    gives no NaN; d/dx follows y * x**(y - 1) (0**0 = 1)."""
    for run in (gradient, graph_gradient):
        gx, gy = run(rt.pow, [0.0, 0.0, 0.0, -2.0], [2.0, 1.0, 3.0, 2.0])
        assert gx.tolist() == [0.0, 1.0, 0.0, -4.0]
        assert gy.tolist() == [0.0, 0.0, 0.0, 0.0]


def test_pow_gradient_of_the_exponent_is_finite_for_a_zero_base_second_order():
    x, y = rt.constant([0.0, 2.0]), rt.constant([2.0, 2.0])
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(y)
            z = rt.pow(x, y)
        gy = inner.gradient(z, y)
    second = outer.gradient(gy, x).numpy()
    assert np.all(np.isfinite(second))
    np.testing.assert_allclose(second[1], 2.0 * (2 * np.log(2.0) + 1))  # d/dx (x^2 log x)


# -- reductions -------------------------------------------------------------------------------

REDUCTIONS = [
    ("reduce_sum", rt.reduce_sum),
    ("reduce_mean", rt.reduce_mean),
    ("reduce_max", rt.reduce_max),
    ("reduce_min", rt.reduce_min),
    ("reduce_prod", rt.reduce_prod),
    ("reduce_logsumexp", rt.reduce_logsumexp),
]
AXES = [None, 0, 1, -1, (0, 2), (-1, 0, 1), ()]


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("axis", AXES, ids=str)
@pytest.mark.parametrize("name, reduce", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction_gradient_matches_finite_differences(name, reduce, axis, keepdims):
    x = RNG.permutation(24).reshape(2, 3, 4) / 10.0 - 1.0  # distinct: no ties for max and min
    check_gradients(lambda t: reduce(t, axis=axis, keepdims=keepdims), x)


@pytest.mark.parametrize("signature", [(None, 3, None), (None, None, None), None], ids=str)
@pytest.mark.parametrize("name, reduce", REDUCTIONS, ids=[r[0] for r in REDUCTIONS])
def test_reduction_gradient_with_unknown_shapes(name, reduce, signature):
    x = RNG.permutation(24).reshape(2, 3, 4) / 10.0 - 1.0
    spec = [rt.TensorSpec(signature, rt.float64)]
    for axis, keepdims in [(None, False), (1, False), ((0, 2), True), ((0, 2), False)]:
        check_gradients(lambda t: reduce(t, axis=axis, keepdims=keepdims), x, signature=spec)


def test_reduce_max_and_min_split_the_gradient_among_ties():
    x = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    for run in (gradient, graph_gradient):
        assert run(lambda t: rt.reduce_max(t, axis=1), x)[0].tolist() == \
            [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]]
        assert run(rt.reduce_max, x)[0].tolist() == [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]
        assert run(lambda t: rt.reduce_min(t, axis=0, keepdims=True), x)[0].tolist() == \
            [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]


def test_reduce_prod_with_zeros_is_exact():
    """The product of the other elements, without dividing by the element (TensorFlow's
    exclusive cumulative products): one zero gets the product of the rest, two zeros give
    zeros everywhere."""
    x = [[2.0, 0.0, 3.0], [0.0, 5.0, 0.0], [1.5, 2.0, 4.0]]
    for run in (gradient, graph_gradient):
        assert run(lambda t: rt.reduce_prod(t, axis=1), x)[0].tolist() == \
            [[0.0, 6.0, 0.0], [0.0, 0.0, 0.0], [8.0, 6.0, 3.0]]
        assert run(lambda t: rt.reduce_prod(t, axis=0), x)[0].tolist() == \
            [[0.0, 10.0, 0.0], [3.0, 0.0, 12.0], [0.0, 0.0, 0.0]]
    check_gradients(lambda t: rt.reduce_prod(t, axis=1), np.array(x))


def _hessian_vector_product(fn, x, v):
    """``H v`` for the Hessian of ``sum(fn(x))``, by nested tapes."""
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x, output_gradients=v)


@pytest.mark.parametrize("axis", [None, 1, (0, 2)], ids=str)
def test_reduce_prod_second_derivative_matches_finite_differences(axis):
    """The gradient of the products of others is exact at zeros too (no division)."""
    x = np.round(_random(2, 3, 2), 1)
    x[0, 1, 0] = x[1, 0, 1] = x[1, 2, 1] = 0.0
    v = _random(*x.shape)

    def fn(t):
        return rt.reduce_prod(t, axis=axis)

    def grad(t):
        return gradient(fn, t)[0]

    expected = (grad(x + EPS * v) - grad(x - EPS * v)) / (2 * EPS)
    eager = _hessian_vector_product(fn, rt.constant(x), rt.constant(v)).numpy()
    traced = rt.function(lambda t, w: _hessian_vector_product(fn, t, w))(rt.constant(x),
                                                                        rt.constant(v))
    np.testing.assert_allclose(eager, expected, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(traced.numpy(), eager)


def test_reduce_prod_third_derivative_is_a_clear_error():
    x = rt.constant([2.0, 3.0, 4.0])
    with rt.GradientTape() as third:
        third.watch(x)
        with rt.GradientTape() as second:
            second.watch(x)
            with rt.GradientTape() as first:
                first.watch(x)
                y = rt.reduce_prod(x)
            g = first.gradient(y, x)
        h = second.gradient(g, x)
    np.testing.assert_allclose(h.numpy(), [7.0, 6.0, 5.0])
    with pytest.raises(GradientError, match="product_of_others_grad"):
        third.gradient(h, x)


def test_reduce_mean_of_an_empty_axis_has_an_empty_gradient_quietly():
    x = rt.constant(np.zeros((0, 3)))
    with rt.GradientTape() as tape:
        tape.watch(x)
        with warnings.catch_warnings(), np.errstate(invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "mean of empty slice"
            y = rt.reduce_mean(x, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tape.gradient(y, x).shape == (0, 3)


def test_reduce_logsumexp_values():
    x = np.array([[1000.0, 1000.0], [-1000.0, -1001.0], [0.5, -0.25]])
    expected = np.log(np.sum(np.exp(x - x.max(1, keepdims=True)), axis=1)) + x.max(1)
    np.testing.assert_allclose(rt.reduce_logsumexp(x, axis=1).numpy(), expected, rtol=1e-15)
    assert rt.reduce_logsumexp(x, axis=1, keepdims=True).shape == (3, 1)
    assert rt.reduce_logsumexp(np.float32([1, 2])).dtype == rt.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rt.reduce_logsumexp([-np.inf, -np.inf]).numpy() == -np.inf
        assert rt.reduce_logsumexp([np.inf, 1.0]).numpy() == np.inf
        (g,) = gradient(lambda t: rt.reduce_logsumexp(t, axis=1), x)
    np.testing.assert_allclose(g, [[0.5, 0.5], [1 / (1 + np.e ** -1), 1 / (1 + np.e)],
                                   [1 / (1 + np.exp(-0.75)), 1 / (1 + np.exp(0.75))]])
    with pytest.raises(TypeError, match="floating-point"):
        rt.reduce_logsumexp([1, 2])


def test_not_differentiable_reductions_give_none():
    x = rt.constant([1.0, 3.0, 2.0])
    with rt.GradientTape(persistent=True) as tape:
        tape.watch(x)
        results = [rt.cast(rt.argmax(x), rt.float64), rt.cast(rt.argmin(x), rt.float64),
                   rt.cast(rt.reduce_any(x > 1.0), rt.float64),
                   rt.cast(rt.reduce_all(x > 1.0), rt.float64)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GradientWarning)
        assert [tape.gradient(r, x) for r in results] == [None] * 4


# -- matmul -----------------------------------------------------------------------------------

MATMUL_SHAPES = [((3, 4), (4, 2)), ((4,), (4, 2)), ((3, 4), (4,)), ((4,), (4,)),
                 ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                 ((4,), (2, 4, 3)), ((2, 3, 4), (4,))]


@pytest.mark.parametrize("a_shape, b_shape", MATMUL_SHAPES, ids=str)
def test_matmul_gradient_matches_finite_differences(a_shape, b_shape):
    check_gradients(rt.matmul, _random(*a_shape), _random(*b_shape))


def test_matmul_gradient_with_unknown_batch_and_operator():
    a, b = _random(2, 3, 4), _random(4, 5)
    spec = [rt.TensorSpec((None, None, 4), rt.float64), rt.TensorSpec((4, None), rt.float64)]
    check_gradients(lambda x, y: x @ y, a, b, signature=spec)
    check_gradients(lambda x, y: rt.matmul(x, [[1.0], [2.0], [0.5], [-1.0]]) * y, a, _random(1))


# -- dtypes -----------------------------------------------------------------------------------


def test_gradients_keep_float32_and_float64():
    for dtype in (np.float32, np.float64):
        x, y = np.array([0.5, 1.5], dtype), np.array([[2.0], [3.0]], dtype)
        fns = [lambda a, b: a * 0.1 + b, lambda a, b: rt.pow(a, b) / b,
               lambda a, b: rt.reduce_mean(rt.exp(a) * b), lambda a, b: rt.sigmoid(a) - rt.tanh(b),
               lambda a, b: rt.reduce_logsumexp(a * b, axis=1)]
        for fn in fns:
            for run in (gradient, graph_gradient):
                grads = run(fn, x, y)
                assert [g.dtype for g in grads] == [dtype, dtype]


def test_integer_inputs_get_no_gradient():
    x, n = rt.constant([1.0, 2.0]), rt.constant([2, 3])
    with rt.GradientTape() as tape:
        tape.watch([x, n])
        y = rt.pow(x, n) + rt.cast(n, rt.float32) * x
    gx, gn = tape.gradient(y, [x, n])
    assert gn is None and gx.dtype == rt.float32
    np.testing.assert_allclose(gx.numpy(), [2.0 + 2.0, 12.0 + 3.0])


# -- second derivatives (nested tapes), eagerly and traced ------------------------------------

SECOND = [
    ("cube", lambda x: x * x * x, lambda x: 6 * x),
    ("pow", lambda x: rt.pow(x, 3.0), lambda x: 6 * x),
    ("exp", rt.exp, np.exp),
    ("log", rt.log, lambda x: -1 / x ** 2),
    ("sin", rt.sin, lambda x: -np.sin(x)),
    ("tanh", rt.tanh, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2)),
    ("sigmoid", rt.sigmoid,
     lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s) * (1 - 2 * s)),
    ("sqrt", rt.sqrt, lambda x: -0.25 * x ** -1.5),
    ("divide", lambda x: 1.0 / x, lambda x: 2 / x ** 3),
    ("softplus", rt.nn.softplus, lambda x: (s := 1 / (1 + np.exp(-x))) * (1 - s)),
]


def _second_derivative(fn, x):
    with rt.GradientTape() as outer:
        outer.watch(x)
        with rt.GradientTape() as inner:
            inner.watch(x)
            y = fn(x)
        g = inner.gradient(y, x)
    return outer.gradient(g, x)


@pytest.mark.parametrize("name, fn, expected", SECOND, ids=[s[0] for s in SECOND])
def test_second_derivatives(name, fn, expected):
    x = np.array([0.5, 1.3, 2.0])
    eager = _second_derivative(fn, rt.constant(x)).numpy()
    traced = rt.function(lambda t: _second_derivative(fn, t))(rt.constant(x)).numpy()
    np.testing.assert_allclose(eager, expected(x), rtol=1e-12)
    np.testing.assert_allclose(traced, eager, rtol=1e-13)


# -- every op of these modules has a rule -----------------------------------------------------

WITHOUT_RULE = {"product_of_others_grad"}  # test_reduce_prod_third_derivative_is_a_clear_error


@pytest.mark.parametrize("module", [math_ops, reduce_ops, linalg_ops, nn_ops, random_ops],
                         ids=lambda m: m.__name__)
def test_every_op_has_a_gradient_rule_or_is_marked_not_differentiable(module):
    ops = [v for v in vars(module).values() if isinstance(v, OpDef)]
    assert ops
    missing = [op.name for op in ops if op.gradient is None and op.name not in WITHOUT_RULE]
    assert missing == []
    assert random_ops.UNIFORM.gradient is NOT_DIFFERENTIABLE


def test_random_draws_carry_no_gradient():
    mean = rt.constant(1.0)
    with rt.GradientTape() as tape:
        tape.watch(mean)
        y = rt.random.normal([3], mean=mean, seed=1) + rt.random.uniform([3], minval=mean,
                                                                         maxval=2.0, seed=2)
    with pytest.warns(GradientWarning):
        assert tape.gradient(y, mean) is None


# -- kernel fixes found on the way ------------------------------------------------------------


def test_sigmoid_of_integers_is_a_float_not_a_truncated_integer():
    assert rt.sigmoid(rt.constant(1)).dtype == rt.float64
    np.testing.assert_allclose(rt.sigmoid(rt.constant([1, -1])).numpy(),
                               1 / (1 + np.exp([-1.0, 1.0])))
    assert rt.sigmoid(np.uint8(3)).numpy() > 0.9  # -x must not wrap around to 253
    assert rt.function(rt.sigmoid)(rt.constant(1)).dtype == rt.float64


def test_sigmoid_of_large_negative_values_is_zero_without_overflow_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert rt.sigmoid(rt.constant([-1000.0, 1000.0])).numpy().tolist() == [0.0, 1.0]
        assert rt.function(rt.sigmoid)(rt.constant([-1000.0])).numpy().tolist() == [0.0]
        assert gradient(rt.sigmoid, [-1000.0])[0].tolist() == [0.0]


# -- random chains of ops (hypothesis) --------------------------------------------------------

# Smooth everywhere on their inputs (no kinks or jumps for finite differences to trip on) and
# bounded, so chains stay in a range where float64 differences are accurate.
UNARY_STEPS = [
    ("sin", rt.sin), ("cos", rt.cos), ("tanh", rt.tanh), ("sigmoid", rt.sigmoid),
    ("softplus", rt.nn.softplus), ("negative", rt.negative),
    ("exp_tanh", lambda h: rt.exp(rt.tanh(h))),
    ("log_1_plus_square", lambda h: rt.log(1.0 + rt.square(h))),
    ("log1p_square", lambda h: rt.log1p(h * h)),
    ("sqrt_1_plus_square", lambda h: rt.sqrt(1.0 + h * h)),
    ("tan_half_tanh", lambda h: rt.tan(0.5 * rt.tanh(h))),
    ("cube", lambda h: h ** 3),
    ("sum_keepdims", lambda h: rt.reduce_sum(h, axis=-1, keepdims=True) if h.ndim else h),
    ("mean_axis0", lambda h: rt.reduce_mean(h, axis=0, keepdims=True) if h.ndim else h),
    ("logsumexp", lambda h: rt.reduce_logsumexp(h, axis=-1, keepdims=True) if h.ndim else h),
    ("prod_keepdims", lambda h: rt.reduce_prod(h, axis=0, keepdims=True) if h.ndim else h),
    ("softmax", lambda h: rt.nn.softmax(h) if h.ndim else h),
    ("log_softmax", lambda h: rt.nn.log_softmax(h, axis=0) if h.ndim else h),
]
BINARY_STEPS = [
    ("add", rt.add), ("subtract", lambda h, y: y - h), ("multiply", rt.multiply),
    ("divide", lambda h, y: h / (1.0 + y * y)), ("rdivide", lambda h, y: y / (1.0 + h * h)),
    ("pow", lambda h, y: rt.pow(1.0 + h * h, rt.sin(y))),
    ("rpow", lambda h, y: rt.pow(1.5 + rt.sin(y), rt.tanh(h))),
]


@st.composite
def chains(draw):
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3))
    # y broadcasts against x: a suffix of its shape, with some axes set to 1
    y_shape = tuple(d if draw(st.booleans()) else 1
                    for d in shape[draw(st.integers(0, len(shape))):])
    elements = st.floats(-2, 2, allow_nan=False, allow_subnormal=False)
    x = draw(hnp.arrays(np.float64, shape, elements=elements))
    y = draw(hnp.arrays(np.float64, y_shape, elements=elements))
    steps = draw(st.lists(st.one_of(st.sampled_from(UNARY_STEPS), st.sampled_from(BINARY_STEPS)),
                          min_size=1, max_size=5))
    # Traced with the shapes as given, or with every dimension unknown (the rank stays known).
    signature = None
    if draw(st.booleans()):
        signature = [rt.TensorSpec((None,) * x.ndim, rt.float64),
                     rt.TensorSpec((None,) * y.ndim, rt.float64)]
    return x, y, steps, signature


def _run_chain(steps):
    def fn(x, y):
        h = x
        for _, step in steps:
            h = step(h, y) if step.__code__.co_argcount == 2 else step(h)
        return h
    return fn


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(chains())
def test_random_chains_match_finite_differences_eagerly_and_traced(chain):
    x, y, steps, signature = chain
    fn = _run_chain(steps)
    value = value_of(fn, [x, y])
    scale = 1.0 + float(np.max(np.abs(value), initial=0.0))
    uses_y = any(step.__code__.co_argcount == 2 for _, step in steps)
    check_gradients(fn, x, y, wrt=[0, 1] if uses_y else [0], signature=signature, rtol=1e-5,
                    atol=1e-6 * scale)
