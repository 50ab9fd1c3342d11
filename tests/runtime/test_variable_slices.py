"""Assigning to a slice of a variable (``v[1:3].assign(x)``) and the scatter updates of
variables, eagerly and in traced functions, as in TensorFlow."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "traced"])
def test_slices_of_a_variable_assign_into_it(traced):
    v = rt.Variable(np.zeros((3, 2), np.float32))

    def update(i):
        v[1].assign([5.0, 6.0])
        v[:, 0].assign([1.0, 2.0, 3.0])
        v[i, 1].assign_add(10.0)
        v[-1:, ::-1].assign_sub([[1.0, 1.0]])
        return v.value()

    run = rt.function(update) if traced else update
    result = run(rt.constant(0))
    expected = np.array([[1.0, 10.0], [2.0, 6.0], [2.0, -1.0]], np.float32)
    np.testing.assert_array_equal(result.numpy(), expected)
    np.testing.assert_array_equal(v.numpy(), expected)


def test_a_slice_is_still_the_value_it_reads():
    v = rt.Variable([1.0, 2.0, 3.0, 4.0])
    part = v[1:3]
    assert part.numpy().tolist() == [2.0, 3.0] and (part * 2).numpy().tolist() == [4.0, 6.0]
    part.assign([7.0, 8.0])
    assert v.numpy().tolist() == [1.0, 7.0, 8.0, 4.0]
    assert part.numpy().tolist() == [2.0, 3.0]  # a tensor: the value read before


def test_scatter_updates_of_a_variable():
    v = rt.Variable(np.arange(4, dtype=np.int64))
    v.scatter_nd_update([[0], [3]], [9, 8])
    v.scatter_nd_add([[1], [1]], [10, 5])
    v.scatter_nd_sub([[2]], [2])
    assert v.numpy().tolist() == [9, 16, 0, 8]


def test_assigning_a_wrong_dtype_or_to_a_plain_tensor_says_what_to_do():
    v = rt.Variable([1.0, 2.0])
    with pytest.raises(TypeError, match="slice of variable .* use rt.cast"):
        v[0].assign(rt.constant(1, rt.int32))
    with pytest.raises(AttributeError, match="tensors are immutable"):
        rt.constant([1.0]).assign([2.0])


def test_a_traced_slice_assignment_runs_on_every_call():
    v = rt.Variable(np.zeros(3, np.float64))
    step = rt.function(lambda i: v[i].assign_add(1.0) and None)
    for i in (0, 2, 2):
        step(rt.constant(i))
    assert v.numpy().tolist() == [1.0, 0.0, 2.0]
