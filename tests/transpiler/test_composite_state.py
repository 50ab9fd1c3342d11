"""Attributes and items changed inside tensor control flow are carried through it."""

import pytest

import runtime as rt
from transpiler import function, to_code


class Accumulator:
    def __init__(self):
        self.total = 0

    def add_below(self, n):
        i = 0
        while i < n:
            self.total += i
            i += 1
        return self.total


def split_by_sign(x):
    counts = {"pos": 0, "neg": 0}
    if x > 0:
        counts["pos"] = x
    else:
        counts["neg"] = x
    return counts["pos"], counts["neg"]


def running_pair(n):
    pair = [0, 1]
    for i in range(n):
        pair[0] = pair[0] + i
        pair[1] = pair[1] * 2 % 100
    return pair[0], pair[1]


def key_created_in_branches(x):
    d = {}
    if x > 0:
        d["k"] = x
    else:
        d["k"] = -x
    return d["k"]


@pytest.mark.parametrize("n", [0, 1, 5, 9])
def test_attribute_of_self_in_a_python_while_runs_as_python(n):
    accumulator = Accumulator()
    assert function(accumulator.add_below)(n) == Accumulator().add_below(n)
    assert accumulator.total == Accumulator().add_below(n)


def test_attribute_of_self_in_a_tensor_while_is_refused_and_left_unchanged():
    # A graph would compute self.total but could not store it back on each call.
    accumulator = Accumulator()
    with pytest.raises(ValueError, match=r"'self\.total' is changed by a while loop on a tensor at "
                                         r".*test_composite_state\.py:\d+, but it belongs to an "
                                         r"object from outside the function \(self\).*rt\.Variable"):
        function(accumulator.add_below)(rt.constant(3))
    assert accumulator.total == 0


def fill_by_sign(d, x):
    if x > 0:
        d["a"] = x
    else:
        d["a"] = -x


def abs_through_a_helper(x):
    d = {"a": 0}
    fill_by_sign(d, x)
    return d["a"]


@pytest.mark.parametrize("x", [-3, 0, 4])
def test_a_helper_may_change_an_object_the_trace_created(x):
    assert int(function(abs_through_a_helper)(rt.constant(x))) == abs_through_a_helper(x)


def test_a_helper_may_not_leave_graph_values_in_an_argument_of_the_trace():
    d = {"a": 0}
    with pytest.raises(ValueError, match=r"'d\['a'\]' is changed by an if statement on a tensor"):
        function(fill_by_sign)(d, rt.constant(2))
    assert d == {"a": 0}


@pytest.mark.parametrize("x", [-4, 0, 7])
def test_dict_items_in_a_tensor_if(x):
    got = function(split_by_sign)(rt.constant(x))
    assert tuple(int(v) for v in got) == split_by_sign(x)


@pytest.mark.parametrize("n", [0, 3, 12])
def test_list_items_in_a_tensor_for(n):
    got = function(running_pair)(rt.constant(n))
    assert tuple(int(v) for v in got) == running_pair(n)


def test_parts_are_named_in_the_generated_state():
    code = to_code(split_by_sign)
    assert "return (counts['neg'], counts['pos'])" in code
    assert "counts['neg'], counts['pos'] = state" in code


# A new function of the same Python function per parametrized case: the RetracingWarning
# the runtime gives for that is expected here.
@pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")
@pytest.mark.parametrize("x", [-2, 0, 2])
def test_a_key_first_set_in_both_branches_of_a_tensor_if(x):
    assert int(function(key_created_in_branches)(rt.constant(x))) == key_created_in_branches(x)
    assert function(key_created_in_branches)(x) == key_created_in_branches(x)


def key_created_in_one_branch(x):
    d = {"a": x}
    if x > 0:
        d["k"] = x
    return d


def test_a_key_first_set_in_one_branch_is_a_clear_value_error():
    assert function(key_created_in_one_branch)(2) == {"a": 2, "k": 2}
    with pytest.raises(ValueError, match=r"'d\['k'\]' is not assigned in the else branch of an if "
                                         r"statement on a tensor at .*test_composite_state\.py:\d+"
                                         r".*must also be initialized in the else branch"):
        function(key_created_in_one_branch)(rt.constant(2))


def missing_parent_key(x):
    d = {"a": {"a": x}}
    if x > 0:
        d["b"]["a"] = 1
    else:
        d["b"]["a"] = -1
    return d


@pytest.mark.parametrize("x", [2, rt.constant(2), rt.constant(-2)])
def test_a_missing_key_is_a_key_error_as_in_python(x):
    with pytest.raises(KeyError, match="'b'"):
        function(missing_parent_key)(x)


def key_first_set_in_a_loop(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y


@pytest.mark.parametrize("b", [1, 5, 10])
def test_a_key_first_set_in_a_tensor_loop(b):
    got = function(key_first_set_in_a_loop)(rt.constant(b))
    assert {k: int(v) for k, v in got.items()} == key_first_set_in_a_loop(b)


def test_a_key_first_set_in_a_tensor_loop_that_never_runs_fails_when_it_runs():
    with pytest.raises(rt.errors.InvalidArgumentError,
                       match=r"the while loop at .*test_composite_state\.py:\d+ ran zero times, so "
                             r"'y\['a'\]', first assigned inside it, has no value after it"):
        function(key_first_set_in_a_loop)(rt.constant(11))


def total_through_closure(n):
    total = 0

    def add(v):
        nonlocal total
        total += v

    for i in range(n):
        add(i)
    return total


@pytest.mark.parametrize("n", [0, 1, 4, 10])
def test_a_nested_function_assigning_nonlocal_inside_a_tensor_loop(n):
    assert int(function(total_through_closure)(rt.constant(n))) == total_through_closure(n)
