"""Tensors: eager values, symbolic stand-ins while tracing, Python protocols, TensorSpec."""

import operator
import re

import numpy as np
import pytest

import runtime as rt
from runtime.errors import OperatorNotAllowedInGraphError


# -- rt.constant -----------------------------------------------------------------------------


@pytest.mark.parametrize("value, dtype", [
    (1, rt.int32), (1.5, rt.float32), (True, rt.bool), ([1, 2], rt.int32), ([1.0, 2], rt.float32),
    ([[True], [False]], rt.bool), (np.arange(3), np.int64), (np.zeros(2, np.float64), rt.float64),
    (np.float16(1), rt.float16), (np.int8(3), rt.int8),
])
def test_constant_default_dtypes(value, dtype):
    tensor = rt.constant(value)
    assert tensor.dtype == dtype
    assert tensor.shape == np.shape(value)
    np.testing.assert_array_equal(tensor.numpy(), np.asarray(value))


def test_constant_with_explicit_dtype():
    assert rt.constant(1, rt.float64).dtype == rt.float64
    assert rt.constant([1, 2], "int64").dtype == rt.int64
    assert rt.constant(2.0, float).dtype == rt.float32


def test_constant_copies_the_callers_array():
    source = np.array([1.0, 2.0], np.float32)
    tensor = rt.constant(source)
    source[0] = 99.0
    assert tensor.numpy()[0] == 1.0


def test_constant_python_ints_that_do_not_fit_int32_are_int64_as_in_tensorflow():
    assert rt.constant(2 ** 40).dtype == rt.int64 and rt.constant(2 ** 40).numpy() == 2 ** 40
    assert rt.constant([1, -2 ** 31 - 1]).numpy().tolist() == [1, -2 ** 31 - 1]
    assert rt.constant([1, 2 ** 31 - 1]).dtype == rt.int32
    assert rt.constant(2 ** 40, rt.int64).numpy() == 2 ** 40
    with pytest.raises((OverflowError, TypeError)):
        rt.constant(2 ** 70)


def test_constant_rejects_strings():
    with pytest.raises(TypeError, match=re.escape("only numbers and booleans")):
        rt.constant("text")


def test_dtypes_are_numpy_dtypes():
    assert rt.float32 == np.float32 and rt.int32 == np.int32 and rt.bool == np.bool_
    assert rt.float64 == np.float64 and rt.int64 == np.int64


# -- protocols of eager tensors --------------------------------------------------------------


def test_repr_matches_the_contract():
    assert repr(rt.constant([1.0, 0.0])) == "Tensor([1. 0.], shape=(2,), dtype=float32)"
    assert repr(rt.constant(3)) == "Tensor(3, shape=(), dtype=int32)"
    assert repr(rt.constant([True])) == "Tensor([ True], shape=(1,), dtype=bool)"
    assert str(rt.constant(2.5)) == "Tensor(2.5, shape=(), dtype=float32)"


def test_numpy_array_and_shape():
    tensor = rt.constant([[1, 2, 3], [4, 5, 6]])
    assert tensor.shape == (2, 3) and isinstance(tensor.shape, tuple)
    assert tensor.ndim == 2
    assert isinstance(tensor.numpy(), np.ndarray)
    np.testing.assert_array_equal(np.asarray(tensor), [[1, 2, 3], [4, 5, 6]])
    assert np.asarray(tensor, dtype=np.float64).dtype == np.float64
    assert np.array(tensor).dtype == np.int32


def test_scalar_conversions():
    assert int(rt.constant(3)) == 3
    assert float(rt.constant(2.5)) == 2.5
    assert bool(rt.constant(0)) is False and bool(rt.constant(2.0)) is True
    assert [10, 20, 30][rt.constant(1)] == 20
    assert f"{rt.constant(2.5):.2f}" == "2.50"


def test_non_scalar_truth_value_is_ambiguous():
    with pytest.raises(TypeError, match=re.escape("the truth value of a tensor with shape (2,) is "
                                                  "ambiguous")):
        bool(rt.constant([1, 2]))


def test_float_tensor_is_not_an_index():
    with pytest.raises(TypeError, match=re.escape("only integer tensors can be used as an index")):
        [1, 2][rt.constant(1.0)]


def test_len_and_iteration():
    tensor = rt.constant([[1, 2], [3, 4], [5, 6]])
    assert len(tensor) == 3
    rows = list(tensor)
    assert all(isinstance(row, rt.Tensor) for row in rows)
    np.testing.assert_array_equal(rows[2].numpy(), [5, 6])
    with pytest.raises(TypeError, match="len"):
        len(rt.constant(1))


def test_tensors_are_not_hashable():
    with pytest.raises(TypeError):
        {rt.constant(1): 1}


_BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
           operator.mod, operator.pow, operator.lt, operator.le, operator.gt, operator.ge,
           operator.eq, operator.ne]


@pytest.mark.parametrize("op", _BINARY, ids=lambda op: op.__name__)
def test_binary_operators_match_numpy(op):
    a = np.array([1.5, 2.0, 3.0], np.float32)
    b = np.array([2.0, 0.5, -1.0], np.float32)
    for result, expected in [(op(rt.constant(a), rt.constant(b)), op(a, b)),
                             (op(rt.constant(a), 2.0), op(a, np.float32(2.0))),
                             (op(3.0, rt.constant(b)), op(np.float32(3.0), b))]:
        assert isinstance(result, rt.Tensor)
        assert result.dtype == expected.dtype
        np.testing.assert_allclose(result.numpy(), expected)


def test_matmul_operator_and_its_reflection():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal((rt.constant(a) @ rt.constant(b)).numpy(), a @ b)
    result = a @ rt.constant(b)
    assert isinstance(result, rt.Tensor)
    np.testing.assert_array_equal(result.numpy(), a @ b)


def test_unary_operators():
    x = rt.constant([1.5, -2.0])
    np.testing.assert_array_equal((-x).numpy(), [-1.5, 2.0])
    np.testing.assert_array_equal((+x).numpy(), [1.5, -2.0])
    np.testing.assert_array_equal(abs(x).numpy(), [1.5, 2.0])
    np.testing.assert_array_equal((~rt.constant([True, False])).numpy(), [False, True])
    np.testing.assert_array_equal((~rt.constant([0, 5])).numpy(), [-1, -6])


def test_logical_operators_on_bools_and_bitwise_on_ints():
    a, b = rt.constant([True, True, False]), rt.constant([True, False, False])
    np.testing.assert_array_equal((a & b).numpy(), [True, False, False])
    np.testing.assert_array_equal((a | b).numpy(), [True, True, False])
    np.testing.assert_array_equal((a ^ b).numpy(), [False, True, False])
    assert (a & True).dtype == rt.bool
    np.testing.assert_array_equal((rt.constant([6, 3]) & 5).numpy(), [4, 1])
    np.testing.assert_array_equal((rt.constant([6, 3]) | 1).numpy(), [7, 3])


def test_comparison_with_none_is_python_identity_semantics():
    x = rt.constant([1.0])
    assert (x == None) is False  # noqa: E711
    assert (x != None) is True  # noqa: E711


def test_numpy_array_on_the_left_gives_a_tensor():
    result = np.array([1.0, 2.0], np.float32) + rt.constant([1.0, 1.0])
    assert isinstance(result, rt.Tensor)
    np.testing.assert_array_equal(result.numpy(), [2.0, 3.0])


def test_operators_inside_a_graph_match_eager(eager_and_graph):
    def f(x, i, b):
        return (1 - x, 2 ** i, -x, abs(x), ~b, ~i, b & True, i & 1, x @ x, i // 2, i % 3,
                7 // i, x < 0, x == [1.0, -2.0], b ^ b, np.ones((2, 2), np.float32) @ x)
    eager_and_graph(f, rt.constant([1.0, -2.0]), rt.constant([3, 4]), rt.constant([True, False]))


# -- symbolic tensors ------------------------------------------------------------------------


def test_symbolic_tensors_carry_dtype_and_partial_shape():
    seen = {}

    @rt.function
    def f(x):
        seen["type"] = type(x)
        seen["shape"], seen["dtype"] = x.shape, x.dtype
        seen["is_tensor"] = isinstance(x, rt.Tensor)
        seen["len"] = len(x)
        return x

    f.get_concrete_function(rt.TensorSpec([3, None], rt.int64))
    assert seen["type"] is rt.SymbolicTensor and seen["is_tensor"]
    assert seen["shape"] == (3, None) and seen["dtype"] == rt.int64
    assert seen["len"] == 3


def _trace_raising(body, spec=rt.TensorSpec([])):
    @rt.function
    def f(x):
        return body(x)
    return lambda: f.get_concrete_function(spec)


def test_symbolic_tensor_as_python_bool_explains_the_fix():
    def body(x):
        if x > 0:
            return x
        return -x
    with pytest.raises(OperatorNotAllowedInGraphError) as info:
        _trace_raising(body)()
    message = str(info.value)
    assert "Using as a Python bool a symbolic tensor" in message
    assert "transpiler.function" in message
    assert "rt.cond / rt.while_loop" in message
    assert "test_tensor.py:" in message  # where the tensor was made
    assert isinstance(info.value, TypeError)


@pytest.mark.parametrize("use, fragment", [
    (lambda x: [row for row in x], "Iterating over a symbolic tensor"),
    (lambda x: int(x), "rt.cast(x, rt.int32)"),
    (lambda x: float(x), "rt.cast(x, rt.float32)"),
    (lambda x: x.numpy(), "Calling .numpy() on a symbolic tensor"),
    (lambda x: np.asarray(x), "Converting to a NumPy array"),
    (lambda x: [1, 2][x], "Using as a Python index"),
    (lambda x: len(x), "Use rt.shape(x)[0]"),
])
def test_symbolic_tensor_python_conversions_raise(use, fragment):
    with pytest.raises(OperatorNotAllowedInGraphError, match=re.escape(fragment)):
        _trace_raising(use, rt.TensorSpec([None], rt.int32))()


def test_symbolic_tensor_used_after_its_trace_raises():
    leaked = []

    @rt.function
    def f(x):
        leaked.append(x * 2)
        return x
    f(rt.constant(1.0))
    with pytest.raises(ValueError, match=re.escape("is used outside the function that traced it")):
        leaked[0] + 1


def test_symbolic_tensor_of_another_graph_cannot_be_used():
    leaked = []

    @rt.function
    def f(x):
        leaked.append(x)
        return x

    @rt.function
    def g(x):
        return x + leaked[0]
    f(rt.constant(1.0))
    with pytest.raises(ValueError, match=re.escape("belongs to another graph (f) and cannot be "
                                                   "used in g")):
        g(rt.constant(1.0))


# -- TensorSpec ------------------------------------------------------------------------------


def test_tensor_spec_basics():
    spec = rt.TensorSpec([None, 3], rt.float32)
    assert spec.shape == (None, 3) and spec.dtype == rt.float32
    assert repr(spec) == "TensorSpec(shape=(None, 3), dtype=float32)"
    assert spec == rt.TensorSpec((None, 3), "float32")
    assert hash(spec) == hash(rt.TensorSpec((None, 3)))
    assert spec != rt.TensorSpec([None, 3], rt.float64)


def test_tensor_spec_compatibility():
    spec = rt.TensorSpec([None, 3])
    assert spec.is_compatible_with(rt.constant(np.zeros((5, 3), np.float32)))
    assert spec.is_compatible_with(rt.TensorSpec([2, 3]))
    assert not spec.is_compatible_with(rt.TensorSpec([2, 4]))
    assert not spec.is_compatible_with(rt.TensorSpec([2, 3], rt.float64))
    assert not spec.is_compatible_with(rt.TensorSpec([3]))
    assert rt.TensorSpec(None).is_compatible_with(rt.TensorSpec([1, 2, 3]))
    assert not rt.TensorSpec([2, 3]).is_compatible_with(spec)


def test_a_ragged_list_is_a_clear_error():
    with pytest.raises(TypeError, match=r"nested lists have different lengths .* Pad the rows"):
        rt.constant([[1, 2], [3]])
    with pytest.raises(TypeError, match="different lengths"):
        rt.add([[1.0], [2.0, 3.0]], 1.0)


def test_numpy_of_a_scalar_is_a_numpy_scalar():
    """As TensorFlow gives it: hashable (a dict key), and an array for every other shape."""
    label = rt.constant(3)
    assert type(label.numpy()) is np.int32
    counts = {}
    for value in (label, rt.constant(3), rt.constant(4)):
        counts[value.numpy()] = counts.get(value.numpy(), 0) + 1
    assert counts == {3: 2, 4: 1}
    assert type(rt.constant(2.5, rt.float64).numpy()) is np.float64
    assert isinstance(rt.constant([1.0]).numpy(), np.ndarray)
    assert rt.Variable(1.5).numpy() == np.float32(1.5) and rt.Variable([1.5]).numpy().shape == (1,)


def test_tensors_print_in_the_style_set():
    x = rt.constant([1.0, 2.5])
    assert str(x) == repr(x) == "Tensor([1.  2.5], shape=(2,), dtype=float32)"
    rt.display.set_style(rt.display.TENSORFLOW)  # the fixtures set it back
    assert str(x) == "tf.Tensor([1.  2.5], shape=(2,), dtype=float32)"
    assert repr(x) == "<tf.Tensor: shape=(2,), dtype=float32, numpy=array([1. , 2.5], dtype=float32)>"
    assert f"{x}" == "[1.  2.5]"
    assert repr(rt.Variable(3, name="count")) == "<tf.Variable 'count:0' shape=() dtype=int32, numpy=3>"
    with pytest.raises(ValueError, match="one of 'rt', 'tensorflow'"):
        rt.display.set_style("numpy")
