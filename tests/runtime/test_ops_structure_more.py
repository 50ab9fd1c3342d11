"""TensorFlow's full ``rt.linalg.diag``/``diag_part``/``set_diag`` (``k`` bands,
``num_rows``/``num_cols``, ``padding_value``, ``align``), ``rt.gather_nd`` with
``batch_dims``, and the gradient of a wide ``qr``.

Values are checked against NumPy expectations written here from TensorFlow's documented
definitions (these run everywhere) and, where TensorFlow is installed, against TensorFlow
itself; eagerly and in ``transpiler.function`` graphs (also with unknown dimensions);
gradients against central finite differences in float64; then constant folding, save/load
of the new attributes, and the errors.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import runtime as rt
import transpiler
from runtime.errors import GradientError, InvalidArgumentError, ShapeError
from runtime.serialize.attributes import check_attributes
from tests.runtime.graph_helpers import ops, traced
from tests.runtime.test_gradients_decompositions import _distinct, check_against_differences
from tests.runtime.test_gradients_math import check_gradients

pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")

RNG = np.random.default_rng(20261214)
ALIGNS = ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT")
X = np.arange(1, 13, dtype=np.int64).reshape(3, 4)


def _both(fn, *arrays):
    """``fn`` eagerly and in a ``transpiler.function`` graph, as NumPy arrays."""
    eager = fn(*[rt.constant(a) for a in arrays]).numpy()
    graph = transpiler.function(fn)(*[rt.constant(a) for a in arrays]).numpy()
    return eager, graph


def _check(fn, expected, *arrays):
    for value in _both(fn, *arrays):
        assert value.dtype == expected.dtype and value.shape == expected.shape
        np.testing.assert_array_equal(value, expected)


# -- NumPy expectations, from TensorFlow's documented definitions ----------------------------


def _band(k) -> tuple:
    return (k, k) if np.ndim(k) == 0 else tuple(k)


def _slots(rows, cols, k, width, align):
    """``(stack row, slot, matrix row, matrix column)`` of every element of the band ``k``:
    diagonal ``d`` is row ``high - d`` of the stack; it sits at the right end of its row when
    ``align`` says RIGHT for its side (the first word for ``d > 0``, the second for ``d < 0``,
    both for ``d = 0``)."""
    low, high = _band(k)
    above, below = align.split("_")
    for d in range(high, low - 1, -1):
        length = max(0, min(rows + min(d, 0), cols - max(d, 0)))
        right = above == "RIGHT" if d > 0 else below == "RIGHT" if d < 0 else align == "RIGHT_RIGHT"
        for t in range(length):
            yield high - d, t + (width - length if right else 0), t + max(-d, 0), t + max(d, 0)


def expected_diag_part(x, k=0, padding_value=0, align="RIGHT_LEFT"):
    low, high = _band(k)
    rows, cols = x.shape[-2:]
    width = max(0, min(rows + min(high, 0), cols - max(low, 0)))
    out = np.full(x.shape[:-2] + (high - low + 1, width), padding_value, x.dtype)
    for row, slot, i, j in _slots(rows, cols, k, width, align):
        out[..., row, slot] = x[..., i, j]
    return out[..., 0, :] if low == high else out


def expected_set_diag(x, diagonal, k=0, align="RIGHT_LEFT"):
    low, high = _band(k)
    stacked = diagonal[..., None, :] if low == high else diagonal
    out = x.copy()
    for row, slot, i, j in _slots(*x.shape[-2:], k, stacked.shape[-1], align):
        out[..., i, j] = stacked[..., row, slot]
    return out


def expected_diag(diagonal, k=0, rows=None, cols=None, padding_value=0, align="RIGHT_LEFT"):
    low, high = _band(k)
    width = diagonal.shape[-1]
    batch = diagonal.shape[:-1] if low == high else diagonal.shape[:-2]
    rows = width - min(high, 0) if rows is None else rows
    cols = width + max(low, 0) if cols is None else cols
    return expected_set_diag(np.full(batch + (rows, cols), padding_value, diagonal.dtype),
                             diagonal, k, align)


# -- diag_part, diag, set_diag: values -------------------------------------------------------


@pytest.mark.parametrize("kwargs, expected", [
    (dict(), [1, 6, 11]),
    (dict(k=1), [2, 7, 12]),
    (dict(k=-1), [5, 10]),
    (dict(k=3), [4]),
    (dict(k=(-1, 1)), [[2, 7, 12], [1, 6, 11], [5, 10, 0]]),
    (dict(k=(-1, 1), align="LEFT_RIGHT", padding_value=-1), [[2, 7, 12], [1, 6, 11], [-1, 5, 10]]),
    (dict(k=(1, 3)), [[0, 0, 4], [0, 3, 8], [2, 7, 12]]),
    (dict(k=(1, 3), align="LEFT_LEFT"), [[4, 0, 0], [3, 8, 0], [2, 7, 12]]),
    (dict(k=(-2, -1), align="RIGHT_RIGHT", padding_value=-1), [[5, 10], [-1, 9]]),
], ids=str)
def test_diag_part_by_hand(kwargs, expected):
    _check(lambda x: rt.linalg.diag_part(x, **kwargs), np.array(expected, np.int64), X)
    np.testing.assert_array_equal(expected_diag_part(X, **kwargs), expected)


@pytest.mark.parametrize("diagonal, kwargs, expected", [
    ([1, 2], dict(k=1), [[0, 1, 0], [0, 0, 2], [0, 0, 0]]),
    ([1, 2], dict(k=-1, num_cols=4), [[0, 0, 0, 0], [1, 0, 0, 0], [0, 2, 0, 0]]),
    ([1, 2], dict(k=1, num_rows=4), [[0, 1, 0], [0, 0, 2], [0, 0, 0], [0, 0, 0]]),
    ([1, 2], dict(padding_value=7), [[1, 7], [7, 2]]),
    ([[1, 2], [3, 4]], dict(k=(0, 1)), [[3, 2], [0, 4]]),
    ([[1, 2], [3, 4]], dict(k=(0, 1), align="LEFT_RIGHT"), [[3, 1], [0, 4]]),
    ([[1, 2], [3, 4], [5, 6]], dict(k=(-1, 1), num_rows=2), [[3, 2], [5, 4]]),
    ([[1, 2, 0], [3, 4, 5], [6, 7, 0]], dict(k=(-1, 1), align="LEFT_LEFT"),
     [[3, 1, 0], [6, 4, 2], [0, 7, 5]]),
], ids=str)
def test_diag_by_hand(diagonal, kwargs, expected):
    diagonal = np.array(diagonal, np.int64)
    _check(lambda d: rt.linalg.diag(d, **kwargs), np.array(expected, np.int64), diagonal)
    sizes = dict(rows=kwargs.get("num_rows"), cols=kwargs.get("num_cols"))
    rest = {key: v for key, v in kwargs.items() if key not in ("num_rows", "num_cols")}
    if sizes["rows"] is None and sizes["cols"] is None:  # square when neither is given
        low, high = _band(kwargs.get("k", 0))
        sizes["rows"] = sizes["cols"] = max(diagonal.shape[-1] - min(high, 0),
                                            diagonal.shape[-1] + max(low, 0))
    np.testing.assert_array_equal(expected_diag(diagonal, **sizes, **rest), expected)


def test_set_diag_by_hand():
    new = np.array([[7, 7, 7], [8, 8, 8]], np.int64)
    expected = np.array([[8, 7, 3, 4], [5, 8, 7, 8], [9, 10, 8, 7]], np.int64)
    _check(lambda x, d: rt.linalg.set_diag(x, d, k=(0, 1)), expected, X, new)
    np.testing.assert_array_equal(expected_set_diag(X, new, (0, 1)), expected)
    _check(lambda x: rt.linalg.set_diag(x, [0, 0, 0]), X * (1 - np.eye(3, 4, dtype=np.int64)), X)


@st.composite
def _band_cases(draw):
    batch = tuple(draw(st.lists(st.integers(0, 2), max_size=2)))
    rows, cols = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    low = draw(st.integers(1 - rows, cols - 1))
    high = draw(st.integers(low, cols - 1))
    k = low if low == high and draw(st.booleans()) else (low, high)
    dtype = draw(st.sampled_from([np.int64, np.float64, np.bool_]))
    return batch + (rows, cols), k, draw(st.sampled_from(ALIGNS)), np.dtype(dtype)


@settings(max_examples=40, deadline=None)
@given(_band_cases())
def test_diag_ops_match_numpy_expectations(case):
    shape, k, align, dtype = case
    x = RNG.integers(-5, 5, shape).astype(dtype)
    pad = dtype.type(1 if dtype == np.bool_ else 9)
    part = expected_diag_part(x, k, pad, align)
    _check(lambda t: rt.linalg.diag_part(t, k=k, padding_value=pad, align=align), part, x)
    diagonal = RNG.integers(-5, 5, expected_diag_part(x, k).shape).astype(dtype)
    _check(lambda t, d: rt.linalg.set_diag(t, d, k=k, align=align),
           expected_set_diag(x, diagonal, k, align), x, diagonal)
    rows, cols = shape[-2:]
    _check(lambda d: rt.linalg.diag(d, k=k, num_rows=rows, num_cols=cols, padding_value=pad,
                                    align=align),
           expected_diag(diagonal, k, rows, cols, pad, align), diagonal)
    if dtype != np.bool_:  # diag and diag_part are adjoint: <diag(d), y> = <d, diag_part(y)>
        y = RNG.integers(-5, 5, shape).astype(dtype)
        made = rt.linalg.diag(diagonal, k=k, num_rows=rows, num_cols=cols, align=align).numpy()
        read = rt.linalg.diag_part(y, k=k, align=align).numpy()
        assert np.sum(made * y) == np.sum(diagonal * read)


def test_diag_ops_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    worst = 0
    for rows, cols in [(3, 4), (4, 2), (1, 3), (3, 3)]:
        x = RNG.normal(size=(2, rows, cols))
        for low, high in itertools.combinations_with_replacement(range(1 - rows, cols), 2):
            align = ALIGNS[(low + high) % 4]
            k = low if low == high else (low, high)
            part = rt.linalg.diag_part(x, k=k, padding_value=0.5, align=align).numpy()
            reference = tf.linalg.diag_part(x, k=k, padding_value=0.5, align=align).numpy()
            worst = max(worst, np.abs(part - reference).max())
            for sizes in (dict(), dict(num_rows=rows), dict(num_cols=cols),
                          dict(num_rows=rows, num_cols=cols)):
                made = rt.linalg.diag(part, k=k, padding_value=-1.0, align=align, **sizes)
                reference = tf.linalg.diag(part, k=k, padding_value=-1.0, align=align, **sizes)
                assert made.shape == tuple(reference.shape)
                worst = max(worst, np.abs(made.numpy() - reference.numpy()).max())
            new = RNG.normal(size=part.shape)
            worst = max(worst, np.abs(rt.linalg.set_diag(x, new, k=k, align=align).numpy()
                                      - tf.linalg.set_diag(x, new, k=k, align=align).numpy()).max())
    assert worst == 0


# -- gradients -------------------------------------------------------------------------------


@pytest.mark.parametrize("k, align", [(0, "RIGHT_LEFT"), (1, "LEFT_RIGHT"), (-2, "RIGHT_LEFT"),
                                      ((-1, 2), "RIGHT_LEFT"), ((-2, 0), "LEFT_RIGHT"),
                                      ((1, 3), "RIGHT_RIGHT"), ((-2, -1), "LEFT_LEFT")], ids=str)
def test_diag_gradients_match_finite_differences(k, align):
    x = RNG.normal(size=(2, 3, 4))
    check_gradients(
        lambda t: rt.sin(rt.linalg.diag_part(t, k=k, padding_value=3.0, align=align)), x)
    diagonal = expected_diag_part(RNG.normal(size=(2, 3, 4)), k)
    check_gradients(lambda d: rt.linalg.diag(d, k=k, num_rows=3, num_cols=4, padding_value=2.0,
                                             align=align), diagonal)
    check_gradients(lambda t, d: rt.linalg.set_diag(t * t, rt.cos(d), k=k, align=align),
                    x, diagonal)


def test_diag_gradients_with_unknown_dimensions():
    """Without the matrix size while tracing, diag_part's gradient is set_diag on zeros."""
    x = RNG.normal(size=(2, 3, 4))
    signature = [rt.TensorSpec([None, None, None], rt.float64)]
    check_gradients(lambda t: rt.linalg.diag_part(t, k=(-1, 1), align="LEFT_RIGHT"), x,
                    signature=signature)
    check_gradients(lambda d: rt.linalg.diag(d, k=(0, 1)), RNG.normal(size=(2, 2, 3)),
                    signature=signature)
    check_gradients(lambda t: rt.linalg.set_diag(t, rt.linalg.diag_part(t, k=1) * 2.0, k=1), x,
                    signature=signature)


def test_diag_gradients_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x, seed = RNG.normal(size=(2, 4, 3)), RNG.normal(size=(2, 3, 3))
    for fn, tf_fn in [(rt.linalg.diag_part, tf.linalg.diag_part),
                      (rt.linalg.set_diag, tf.linalg.set_diag)]:
        args = (x,) if fn is rt.linalg.diag_part else (x, RNG.normal(size=(2, 3, 3)))
        variables = [tf.constant(a) for a in args]
        with tf.GradientTape() as tape:
            tape.watch(variables)
            out = tf_fn(*variables, k=(-2, 0), align="LEFT_RIGHT")
            loss = tf.reduce_sum(out * (seed if fn is rt.linalg.diag_part else x))
        expected = tape.gradient(loss, variables)
        tensors = [rt.constant(a) for a in args]
        with rt.GradientTape() as rt_tape:
            rt_tape.watch(tensors)
            out = fn(*tensors, k=(-2, 0), align="LEFT_RIGHT")
            loss = rt.reduce_sum(out * (seed if fn is rt.linalg.diag_part else x))
        for got, want in zip(rt_tape.gradient(loss, tensors), expected):
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=1e-15)


# -- graphs: unknown shapes, constant folding, save and load ---------------------------------


def test_diag_ops_with_unknown_dimensions_in_graphs():
    spec = rt.TensorSpec([None, None, None], rt.float64)
    x = RNG.normal(size=(2, 3, 4))
    part = transpiler.function(lambda t: rt.linalg.diag_part(t, k=(0, 2)), input_signature=[spec])
    np.testing.assert_array_equal(part(x).numpy(), expected_diag_part(x, (0, 2)))
    made = transpiler.function(lambda d: rt.linalg.diag(d, k=(0, 1), num_cols=5),
                               input_signature=[spec])
    d = RNG.normal(size=(2, 2, 3))
    np.testing.assert_array_equal(made(d).numpy(), expected_diag(d, (0, 1), 3, 5))
    concrete = transpiler.function(lambda t: rt.linalg.diag_part(t, k=(0, 2)))
    concrete = concrete.get_concrete_function(rt.TensorSpec([None, 3, 4], rt.float64))
    assert concrete.structured_outputs.shape == (None, 3, 3)


def test_diag_ops_on_constants_fold():
    def fn(x):
        band = rt.linalg.diag(rt.constant([[1.0, 2.0], [3.0, 4.0]]), k=(0, 1), padding_value=0.5)
        return x + rt.linalg.set_diag(band, rt.linalg.diag_part(band * 2.0, k=(0, 1)), k=(0, 1))
    concrete = traced(fn, rt.TensorSpec([2, 2], rt.float64))
    assert ops(concrete.graph) == ["add"]
    np.testing.assert_array_equal(concrete(np.zeros((2, 2))).numpy(), [[6.0, 4.0], [0.5, 8.0]])


def test_graphs_with_the_new_attributes_save_and_load(tmp_path):
    def fn(x, d, p, i):
        return (rt.linalg.diag(d, k=(-1, 0), num_cols=4, padding_value=np.nan, align="LEFT_LEFT"),
                rt.linalg.diag_part(x, k=(1, 2), padding_value=-0.0, align="RIGHT_RIGHT"),
                rt.linalg.set_diag(x, rt.linalg.diag_part(x, k=-1) + 1.0, k=-1, align="LEFT_RIGHT"),
                rt.gather_nd(p, i, batch_dims=1))
    args = (RNG.normal(size=(3, 4)), RNG.normal(size=(2, 3)), RNG.normal(size=(2, 3, 4)),
            np.array([[[1, 2]], [[0, 3]]]))
    concrete = transpiler.function(fn).get_concrete_function(*map(rt.constant, args))
    rt.save(concrete, str(tmp_path / "g"))
    loaded = rt.load(str(tmp_path / "g"))
    for got, want in zip(loaded(*map(rt.constant, args)), concrete(*map(rt.constant, args))):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        if got.dtype == rt.float64:
            np.testing.assert_array_equal(np.signbit(got.numpy()), np.signbit(want.numpy()))


@pytest.mark.parametrize("attrs", [dict(k=(2, 1)), dict(k=1), dict(align="UP_DOWN"),
                                   dict(num_rows=-2), dict(padding_value="0"),
                                   dict(batch_dims=-1)], ids=str)
def test_loaded_attributes_are_checked(attrs):
    with pytest.raises(ValueError, match=f"the attribute {next(iter(attrs))}="):
        check_attributes(attrs)
    check_attributes(dict(k=(-1, 2), align="LEFT_RIGHT", num_rows=-1, padding_value=float("nan"),
                          batch_dims=2))


# -- diag errors -----------------------------------------------------------------------------


def test_diag_errors_name_the_op_and_the_fix():
    with pytest.raises(InvalidArgumentError, match=r"diag_part: k=4 is out of range for "
                                                    r"matrices of shape 3x4; .* from -2 to 3"):
        rt.linalg.diag_part(X, k=4)
    with pytest.raises(ShapeError, match=r"diag_part: k=\(-3, 0\) is out of range"):
        transpiler.function(lambda x: rt.linalg.diag_part(x, k=(-3, 0)))(X)
    with pytest.raises(ValueError, match=r"k=\(2, 1\) has low > high"):
        rt.linalg.diag_part(X, k=(2, 1))
    with pytest.raises(ValueError, match="align must be one of RIGHT_LEFT"):
        rt.linalg.diag(X, align="RIGHT")
    with pytest.raises(TypeError, match="padding_value 0.5 is not a int64 value"):
        rt.linalg.diag(X, padding_value=0.5)
    with pytest.raises(InvalidArgumentError, match="diag: num_rows=1 is too small for "
                                                   "diagonals of length 2 with k=1; .* at least 2"):
        rt.linalg.diag([1, 2], k=1, num_rows=1)
    with pytest.raises(ShapeError, match=r"num_rows=4 and num_cols=4 do not match .* "
                                         r"\(num_rows=2 or num_cols=3\)"):
        transpiler.function(lambda d: rt.linalg.diag(d, k=1, num_rows=4, num_cols=4))(
            np.array([1, 2]))
    with pytest.raises(InvalidArgumentError, match=r"k=\(0, 2\) is a band of 3 diagonals, but "
                                                   r"the diagonals have shape \(2, 2\)"):
        rt.linalg.diag(np.ones((2, 2)), k=(0, 2))
    with pytest.raises(ShapeError, match=r"diag needs a tensor of rank 2 or more"):
        rt.linalg.diag([1, 2], k=(0, 1))
    with pytest.raises(InvalidArgumentError, match=r"set_diag: the diagonal has shape \(2,\), "
                                                   r"but k=0 .* needs shape \(3,\)"):
        rt.linalg.set_diag(X, [1, 2])
    with pytest.raises(ShapeError, match=r"set_diag: the diagonal has shape \(3,\), .* needs "
                                         r"shape \(2, 3\)"):
        transpiler.function(rt.linalg.set_diag)(np.ones((2, 3, 4)), np.ones(3))


# -- gather_nd with batch_dims ---------------------------------------------------------------


def expected_gather_nd(params, indices, batch_dims):
    """``result[b] = params[b][tuple(indices[b, ..., :])]`` over the batch positions ``b``."""
    batch = indices.shape[:batch_dims]
    out = np.empty(indices.shape[:-1] + params.shape[batch_dims + indices.shape[-1]:],
                   params.dtype)
    for b in itertools.product(*map(range, batch)):
        for inner in itertools.product(*map(range, indices.shape[batch_dims:-1])):
            out[b + inner] = params[b][tuple(indices[b + inner])]
    return out


GATHER_CASES = [((2, 3, 4), 1, 1, ()), ((2, 3, 4), 1, 2, (5,)), ((2, 3, 4, 2), 2, 1, (2, 3)),
                ((2, 3, 4), 2, 1, ()), ((3, 4), 1, 1, (2, 2)), ((2, 3, 4), 1, 0, (2,))]


def _gather_case(shape, batch_dims, depth, inner, dtype=np.float64):
    params = RNG.integers(-9, 9, shape).astype(dtype)
    coordinates = [RNG.integers(0, shape[batch_dims + j], shape[:batch_dims] + inner)
                   for j in range(depth)]
    indices = (np.stack(coordinates, -1) if depth
               else np.zeros(shape[:batch_dims] + inner + (0,), np.int64))
    return params, indices


@pytest.mark.parametrize("shape, batch_dims, depth, inner", GATHER_CASES, ids=str)
def test_gather_nd_with_batch_dims(shape, batch_dims, depth, inner):
    for dtype in (np.float64, np.int64):
        params, indices = _gather_case(shape, batch_dims, depth, inner, dtype)
        _check(lambda p, i: rt.gather_nd(p, i, batch_dims=batch_dims),
               expected_gather_nd(params, indices, batch_dims), params, indices)
    # Repeated indices add up in the gradient.
    check_gradients(lambda p: rt.gather_nd(p, np.concatenate([indices, indices], -2)
                                           if indices.ndim > batch_dims + 1 else indices,
                                           batch_dims=batch_dims), params)


def test_gather_nd_with_batch_dims_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    for shape, batch_dims, depth, inner in GATHER_CASES:
        params, indices = _gather_case(shape, batch_dims, depth, inner)
        np.testing.assert_array_equal(rt.gather_nd(params, indices, batch_dims).numpy(),
                                      tf.gather_nd(params, indices, batch_dims).numpy())
        seed = RNG.normal(size=expected_gather_nd(params, indices, batch_dims).shape)
        p = tf.constant(params)
        with tf.GradientTape() as tape:
            tape.watch(p)
            loss = tf.reduce_sum(tf.gather_nd(p, indices, batch_dims) * seed)
        expected = tf.convert_to_tensor(tape.gradient(loss, p)).numpy()
        x = rt.constant(params)
        with rt.GradientTape() as rt_tape:
            rt_tape.watch(x)
            loss = rt.reduce_sum(rt.gather_nd(x, indices, batch_dims) * seed)
        np.testing.assert_allclose(rt_tape.gradient(loss, x).numpy(), expected, rtol=0,
                                   atol=1e-15)


def test_gather_nd_batch_gradient_with_unknown_dimensions():
    params, indices = _gather_case((2, 3, 4), 1, 1, (2,))
    check_gradients(lambda p, i: rt.gather_nd(p, i, batch_dims=1), params, indices, wrt=[0],
                    signature=[rt.TensorSpec([None, None, 4], rt.float64),
                               rt.TensorSpec([None, None, 1], rt.int64)])


def test_gather_nd_batch_dims_errors():
    params = np.ones((2, 3))
    with pytest.raises(ValueError, match="batch_dims must not be negative"):
        rt.gather_nd(params, [[1], [0]], batch_dims=-1)
    with pytest.raises(ValueError, match="batch_dims=2 must be less than the rank of indices, 2"):
        rt.gather_nd(params, [[1], [0]], batch_dims=2)
    message = (r"with batch_dims=1, indices of shape \(3, 1\) and a tensor of shape \(2, 3\) "
               r"must have the same first 1 dimensions")
    with pytest.raises(InvalidArgumentError, match=message):
        rt.gather_nd(params, [[1], [0], [0]], batch_dims=1)
    with pytest.raises(ShapeError, match=message):
        transpiler.function(lambda p, i: rt.gather_nd(p, i, batch_dims=1))(
            params, np.array([[1], [0], [0]]))
    with pytest.raises(InvalidArgumentError, match=r"indices\[1, 0\] = 5 is not in \[0, 3\): "
                                                   r"index 5 is out of range for axis 1 of "
                                                   r"size 3, in a tensor of shape \(2, 3\)"):
        rt.gather_nd(params, [[0], [5]], batch_dims=1)
    with pytest.raises(ShapeError, match="address 2 dimensions .* after its 1 batch dimensions"):
        transpiler.function(lambda p: rt.gather_nd(p, [[0, 0], [1, 1]], batch_dims=1))(params)


# -- the gradient of a wide qr ---------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 3), (3, 5), (2, 2, 4), (1, 3)], ids=str)
@pytest.mark.parametrize("full_matrices", [False, True])
def test_wide_qr_gradient_matches_finite_differences(shape, full_matrices):
    a = _distinct(*shape)
    for output in (0, 1):
        check_against_differences(lambda x: rt.linalg.qr(x, full_matrices)[output], a)

    def both(x):
        q, r = rt.linalg.qr(x, full_matrices)
        return rt.matmul(rt.sin(q), r)

    check_against_differences(both, a)


def test_wide_qr_gradient_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    a = _distinct(2, 3, 5)
    q_seed, r_seed = RNG.normal(size=(2, 3, 3)), RNG.normal(size=(2, 3, 5))
    x = tf.constant(a)
    with tf.GradientTape() as tape:
        tape.watch(x)
        q, r = tf.linalg.qr(x)
        loss = tf.reduce_sum(q * q_seed) + tf.reduce_sum(r * r_seed)
    expected = tape.gradient(loss, x).numpy()
    tensor = rt.constant(a)
    with rt.GradientTape() as rt_tape:
        rt_tape.watch(tensor)
        q, r = rt.linalg.qr(tensor)
        loss = rt.reduce_sum(q * q_seed) + rt.reduce_sum(r * r_seed)
    got = rt_tape.gradient(loss, tensor).numpy()
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


def test_wide_qr_gradient_in_float32_and_its_refusals():
    a = _distinct(2, 4).astype(np.float32)
    x = rt.constant(a)
    grad = _gradient_of_r(x)
    assert grad.dtype == rt.float32 and grad.shape == (2, 4)
    unknown = transpiler.function(_gradient_of_r,
                                  input_signature=[rt.TensorSpec([None, None], rt.float64)])
    with pytest.raises(GradientError, match=r"\(None, None\).*matrix dimensions .* unknown"):
        unknown(_distinct(2, 4))


def _gradient_of_r(x):
    with rt.GradientTape() as tape:
        tape.watch(x)
        loss = rt.reduce_sum(rt.linalg.qr(x)[1])
    return tape.gradient(loss, x)
