"""Lists that tensor control flow appends to become staged lists: the graph gives what Python
gives (``out = []``, ``out.append(v)`` in a tensor loop, then ``rt.stack(out)``)."""

import numpy as np
import pytest

import runtime as rt
from transpiler import function, to_code


def stacked_multiples(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return rt.stack(out)


def returned_list(x, n):
    out = [x]
    i = 0
    while i < n:
        out.append(x + i)
        i += 1
    return out


def evens_and_count(n):
    evens = []
    for i in range(n):
        if i % 2 == 0:
            evens.append(i * i)
    return len(evens), rt.reduce_sum(rt.stack(evens))


def pairs(n, m):
    out = []
    for i in range(n):
        for j in range(m):
            out.append(i * 10 + j)
    return rt.stack(out)


def iterate_after(n):
    squares = []
    for i in range(n):
        squares.append(i * i)
    total = 0
    for s in squares:
        total += s
    return total, squares[-1], rt.concat([rt.reshape(s, [1]) for s in [squares[0]]], 0)


def _values(result):
    return [np.asarray(v).tolist() for v in result]


# A new function of the same Python function per parametrized case: the RetracingWarning
# the runtime gives for that is expected here.
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
@pytest.mark.parametrize("n", [1, 2, 5])
@pytest.mark.parametrize("dtype", [rt.float32, rt.float64, rt.int64])
def test_a_list_appended_in_a_tensor_loop_stacks_as_in_python(n, dtype):
    x = rt.constant([1, 2], dtype)
    got = function(stacked_multiples)(x, rt.constant(n))
    expected = stacked_multiples(x, n)
    assert got.dtype == expected.dtype == dtype
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("n", [0, 1, 4])
def test_a_returned_staged_list_is_a_python_list_of_tensors(n):
    got = function(returned_list)(rt.constant(1.5), rt.constant(n))
    expected = returned_list(rt.constant(1.5), n)
    assert type(got) is list and len(got) == len(expected)
    assert _values(got) == _values(expected)


@pytest.mark.parametrize("n", [1, 2, 7])
def test_appends_under_a_tensor_if_inside_the_loop(n):
    count, total = function(evens_and_count)(rt.constant(n))
    assert (int(count), int(total)) == evens_and_count(n)


@pytest.mark.parametrize("n, m", [(1, 1), (2, 3), (3, 0)])
def test_appends_in_nested_tensor_loops(n, m):
    if n * m == 0:
        with pytest.raises(rt.errors.InvalidArgumentError, match="stack: needs at least one"):
            function(pairs)(rt.constant(n), rt.constant(m))
        return
    got = function(pairs)(rt.constant(n), rt.constant(m))
    assert got.numpy().tolist() == pairs(n, m).numpy().tolist()


@pytest.mark.parametrize("n", [1, 4])
def test_a_staged_list_can_be_iterated_indexed_and_concatenated_after_the_loop(n):
    got = function(iterate_after)(rt.constant(n))
    assert _values(got) == _values(iterate_after(n))


def test_stacking_an_empty_staged_list_fails_when_the_graph_runs_as_in_python():
    with pytest.raises(ValueError, match="stack: needs at least one tensor"):
        stacked_multiples(rt.constant([1.0]), 0)
    with pytest.raises(rt.errors.InvalidArgumentError, match="stack: needs at least one tensor"):
        function(stacked_multiples)(rt.constant([1.0]), rt.constant(0))


def test_the_generated_code_names_the_staged_list():
    assert "staged=('out',)" in to_code(stacked_multiples)


def read_inside_the_loop(n):
    out = [0]
    for i in range(n):
        out.append(out[-1] + i)  # <- also read: cannot be staged
    return out


def test_a_list_also_read_inside_the_loop_is_refused():
    with pytest.raises(ValueError, match=r"out\.append\(\.\.\.\) inside a for loop on a tensor"):
        function(read_inside_the_loop)(rt.constant(3))
    assert read_inside_the_loop(3) == [0, 0, 1, 3]


def mixed_dtypes(x, n):
    out = []
    for i in range(n):
        out.append(x)
        out.append(rt.ones([], rt.int32))
    return out


def counters_take_the_dtype_of_the_list(x, n):
    out = []
    for i in range(n):
        out.append(x)
        out.append(i)  # a Python int in the plain function: weak, like 0 next to a float32
    return out


def test_loop_counters_appended_take_the_dtype_of_the_list():
    got = function(counters_take_the_dtype_of_the_list)(rt.constant(1.5), rt.constant(2))
    assert [t.dtype for t in got] == [rt.float32] * 4
    assert _values(got) == _values(counters_take_the_dtype_of_the_list(rt.constant(1.5), 2))


def test_elements_of_different_dtypes_are_a_clear_error():
    with pytest.raises(TypeError, match=r"TensorArray\.write: the TensorArray holds float32 "
                                        r"elements but the value is a tensor of dtype int32"):
        function(mixed_dtypes)(rt.constant(1.5), rt.constant(2))


def appends_to_an_argument(out, n):
    for i in range(n):
        out.append(i)
    return n


def test_appending_to_a_list_from_outside_is_refused():
    with pytest.raises(ValueError, match=r"out\.append\(\.\.\.\) inside a for loop on a tensor"):
        function(appends_to_an_argument)([], rt.constant(3))


def python_ints_then_wide_values(x, n):
    out = []
    for i in range(n):
        out.append(i)
        out.append(x * i)
    return rt.stack(out)


def test_python_numbers_appended_next_to_wide_values_take_their_dtype():
    got = function(python_ints_then_wide_values)(rt.constant(2**40, rt.int64), rt.constant(3))
    expected = python_ints_then_wide_values(rt.constant(2**40, rt.int64), 3)
    assert got.dtype == rt.int64 and got.numpy().tolist() == expected.numpy().tolist()


def appends_functions(xs):
    fns = []
    for i in xs:
        fns.append(lambda: i + i)
    return fns[0]()


def test_a_graph_loop_appending_python_objects_says_that_lists_hold_tensors():
    with pytest.raises(rt.errors.GraphTypeError, match=(
            r"the body of the for loop at test_staged_lists.py:\d+, a graph loop, appends "
            r"function objects to 'fns': a list grown in a graph loop holds tensors only")):
        function(appends_functions)(rt.constant([1, 2]))
