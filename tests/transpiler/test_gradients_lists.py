"""Gradients through lists appended to in converted loops (a TensorArray underneath),
TensorArrays written in loops, and loop variables that change shape. Graph, eager and finite
differences agree (helpers in test_gradients_converted)."""

import numpy as np
import pytest

import runtime as rt
from runtime.errors import GradientError
from tests.transpiler.test_gradients_converted import (DTYPES, FOUR, ROWS, THREE, check,
                                                       eager_gradient, graph_gradient)
from transpiler import set_loop_options


# --------------------------------------------------------------------------------------------
# Lists appended to in loops (a TensorArray underneath)


def stacked_multiples(x, n):
    out = []
    for i in range(n):
        out.append(x * rt.cast(i + 1, x.dtype))
    return rt.reduce_sum(rt.stack(out))


def squares_of_rows(x):
    out = []
    for row in x:
        out.append(row * row)
    return rt.reduce_sum(rt.stack(out) * x)


def power_with_a_log(x, n):
    """The list is grown next to the gradient's path, not on it."""
    log = []
    y = x
    for i in range(n):
        y = y * x
        log.append(i)
    return y + rt.cast(rt.reduce_sum(rt.stack(log)), x.dtype)


@DTYPES
@pytest.mark.parametrize("model, x, args", [
    (stacked_multiples, 1.3, (FOUR,)),
    (stacked_multiples, [1.3, -0.5], (THREE,)),
    (stacked_multiples, 1.3, (rt.constant(1),)),
    (power_with_a_log, 1.3, (FOUR,)),
    (squares_of_rows, ROWS, ()),
], ids=["scalars", "vectors", "one", "beside_the_path", "rows"])
def test_lists_appended_to_in_loops(model, x, args, dtype):
    check(model, x, *args, dtype=dtype)


def read_back(x, n):
    out = rt.TensorArray(x.dtype, size=0, dynamic_size=True)
    out = out.write(0, x)
    for i in range(n):
        out = out.write(i + 1, out.read(i) * x)
    return rt.reduce_sum(out.stack())


def test_a_growing_tensor_array_the_loop_also_reads_is_a_clear_error():
    loop_line = read_back.__code__.co_firstlineno + 3
    with pytest.raises(GradientError, match=rf"(?s)while_loop created at "
                       rf"test_gradients_lists\.py:{loop_line}\b.*changes shape from one "
                       rf"iteration to the next.*Give it one shape"):
        graph_gradient(read_back, rt.constant(1.3, rt.float64), THREE)
    assert float(eager_gradient(read_back, rt.constant(1.3, rt.float64), THREE)[1]) == (
        pytest.approx(1 + 2 * 1.3 + 3 * 1.3 ** 2 + 4 * 1.3 ** 3))


def appended_in_a_branch(x, n):
    out = []
    y = x
    for i in range(n):
        y = y * x
        if y > 2.0:
            out.append(y * 0.5)
        else:
            out.append(y)
    return rt.reduce_sum(rt.stack(out) * rt.stack(out))


def appended_after_a_break(x, n):
    out = []
    y = x
    for i in range(n):
        y = y * x
        if y > 3.0:
            break
        out.append(y)
    return rt.reduce_sum(rt.stack(out))


def appended_in_an_inner_loop(x, n, m):
    out = []
    for i in range(n):
        for j in range(m):
            out.append(x * rt.cast(i + j, x.dtype))
    return rt.reduce_sum(rt.stack(out))


@pytest.mark.parametrize("model, args", [(appended_in_a_branch, (FOUR,)),
                                         (appended_after_a_break, (rt.constant(6),)),
                                         (appended_in_an_inner_loop, (THREE, rt.constant(2)))],
                         ids=["if", "break", "inner_loop"])
def test_lists_appended_to_in_nested_control_flow(model, args):
    check(model, 1.3, *args)


def test_lists_appended_to_in_nested_control_flow_eagerly():
    # x ** 2, x ** 3, x ** 4 are appended, then x ** 5 > 3 breaks the loop
    _, grad = eager_gradient(appended_after_a_break, rt.constant(1.3, rt.float64),
                             rt.constant(6))
    assert float(grad) == pytest.approx(2 * 1.3 + 3 * 1.3 ** 2 + 4 * 1.3 ** 3, rel=1e-12)


# --------------------------------------------------------------------------------------------
# Shape-changing loop variables


def doubling_sequence(x, n):
    y = rt.reshape(x, [1])
    for i in range(n):
        set_loop_options(shape_invariants=[(y, [None])])
        y = rt.concat([y, y[-1:] * x], 0)
    return rt.reduce_sum(y * y)


def test_a_loop_variable_that_changes_shape_is_a_clear_error():
    """Its value in every iteration cannot be kept on one stack (a list the loop only appends
    to can: above)."""
    with pytest.raises(GradientError, match="changes shape from one iteration to the next"):
        check(doubling_sequence, 1.2, THREE)


# --------------------------------------------------------------------------------------------
# Fixed-size TensorArrays written in loops


def filled_array(x, n):
    out = rt.TensorArray(x.dtype, size=4, element_shape=x.shape)
    for i in range(n):
        out = out.write(i, x * x * rt.cast(i + 1, x.dtype))
    return rt.reduce_sum(out.stack())


@DTYPES
def test_a_fixed_size_tensor_array_written_in_a_loop(dtype):
    grad = check(filled_array, [1.5, -0.5], rt.constant(4), dtype=dtype)
    np.testing.assert_allclose(grad, 2 * np.array([1.5, -0.5]) * 10, rtol=1e-6)
