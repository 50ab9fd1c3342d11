"""The array ops of issue 13 against NumPy on random inputs, eagerly and in graphs, with
their errors; strided slices with negative steps and rt.newaxis through __getitem__."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import runtime as rt
from runtime.errors import InvalidArgumentError, ShapeError

SETTINGS = settings(max_examples=12, deadline=None)
DTYPES = [np.int32, np.int64, np.float32, np.float64]
IDS = [np.dtype(t).name for t in DTYPES]


def arrays(dtype, shape=hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)):
    elements = st.integers(-5, 5) if np.dtype(dtype).kind == "i" else \
        st.floats(-5, 5, width=np.dtype(dtype).itemsize * 8)
    return hnp.arrays(dtype, shape, elements=elements)


def check(fn, expected, *args):
    """``fn`` eagerly and in a graph (with an unknown first dimension where it applies)."""
    tensors = [rt.constant(a) for a in args]
    with warnings.catch_warnings():  # a new trace for each of hypothesis' shapes: on purpose
        warnings.simplefilter("ignore", rt.errors.RetracingWarning)
        graph = rt.function(fn)(*tensors)
    for result in (fn(*tensors), graph):
        for got, want in zip(rt.nest.flatten(result), rt.nest.flatten(expected)):
            want = np.asarray(want)
            assert got.dtype == want.dtype, (got.dtype, want.dtype)
            np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_layout_functions(dtype, data):
    x = data.draw(arrays(dtype))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda t: rt.reverse(t, [axis]), np.flip(x, axis), x)
    multiples = data.draw(st.lists(st.integers(0, 3), min_size=x.ndim, max_size=x.ndim))
    check(lambda t: rt.tile(t, multiples), np.tile(x, multiples), x)
    repeats = data.draw(st.integers(0, 3))
    check(lambda t: rt.repeat(t, repeats, axis=axis), np.repeat(x, repeats, axis), x)
    check(lambda t: rt.repeat(t, 2), np.repeat(x, 2), x)
    begin = [data.draw(st.integers(0, d)) for d in x.shape]
    size = [data.draw(st.integers(-1, d - b)) for d, b in zip(x.shape, begin)]
    key = tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    check(lambda t: rt.slice(t, begin, size), x[key], x)
    parts = data.draw(st.sampled_from([p for p in (1, 2, 3, 4) if x.shape[axis] % p == 0]))
    check(lambda t: rt.split(t, parts, axis), np.split(x, parts, axis), x)


@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC"])
@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_pad_matches_numpy(mode, dtype, data):
    x = data.draw(arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4)))
    limit = {"CONSTANT": 3, "REFLECT": 1, "SYMMETRIC": 0}[mode]
    paddings = [[data.draw(st.integers(0, d - 1 if mode == "REFLECT" else min(d, 3)))
                 for _ in range(2)] for d in x.shape] if limit < 3 else \
        [[data.draw(st.integers(0, 3)) for _ in range(2)] for _ in x.shape]
    if mode == "CONSTANT":
        expected = np.pad(x, paddings, constant_values=dtype(2))
        check(lambda t: rt.pad(t, paddings, constant_values=2), expected, x)
    else:
        check(lambda t: rt.pad(t, paddings, mode), np.pad(x, paddings, mode.lower()), x)


def test_pad_errors_name_the_shapes():
    with pytest.raises(ValueError, match=r"REFLECT padding of \(2, 0\) on axis 0 .* \(2,\)"):
        rt.pad(rt.constant([1, 2]), [[2, 0]], "REFLECT")
    with pytest.raises(ValueError, match=r"paddings must be integer pairs of shape \[2, 2\]"):
        rt.pad(rt.zeros([2, 2]), [[1, 1]])


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_sorting_and_searching(dtype, data):
    x = data.draw(arrays(dtype))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    check(lambda t: rt.sort(t, axis), np.sort(x, axis), x)
    check(lambda t: rt.argsort(t, axis), np.argsort(x, axis, kind="stable").astype(np.int32), x)
    descending = np.flip(np.sort(x, axis), axis)
    check(lambda t: rt.sort(t, axis, "DESCENDING"), descending, x)
    flat = x.reshape(-1)
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    order = np.argsort(first)
    position = np.argsort(order)
    check(rt.unique, (flat[np.sort(first)], position[inverse.reshape(-1)].astype(np.int32)), flat)
    table = np.sort(x, -1)
    for side in ("left", "right"):
        expected = np.array([np.searchsorted(r, q, side) for r, q in zip(
            table.reshape(-1, x.shape[-1]), x.reshape(-1, x.shape[-1]))]).reshape(x.shape)
        check(lambda s, v: rt.searchsorted(s, v, side=side), expected.astype(np.int32), table, x)


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_gather_and_scatter_nd(dtype, data):
    x = data.draw(arrays(dtype, hnp.array_shapes(min_dims=1, max_dims=3, max_side=4)))
    depth = data.draw(st.integers(1, x.ndim))
    count = data.draw(st.integers(1, 4))
    indices = np.array([[data.draw(st.integers(0, d - 1)) for d in x.shape[:depth]]
                        for _ in range(count)], np.int64)
    key = tuple(indices.T)
    check(rt.gather_nd, x[key], x, indices)
    updates = x[key] + dtype(1)
    expected = np.zeros_like(x)
    np.add.at(expected, key, updates)
    check(lambda i, u: rt.scatter_nd(i, u, list(x.shape)), expected, indices, updates)
    added = x.copy()
    np.add.at(added, key, updates)
    check(rt.tensor_scatter_nd_add, added, x, indices, updates)
    unique_rows = np.unique(indices, axis=0)
    replaced = x.copy()
    replaced[tuple(unique_rows.T)] = x[tuple(unique_rows.T)] * dtype(2)
    check(rt.tensor_scatter_nd_update, replaced, x, unique_rows, x[tuple(unique_rows.T)] * dtype(2))


def test_scatter_errors_name_the_op_and_shapes():
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "indices[0, 0] = -1 is not in [0, 2): index -1 is out of range for axis 0 of size 2, "
            "in a tensor of shape (2,).")):
        rt.gather_nd(rt.constant([1, 2]), [[-1]])
    with pytest.raises(ShapeError, match=r"tensor_scatter_nd_update: updates of shape \(3,\)"):
        rt.function(lambda t: rt.tensor_scatter_nd_update(t, [[0], [1]], [1, 2, 3]))(
            rt.constant([0, 0, 0]))


@pytest.mark.parametrize("dtype", DTYPES, ids=IDS)
@SETTINGS
@given(data=st.data())
def test_masks_one_hot_and_grids(dtype, data):
    x = data.draw(arrays(dtype))
    mask = x > 0
    check(rt.boolean_mask, x[mask], x, mask)
    check(lambda t, m: rt.boolean_mask(t, m, axis=x.ndim - 1), x[..., mask[(0,) * (x.ndim - 1)]],
          x, mask[(0,) * (x.ndim - 1)])
    indices = x.astype(np.int64) % 4 - 1  # -1 gives a row of off values
    expected = np.where(indices[..., None] == np.arange(3), dtype(5), dtype(-1))
    check(lambda i: rt.one_hot(i, 3, on_value=dtype(5), off_value=dtype(-1), dtype=dtype),
          expected, indices)
    check(lambda i: rt.one_hot(i, 3, axis=0), np.moveaxis(
        (indices[..., None] == np.arange(3)).astype(np.float32), -1, 0), indices)
    a, b = x.reshape(-1), x.reshape(-1)[::-1][:3]
    for indexing in ("xy", "ij"):
        check(lambda p, q: rt.meshgrid(p, q, indexing=indexing),
              np.meshgrid(a, b, indexing=indexing), a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_linspace_matches_numpy(dtype):
    start, stop = np.array([0.0, -2.0], dtype), np.array([1.0, 5.0], dtype)
    for num in (0, 1, 2, 7):
        check(lambda a, b: rt.linspace(a, b, num, axis=-1),
              np.linspace(start, stop, num, axis=-1).astype(dtype), start, stop)
        check(lambda a, b: rt.linspace(a[0], b[1], num),
              np.linspace(start[0], stop[1], num).astype(dtype), start, stop)


def test_strided_slices_with_negative_steps_and_newaxis():
    x = np.arange(24).reshape(2, 3, 4)
    keys = [(slice(None, None, -1),), (Ellipsis, slice(3, 0, -2)), (1, slice(None, None, -2), rt.newaxis),
            (rt.newaxis, slice(-1, None, -1), Ellipsis, slice(None, -5, -1))]
    for key in keys:
        check(lambda t: t[key], x[tuple(None if k is rt.newaxis else k for k in key)], x)


def test_split_errors():
    with pytest.raises(ValueError, match=r"split: cannot split dimension 0 of shape \(5,\)"):
        rt.split(rt.range(5), 2)
    with pytest.raises(ValueError, match="do not add up"):
        rt.split(rt.range(5), [2, 2])
    graph_parts = rt.function(lambda t: rt.split(t, 2), input_signature=[
        rt.TensorSpec([None], rt.int32)])(rt.range(6))
    assert [p.numpy().tolist() for p in graph_parts] == [[0, 1, 2], [3, 4, 5]]


def test_save_load_round_trip_of_the_array_ops(tmp_path):
    def fn(x, i):
        return (rt.pad(x, [[1, 0], [0, 2]], "SYMMETRIC"), rt.pad(x, [[0, 1], [1, 1]]),
                rt.sort(x, 0), rt.unique(rt.reshape(x, [-1]))[1], rt.gather_nd(x, i),
                rt.scatter_nd(i, rt.gather_nd(x, i), [3, 3]), rt.searchsorted(rt.sort(x), x),
                rt.one_hot(rt.cast(x, rt.int32), 3), rt.tile(x, [1, 2]))
    x, i = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 1.0], [0.0, 0.0, 3.0]]), np.array([[0, 1], [2, 2]])
    concrete = rt.function(fn).get_concrete_function(x, i)
    path = str(tmp_path / "array.e2g")
    rt.save(concrete, path)
    for got, want in zip(rt.nest.flatten(rt.load(path)(x, i)), rt.nest.flatten(concrete(x, i))):
        np.testing.assert_array_equal(got.numpy(), want.numpy())
