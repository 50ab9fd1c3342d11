"""Property tests: random chains of elementwise and reduction ops on random small arrays give the
same result eagerly and inside ``rt.function`` (values, dtypes and shapes), and the shapes and
dtypes inferred while tracing describe what the plan really produces."""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.errors import RetracingWarning

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")

DTYPES = [np.dtype(d) for d in ("float16", "float32", "float64", "int8", "uint8", "int32", "int64",
                                 "bool")]

SETTINGS = settings(max_examples=250, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _elements(dtype):
    if dtype.kind == "b":
        return st.booleans()
    if dtype.kind in "iu":
        return st.integers(0 if dtype.kind == "u" else -20, 20)
    return st.floats(-20, 20, width=dtype.itemsize * 8)


@st.composite
def arrays(draw):
    dtype = draw(st.sampled_from(DTYPES))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    return draw(hnp.arrays(dtype, shape, elements=_elements(dtype)))


def _numeric(x):
    """Bools become int32 so arithmetic is defined."""
    return rt.cast(x, rt.int32) if x.dtype == rt.bool else x


def _axis(x, choice):
    return None if not x.ndim else choice % x.ndim


# Each step: (name, function(tensor, axis choice) -> tensor). Integer overflow wraps the same way
# in both modes, so no step needs to avoid it.
STEPS = [
    ("negative", lambda x, a: -_numeric(x)),
    ("abs", lambda x, a: abs(_numeric(x))),
    ("square", lambda x, a: rt.square(_numeric(x))),
    ("sign", lambda x, a: rt.sign(_numeric(x))),
    ("add_int", lambda x, a: _numeric(x) + 3),
    ("mul_float", lambda x, a: _numeric(x) * 0.5),
    ("rsub", lambda x, a: 2 - _numeric(x)),
    ("self_mul", lambda x, a: x * x if x.dtype != rt.bool else x & x),
    ("floordiv", lambda x, a: _numeric(x) // 3),
    ("divide", lambda x, a: _numeric(x) / 4),
    ("pow", lambda x, a: _numeric(x) ** 2),
    ("self_divide", lambda x, a: rt.divide(_numeric(x), abs(_numeric(x)) + 1)),
    ("mod", lambda x, a: _numeric(x) % 4),
    ("maximum", lambda x, a: rt.maximum(_numeric(x), 1)),
    ("minimum_self", lambda x, a: rt.minimum(x, x * 2) if x.dtype != rt.bool else x),
    ("tanh", lambda x, a: rt.tanh(rt.cast(x, rt.float32))),
    ("exp_clip", lambda x, a: rt.exp(rt.clip_by_value(rt.cast(x, rt.float64), -5.0, 5.0))),
    ("greater", lambda x, a: _numeric(x) > 1),
    ("not_equal", lambda x, a: rt.not_equal(x, x * 0) if x.dtype != rt.bool else ~x),
    ("logical_not", lambda x, a: rt.logical_not(rt.cast(x, rt.bool))),
    ("where", lambda x, a: rt.where(_numeric(x) > 0, x, x * 0) if x.dtype != rt.bool else x),
    ("to_float64", lambda x, a: rt.cast(x, rt.float64)),
    ("to_int32", lambda x, a: rt.cast(rt.clip_by_value(rt.cast(x, rt.float64), -1e3, 1e3),
                                      rt.int32)),
    ("reduce_sum", lambda x, a: rt.reduce_sum(_numeric(x), axis=_axis(x, a))),
    ("reduce_max", lambda x, a: rt.reduce_max(x, axis=_axis(x, a), keepdims=True)),
    ("reduce_min", lambda x, a: rt.reduce_min(x, axis=_axis(x, a))),
    ("reduce_mean", lambda x, a: rt.reduce_mean(_numeric(x), axis=_axis(x, a))),
    ("reduce_prod", lambda x, a: rt.reduce_prod(rt.clip_by_value(_numeric(x), 0, 2),
                                                axis=_axis(x, a))),
    ("reduce_any", lambda x, a: rt.reduce_any(rt.cast(x, rt.bool), axis=_axis(x, a))),
    ("reduce_all", lambda x, a: rt.reduce_all(rt.cast(x, rt.bool))),
    ("argmax", lambda x, a: rt.argmax(x, axis=_axis(x, a)) if x.ndim else x),
]

chains = st.lists(st.tuples(st.sampled_from(range(len(STEPS))), st.integers(0, 2)),
                  min_size=1, max_size=6)


def _run_chain(chain, x):
    for index, axis_choice in chain:
        x = STEPS[index][1](x, axis_choice)
    return x


def _assert_identical(eager, graph, chain):
    names = [STEPS[i][0] for i, _ in chain]
    a, b = eager.numpy(), graph.numpy()
    assert a.dtype == b.dtype, (names, a.dtype, b.dtype)
    assert a.shape == b.shape, (names, a.shape, b.shape)
    np.testing.assert_array_equal(a, b, err_msg=str(names))


@SETTINGS
@given(array=arrays(), chain=chains)
def test_chains_run_the_same_eagerly_and_in_a_graph(array, chain):
    with np.errstate(all="ignore"):
        eager = _run_chain(chain, rt.constant(array))
        traced = rt.function(lambda x: _run_chain(chain, x))
        concrete = traced.get_concrete_function(rt.constant(array))
        graph = traced(rt.constant(array))
    _assert_identical(eager, graph, chain)
    (static,) = concrete.graph.outputs
    assert static.dtype == eager.dtype and static.shape == eager.shape


@SETTINGS
@given(array=arrays(), chain=chains, data=st.data())
def test_chains_on_partially_known_shapes(array, chain, data):
    """Traced with some dimensions unknown, the graph still computes the eager result, and its
    inferred types are never wrong (unknown is fine, a different size is not)."""
    hidden = [data.draw(st.booleans()) for _ in array.shape]
    spec = rt.TensorSpec([None if h else d for h, d in zip(hidden, array.shape)], array.dtype)
    with np.errstate(all="ignore"):
        eager = _run_chain(chain, rt.constant(array))
        traced = rt.function(lambda x: _run_chain(chain, x))
        concrete = traced.get_concrete_function(spec)
        graph = concrete(rt.constant(array))
    _assert_identical(eager, graph, chain)
    (static,) = concrete.graph.outputs
    assert static.dtype == eager.dtype
    assert static.shape is None or (
        len(static.shape) == eager.ndim
        and all(s is None or s == d for s, d in zip(static.shape, eager.shape)))


@SETTINGS
@given(array=arrays())
def test_binary_ops_with_weak_scalars_match_numpy(array):
    """``tensor op python_scalar`` follows NumPy 2's weak-scalar rules, eagerly and traced."""
    if array.dtype == np.bool_:
        array = array.astype(np.int32)
    scalar = 2.5 if array.dtype.kind == "f" else 3
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RetracingWarning)
        for op in (np.add, np.multiply, np.subtract, np.maximum):
            expected = op(array, scalar)
            eager = getattr(rt, op.__name__)(rt.constant(array), scalar)
            graph = rt.function(lambda x: getattr(rt, op.__name__)(x, scalar))(rt.constant(array))
            for result in (eager, graph):
                assert result.dtype == expected.dtype
                np.testing.assert_array_equal(result.numpy(), expected)
