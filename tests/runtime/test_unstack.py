"""``rt.unstack``: TensorFlow's semantics (any axis, negative too; ``num`` needed only when the
axis size is unknown while tracing), eager and graph results alike, and a save/load round trip."""

import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import InvalidArgumentError, ShapeError
from tests.runtime.conftest import assert_same_values

SHAPES = [(3,), (2, 3), (4, 1, 2), (2, 3, 2, 1)]


@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")  # one trace per axis
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.float64, rt.bool])
def test_every_axis_matches_numpy_eagerly_and_in_a_graph(shape, dtype):
    values = np.random.default_rng(len(shape)).integers(0, 9, size=shape).astype(dtype)
    graph = rt.function(lambda x, axis: rt.unstack(x, axis=axis))
    for axis in range(-len(shape), len(shape)):
        eager = rt.unstack(rt.constant(values), axis=axis)
        assert_same_values(eager, graph(rt.constant(values), axis))
        expected = list(np.moveaxis(values, axis, 0))
        assert len(eager) == shape[axis]
        for piece, want in zip(eager, expected):
            assert piece.dtype == dtype
            np.testing.assert_array_equal(piece.numpy(), want)


def test_stack_undoes_unstack(eager_and_graph):
    x = rt.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    for axis in (0, 1, 2, -1):
        result, _ = eager_and_graph(lambda t: rt.stack(rt.unstack(t, axis=axis), axis=axis), x)
        np.testing.assert_array_equal(result.numpy(), x.numpy())


def test_static_shapes_of_the_pieces():
    def pieces(x):
        parts = rt.unstack(x, axis=-2)
        assert len(parts) == 3 and all(p.shape == (None, 4) for p in parts)
        return parts
    rt.function(pieces).get_concrete_function(rt.TensorSpec([None, 3, 4]))


def test_num_is_needed_only_when_the_size_is_unknown():
    spec = [rt.TensorSpec([None, 2], rt.int32)]
    message = ("unstack: cannot infer num from shape (None, 2): axis 0 has an unknown size while "
               "tracing. Pass num=, the number of tensors to unstack into, or give the input a "
               "static shape (e.g. with input_signature).")
    with pytest.raises(ValueError, match=re.escape(message)):
        rt.function(lambda x: rt.unstack(x), input_signature=spec)(rt.zeros([3, 2], rt.int32))
    take_three = rt.function(lambda x: rt.unstack(x, num=3), input_signature=spec)
    first, _, last = take_three(rt.constant([[1, 2], [3, 4], [5, 6]]))
    assert first.numpy().tolist() == [1, 2] and last.numpy().tolist() == [5, 6]
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "the tensor has shape (2, 2), whose axis 0 has 2 entries, not num=3")):
        take_three(rt.zeros([2, 2], rt.int32))
    assert len(rt.unstack(rt.zeros([5, 2]), num=5)) == 5


def test_unknown_rank_works_with_num_and_a_negative_axis():
    by_columns = rt.function(lambda x: rt.unstack(x, num=2, axis=-1),
                             input_signature=[rt.TensorSpec(None, rt.int32)])
    a, b = by_columns(rt.constant([[1, 2], [3, 4], [5, 6]]))
    assert a.numpy().tolist() == [1, 3, 5] and b.numpy().tolist() == [2, 4, 6]


@pytest.mark.parametrize("value, kwargs, error, message", [
    (rt.zeros([2, 3]), {"num": 4}, ShapeError,
     "unstack: num=4 does not match axis 0 of shape (2, 3), which has 2 entries."),
    (rt.zeros([2, 3]), {"axis": 2}, ShapeError, "unstack: axis 2 is out of range for a tensor of "
                                                "rank 2."),
    (rt.constant(1.0), {}, ShapeError, "unstack: cannot unstack a scalar (shape ()); it needs a "
                                       "tensor of rank 1 or more."),
])
def test_errors_while_tracing(value, kwargs, error, message):
    with pytest.raises(error, match=re.escape(message)):
        rt.function(lambda x: rt.unstack(x, **kwargs))(value)


def test_eager_errors_name_the_op_and_the_shape():
    with pytest.raises(ShapeError, match=re.escape("unstack: axis -3 is out of range")):
        rt.unstack(rt.zeros([2, 3]), axis=-3)
    with pytest.raises(InvalidArgumentError, match=re.escape(
            "unstack failed on inputs [(2, 3) float32]: the tensor has shape (2, 3), whose axis 1 "
            "has 3 entries, not num=2")):
        rt.unstack(rt.zeros([2, 3]), num=2, axis=1)


def test_empty_axis_gives_no_tensors():
    assert rt.unstack(rt.zeros([0, 3])) == []
    assert [p.shape for p in rt.unstack(rt.zeros([2, 0]))] == [(0,), (0,)]


def test_save_and_load(tmp_path):
    path = str(tmp_path / "unstack.e2g")
    concrete = rt.function(lambda x: rt.unstack(x, num=2, axis=-1)).get_concrete_function(
        rt.TensorSpec([None, 2], rt.int64))
    rt.save(concrete, path)
    x = rt.constant(np.arange(8, dtype=np.int64).reshape(4, 2))
    assert_same_values(rt.load(path)(x), concrete(x))
