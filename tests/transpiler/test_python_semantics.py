"""Converted code keeps Python's evaluation order and types, or says clearly why it cannot.

Each case here once gave a silently different answer."""

import contextlib

import numpy as np
import pytest

import runtime as rt
from transpiler import convert, function, to_code


def _raises_value_error():
    raise ValueError("no value")


def return_inside_try(c):
    if c:
        return 2
    try:
        return _raises_value_error()
    except ValueError:
        pass
    return 1


@pytest.mark.parametrize("c", [True, False])
def test_a_return_whose_value_raises_did_not_return(c):
    assert convert(return_inside_try)(c) == return_inside_try(c)
    assert int(function(return_inside_try)(rt.constant(c))) == return_inside_try(c)


calls = []


def counted(value):
    calls.append(value)
    return value


def chained_with_calls(a, b, c):
    return a < counted(b) <= counted(c)


@pytest.mark.parametrize("a, b, c", [(1, 2, 3), (5, 2, 3), (1, 4, 3), (2, 2, 2)])
def test_chained_comparison_evaluates_each_operand_once_and_lazily(a, b, c):
    calls.clear()
    expected = chained_with_calls(a, b, c)
    python_calls = list(calls)
    calls.clear()
    assert convert(chained_with_calls)(a, b, c) == expected
    assert calls == python_calls


# A new function of the same Python function per parametrized case: the RetracingWarning
# the runtime gives for that is expected here.
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
@pytest.mark.parametrize("a, b, c", [(1, 2, 3), (5, 2, 3), (1, 4, 3)])
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64, rt.float64])
def test_chained_comparison_on_tensors_traces_each_call_once(a, b, c, dtype):
    expected = chained_with_calls(a, b, c)
    calls.clear()
    got = function(chained_with_calls)(*(rt.constant(v, dtype) for v in (a, b, c)))
    assert bool(got) == expected
    assert len(calls) == 2  # traced once each, the second inside the graph branch


def int_or_float_return(x):
    if x > 0:
        return 1
    return 2.5


def int_or_float_variable(x):
    if x > 0:
        y = 1
    else:
        y = 2.5
    return y


def test_an_int_and_a_float_from_two_branches_is_an_error_naming_the_return_value():
    assert int_or_float_return(1) == 1 and type(int_or_float_return(1)) is int
    with pytest.raises(TypeError, match=r"'the return value' is the Python int 1 in the true "
                                        r"branch but the Python float 2\.5 in the false branch"):
        function(int_or_float_return)(rt.constant(1))


def test_an_int_and_a_float_from_two_branches_is_an_error_naming_the_variable():
    with pytest.raises(TypeError, match=r"'y' is the Python int 1 in the true branch but the "
                                        r"Python float 2\.5 in the false branch"):
        function(int_or_float_variable)(rt.constant(-1, rt.int64))


def python_numbers_of_one_type(x):
    if x > 0:
        y = 1.5
    else:
        y = 2.5
    return y


@pytest.mark.parametrize("x", [-1, 1])
def test_python_numbers_of_one_type_still_meet_in_a_tensor_if(x):
    got = function(python_numbers_of_one_type)(rt.constant(x))
    assert got.dtype == rt.float32 and float(got) == python_numbers_of_one_type(x)


def int_tensor_or_python_int(x):
    if x > 0:
        y = x
    else:
        y = 0
    return y


@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_a_python_int_takes_the_dtype_of_the_tensor_in_the_other_branch(dtype):
    big = 2**40 if dtype == rt.int64 else 7
    got = function(int_tensor_or_python_int)(rt.constant(big, dtype))
    assert got.dtype == dtype and int(got) == big
    assert int(function(int_tensor_or_python_int)(rt.constant(-3, dtype))) == 0
    assert np.asarray(got).dtype == dtype


@contextlib.contextmanager
def _noop_scope():
    yield


def return_inside_with(x):
    if x > 0:
        with _noop_scope():
            return x * 2
    return -x


def return_inside_try_finally(x):
    total = 0
    while x > 0:
        try:
            if x > 5:
                return total + 100
            total += x
        finally:
            x -= 1
    return total


# A new function of the same Python function per parametrized case: the RetracingWarning
# the runtime gives for that is expected here.
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
@pytest.mark.parametrize("fn", [return_inside_with, return_inside_try_finally])
@pytest.mark.parametrize("x", [-3, 0, 2, 7])
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_return_inside_with_and_try_finally_under_tensor_control_flow(fn, x, dtype):
    got = function(fn)(rt.constant(x, dtype))
    assert int(got) == fn(x) and got.dtype == dtype


def sum_over_a_constant(x):
    s = x
    for item in rt.constant([1, 2, 3]):
        s = s + item
    return s


def test_iterating_over_a_constant_vector_in_a_graph():
    assert int(function(sum_over_a_constant)(rt.constant(1))) == 7


def sum_with_a_given_range(make_range, n):
    s = 0
    for i in make_range(n):
        s += i
    return s


@pytest.mark.parametrize("n", [0, 4, rt.constant(4), rt.constant(4, rt.int64)])
def test_the_builtin_range_passed_as_an_argument(n):
    assert int(function(sum_with_a_given_range)(range, n)) == sum_with_a_given_range(range, int(n))


def lambdas_over_the_iterate(items):
    fns = []
    for item in items:
        fns.append(lambda: item)
    return [f() for f in fns]


def lambdas_over_a_loop_temporary(n):
    fns = []
    i = 0
    while i < n:
        scaled = i * 10
        fns.append(lambda: scaled)
        i += 1
    return [f() for f in fns]


def test_closures_made_in_a_loop_see_the_variables_last_value_as_in_python():
    assert convert(lambdas_over_the_iterate)([1, 2]) == lambdas_over_the_iterate([1, 2]) == [2, 2]
    assert convert(lambdas_over_the_iterate)([(1, 2), (3, 4)]) == [(3, 4), (3, 4)]
    assert convert(lambdas_over_a_loop_temporary)(3) == lambdas_over_a_loop_temporary(3)


def default_return_inside_with(x):
    with _noop_scope():
        if x > 0:
            return 1
        return 0


def default_return_inside_try_finally(x):
    try:
        if x > 0:
            return 1
        return 0
    finally:
        x = x + 1


def return_inside_finally(x):
    try:
        pass
    finally:
        if x > 0:
            return 1
        return 0


@pytest.mark.parametrize("fn", [default_return_inside_with, default_return_inside_try_finally,
                                return_inside_finally])
@pytest.mark.parametrize("x", [-1, 2])
def test_a_with_or_try_whose_every_path_returns_ends_the_function(fn, x):
    assert int(function(fn)(rt.constant(x))) == fn(x)


def creates_a_tensor_of_varying_rank(n):
    i = 0
    while i < n:
        v = rt.zeros(rt.range(i))
        i += 1
    return v


@pytest.mark.parametrize("n", [1, 3])
def test_a_variable_first_assigned_in_a_loop_may_vary_in_rank(n):
    got = function(creates_a_tensor_of_varying_rank)(rt.constant(n))
    np.testing.assert_array_equal(got.numpy(), creates_a_tensor_of_varying_rank(n).numpy())


def loops_on_a_constant_made_while_tracing():
    n = rt.constant(0, dtype=rt.int32)
    while rt.constant(True):
        n = rt.constant(0, dtype=rt.float32)
    return n


def counts_with_constants():
    x = rt.constant(0, rt.int64)
    while x < 5:
        x += 2
    return x


def test_a_while_on_a_tensor_made_while_tracing_is_a_graph_loop():
    # Unrolled in Python this would trace forever; as a graph loop its dtype error shows.
    with pytest.raises(TypeError, match=r"'n' has dtype int32 before the loop, but dtype float32 "
                                        r"after one iteration"):
        function(loops_on_a_constant_made_while_tracing)()
    got = function(counts_with_constants)()
    assert got.dtype == rt.int64 and int(got) == int(counts_with_constants()) == 6


def first_common_position(items, targets):
    position = 0
    for item in items:
        if item in targets:
            break
        position = position * 10 + item
    else:
        position = -1000
    return position


@pytest.mark.parametrize("items, targets", [([1, 2, 3], [2, 5]), ([1, 2, 3], [7, 8])])
@pytest.mark.parametrize("dtype", [rt.int32, rt.int64])
def test_in_on_a_tensor_and_a_loop_else_clause(items, targets, dtype):
    expected = first_common_position(items, targets)
    assert convert(first_common_position)(items, targets) == expected
    got = function(first_common_position)(rt.constant(items, dtype), rt.constant(targets, dtype))
    assert int(got) == expected


def test_in_on_a_matrix_is_a_clear_error():
    with pytest.raises(TypeError, match=r"`in` on a tensor of shape \(2, 2\)"):
        function(first_common_position)(rt.constant([1, 2]), rt.constant([[1, 2], [3, 4]]))


def number_set_on_some_paths_of_a_loop(a, b):
    x = 0
    count = 0
    while count < 3 and a != 0:  # a tensor loop: every branch below is a graph branch
        count += 1
        if count != 2 or a > b:
            x %= 2
        else:
            x = a // 2
    return x


def counter_times_a_wide_number(n, big):
    total = 0
    i = 0
    while i < n:
        total = total + i * big
        i += 1
    return total


@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")  # a trace per dtype
@pytest.mark.parametrize("dtype", [rt.int64, rt.float64])
@pytest.mark.parametrize("a, b", [(7, 1), (-2**40, 3), (2**40, 2**41)])
def test_python_numbers_meet_wide_tensors_in_loops_and_branches(dtype, a, b):
    got = function(number_set_on_some_paths_of_a_loop)(rt.constant(a, dtype), rt.constant(b, dtype))
    assert got.dtype == dtype and got.numpy() == number_set_on_some_paths_of_a_loop(a, b)


def test_a_python_number_accumulating_a_wide_counter_product_widens():
    got = function(counter_times_a_wide_number)(rt.constant(4), rt.constant(2**40, rt.int64))
    assert got.dtype == rt.int64 and int(got) == counter_times_a_wide_number(4, 2**40)


def counter_mod_a_big_int(n):
    x = 0
    for i in range(n):
        x = (x + i * 7) % 10000000000000
    return x


def big_python_int_into_a_loop(n):
    x = 9999999999993
    i = 0
    while i < n:
        x = (x * 3) % 10000000000000
        i += 1
    return x


@pytest.mark.parametrize("fn", [counter_mod_a_big_int, big_python_int_into_a_loop])
@pytest.mark.parametrize("n", [0, 1, 5])
def test_python_ints_beyond_int32_widen_in_graph_loops_as_in_python(fn, n):
    got = function(fn)(rt.constant(n))
    assert int(got) == fn(n)


def _made_with_local_defaults():
    big = np.ones(3, np.float32)
    scale = 2.0

    def scaled(x, s=scale, *, shift=big):
        if x[0] > 0:
            x = x * s
        return x + shift
    return function(lambda x, big=big: x + big), function(scaled)


def test_defaults_naming_locals_of_the_defining_function_are_kept():
    add_big, scaled = _made_with_local_defaults()
    x = np.full(3, 2.0, np.float32)
    np.testing.assert_array_equal(add_big(x).numpy(), x + 1.0)
    np.testing.assert_array_equal(scaled(x).numpy(), x * 2.0 + 1.0)
    assert "s=scale" in to_code(scaled.python_function)
