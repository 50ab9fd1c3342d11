"""``Tensor.shape`` is a tuple that also answers TensorFlow's ``TensorShape`` questions."""

import copy
import pickle

import numpy as np

import runtime as rt
from runtime.tensor import ShapeTuple


def test_eager_shape_is_a_tuple_with_tensorshape_methods():
    x = rt.zeros([2, 3])
    assert isinstance(x.shape, tuple) and type(x.shape) is ShapeTuple
    assert x.shape == (2, 3) and x.shape == [2, 3] and x.shape != [3, 2]
    assert x.shape.as_list() == [2, 3] and x.shape.rank == 2 and x.shape.ndims == 2
    assert x.shape.dims == [2, 3] and len(x.shape) == 2
    assert x.shape[0] == 2 and x.shape[-1] == 3 and x.shape[1:] == [3]
    assert type(x.shape[1:]) is ShapeTuple
    assert x.shape.is_fully_defined() and x.shape.num_elements() == 6
    assert x.shape + (4,) == (2, 3, 4)  # still adds as a tuple
    assert hash(x.shape) == hash((2, 3)) and {x.shape: 1}[(2, 3)] == 1
    assert rt.TensorShape(x.shape) == x.shape
    assert x.shape.is_compatible_with([None, 3]) and not x.shape.is_compatible_with([2])
    assert x.shape.concatenate([4]) == [2, 3, 4]


def test_scalar_and_numpy_use():
    s = rt.constant(1.0)
    assert s.shape == () and s.shape.as_list() == [] and s.shape.rank == 0
    assert s.shape.num_elements() == 1
    assert np.zeros(rt.ones([2, 2]).shape).shape == (2, 2)


def test_printing_is_the_tuple_s():
    x = rt.zeros([2, 3])
    assert repr(x.shape) == "(2, 3)" and str(x.shape) == "(2, 3)"
    assert repr(x) == "Tensor([[0. 0. 0.]\n [0. 0. 0.]], shape=(2, 3), dtype=float32)"


def test_copies_and_pickles_as_a_plain_tuple():
    shape = rt.zeros([2, 3]).shape
    assert type(pickle.loads(pickle.dumps(shape))) is tuple
    assert copy.copy(shape) == (2, 3)


def test_symbolic_shape_with_unknown_sizes():
    seen = {}

    @rt.function(input_signature=[rt.TensorSpec([None, 3])])
    def f(x):
        seen["shape"] = x.shape
        return x

    f(rt.zeros([4, 3]))
    shape = seen["shape"]
    assert shape == (None, 3) and shape.as_list() == [None, 3] and shape.rank == 2
    assert not shape.is_fully_defined() and shape.num_elements() is None
    assert shape[0] is None and shape[1] == 3


def test_variable_shape():
    v = rt.Variable(np.zeros((2, 5), np.float32))
    assert v.shape.as_list() == [2, 5] and v.shape == [2, 5]
