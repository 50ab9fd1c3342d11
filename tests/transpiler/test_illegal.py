"""Illegal cases with pinned error messages.

A program that a graph cannot run as Python would must fail with an error that names the
variable, the construct (``if statement``, ``while loop``, ``for loop``, ...), the user's file
and line, and says how to fix it. Never a silently different answer.

Sample functions live at module level so they have source and known lines: a ``# <-`` marker
comment flags the line each message must point at (``line_of`` finds it, nothing is
hard-coded). Messages are pinned with ``pytest.raises(..., match=...)`` on the parts that
matter. Cases where today's behaviour is wrong are ``xfail(strict=True)`` with the reason: the
test states the behaviour we want, and starts failing loudly (XPASS) once it is fixed.

Public API only: ``runtime`` and ``transpiler``'s ``function``, ``convert``, ``to_code``,
``do_not_convert``.
"""

from __future__ import annotations

import functools
import inspect
import operator
import os
import re
import warnings

import numpy as np
import pytest

import runtime as rt
from transpiler import convert, do_not_convert, function, to_code

HERE = os.path.basename(__file__)

ANY_ERROR = (TypeError, ValueError, NotImplementedError, NameError)


def line_of(fn, marker: str = "# <-") -> int:
    """The absolute line of ``fn``'s source that carries ``marker``."""
    lines, start = inspect.getsourcelines(fn)
    matches = [start + i for i, text in enumerate(lines) if marker in text]
    assert len(matches) == 1, f"{marker!r} must mark exactly one line of {fn.__name__}"
    return matches[0]


def where(fn, marker: str = "# <-") -> str:
    """A regex for ``<this file>:<line of the marker>`` (the file may come with a directory)."""
    return rf"\S*{re.escape(HERE)}:{line_of(fn, marker)}\b"


def t(value):
    return value if isinstance(value, rt.Tensor) else rt.constant(value)


def xfail(reason: str):
    return pytest.mark.xfail(strict=True, reason=reason)


# =============================================================================================
# 1. if statements on tensors: a variable used after the if must come out of both branches,
#    with one structure and one dtype.
# =============================================================================================


def set_only_in_if_branch(x):
    if x > 0:  # <-
        y = x + 1
    return y


def set_only_in_else_branch(x):
    if x > 0:  # <-
        pass
    else:
        y = x - 1
    return y


def set_in_all_but_elif(x):
    if x > 0:
        y = 1
    elif x < -5:  # <-
        z = 0  # noqa: F841
    else:
        y = 3
    return y


def deleted_in_one_branch(x):
    y = x
    if x > 0:  # <-
        del y
    return y


def deleted_in_the_else_branch(x):
    y = x
    if x > 0:  # <-
        y = y + 1
    else:
        del y
    return y


def deleted_in_both_branches(x):
    y = x
    if x > 0:
        del y
    else:
        del y
    return x


def branches_of_two_dtypes(x):
    if x > 0:  # <-
        y = rt.constant(1, rt.int32)
    else:
        y = rt.constant(1.0, rt.float32)
    return y


def returns_of_two_dtypes(x):
    if x > 0:  # <-
        return rt.constant(1)
    return rt.constant(1.0)


def none_in_one_branch(x):
    if x > 0:  # <-
        y = None
    else:
        y = x
    return y


def python_strings_in_branches(x):
    if x > 0:  # <-
        label = "positive"
    else:
        label = "negative"
    return label


def variable_of_two_structures(x):
    if x > 0:  # <-
        y = (x, x)
    else:
        y = x
    return y


def returns_of_two_structures(x):
    if x > 0:  # <-
        return x, x
    else:
        return x


def dicts_of_two_key_sets(x):
    if x > 0:  # <-
        d = {"a": x}
    else:
        d = {"b": x}
    return d


def returns_of_two_structures_from_a_loop(x):
    i = 0
    while i < 3:
        if x > i:
            return x, x
        i += 1
    return x


def returns_of_two_dtypes_from_a_loop(x):
    i = 0
    while i < 3:
        if x > i:
            return rt.constant(1, rt.int64)
        i += 1
    return rt.constant(1.0, rt.float64)


def value_on_some_paths_only(x):
    if x > 0:  # <-
        return x


class TestIfStatement:
    def test_variable_set_only_in_the_if_branch(self):
        with pytest.raises(ValueError, match=(
                rf"'y' is not assigned in the else branch of an if statement on a tensor at "
                rf"{where(set_only_in_if_branch)}, but it is used after the if statement\. .*"
                rf"Assign 'y' in the else branch too, or give it a value before the if statement")):
            function(set_only_in_if_branch)(t(1))

    def test_variable_set_only_in_the_else_branch(self):
        with pytest.raises(ValueError, match=(
                rf"'y' is not assigned in the if branch of an if statement on a tensor at "
                rf"{where(set_only_in_else_branch)}.*Assign 'y' in the if branch too")):
            function(set_only_in_else_branch)(t(1))

    def test_variable_missing_from_an_elif_points_at_the_elif(self):
        with pytest.raises(ValueError, match=rf"'y' is not assigned in the if branch of an if "
                                             rf"statement on a tensor at {where(set_in_all_but_elif)}"):
            function(set_in_all_but_elif)(t(1))

    def test_variable_deleted_in_one_branch(self):
        with pytest.raises(ValueError, match=rf"'y' is deleted in the if branch of an if statement "
                                             rf"on a tensor at {where(deleted_in_one_branch)}"):
            function(deleted_in_one_branch)(t(1))

    def test_variable_deleted_in_the_else_branch(self):
        with pytest.raises(ValueError, match=(
                rf"'y' is deleted in the else branch of an if statement on a tensor at "
                rf"{where(deleted_in_the_else_branch)} \(`del y`\), but it is used after the if "
                rf"statement\. .*Remove the `del y`")) as caught:
            function(deleted_in_the_else_branch)(t(1))
        assert "not assigned" not in str(caught.value)

    @pytest.mark.parametrize("dtype", [rt.int64, rt.float64])
    def test_variable_deleted_in_both_branches_and_not_used_after(self, dtype):
        x = rt.constant(np.array(3, dtype))
        result = function(deleted_in_both_branches)(x)
        assert result.dtype == dtype and result.numpy() == 3

    def test_the_python_path_keeps_pythons_own_errors(self):
        assert int(function(set_only_in_if_branch)(1)) == 2
        with pytest.raises(UnboundLocalError, match="'y'"):
            convert(set_only_in_if_branch)(-1)
        with pytest.raises(UnboundLocalError, match="'y'"):
            convert(deleted_in_one_branch)(1)

    def test_variable_of_two_dtypes(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'y' has dtype int32 in the true branch but float32 in the false branch of a "
                rf"tensor conditional \(at {where(branches_of_two_dtypes)}\).*rt\.cast")):
            function(branches_of_two_dtypes)(t(1))

    def test_return_values_of_two_dtypes(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'the return value' has dtype int32 in the true branch but float32 in the false "
                rf"branch of a tensor conditional \(at {where(returns_of_two_dtypes)}\).*rt\.cast")):
            function(returns_of_two_dtypes)(t(1))

    def test_none_in_one_branch(self):
        with pytest.raises(rt.errors.GraphValueError, match=(
                rf"'y' is None in the true branch of a tensor conditional but a value in the other "
                rf"\(at {where(none_in_one_branch)}\)\. Give it a value in both branches")):
            function(none_in_one_branch)(t(1))

    def test_python_values_that_differ_between_branches(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'label' is the Python str 'positive' in the true branch and the Python str "
                rf"'negative' in the false branch of a tensor conditional "
                rf"\(at {where(python_strings_in_branches)}\); a graph can only choose between "
                rf"tensors")):
            function(python_strings_in_branches)(t(1))

    def test_variable_of_two_structures(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'y'.*different structures.*true branch gives \(\*, \*\) and the false branch "
                rf"gives \*\W.*{where(variable_of_two_structures)}")) as caught:
            function(variable_of_two_structures)(t(1))
        assert "the return value" not in str(caught.value)

    def test_return_values_of_two_structures(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"return value.*different structures.*true branch gives \(\*, \*\) and the false "
                rf"branch gives \*\W.*{where(returns_of_two_structures)}")):
            function(returns_of_two_structures)(t(1))

    def test_variable_of_two_structures_names_only_that_variable(self):
        with pytest.raises(rt.errors.GraphStructureError, match=(
                rf"for 'd' return different structures: the true branch gives \{{'a': \*\}} and "
                rf"the false branch gives \{{'b': \*\}} \(at {where(dicts_of_two_key_sets)}\)\. "
                rf".*make both branches assign 'd' the same kind of value")):
            function(dicts_of_two_key_sets)(t(1))

    def test_return_values_of_two_structures_through_a_loop(self):
        with pytest.raises(rt.errors.GraphStructureError, match=(
                r"for the return value return different structures: the true branch gives \* and "
                r"the false branch gives \(\*, \*\)")) as caught:
            function(returns_of_two_structures_from_a_loop)(t(1))
        assert "retval" not in str(caught.value) and "do_return" not in str(caught.value)

    def test_return_values_of_two_dtypes_through_a_loop(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                r"'the return value' has dtype float64 in the true branch but int64 in the false "
                r"branch")) as caught:
            function(returns_of_two_dtypes_from_a_loop)(t(1))
        assert "retval" not in str(caught.value)

    def test_a_value_returned_on_some_paths_only(self):
        with pytest.raises(ValueError, match=(
                rf"the function returns None on some paths .* if statement at "
                rf"{where(value_on_some_paths_only)}: .*`return <value>`")):
            function(value_on_some_paths_only)(t(1))


# =============================================================================================
# 2. Loops on tensors: loop variables exist before the loop and keep dtype, shape, structure.
# =============================================================================================


def accumulates_from_undefined(n):
    i = 0
    while i < n:  # <-
        acc = acc + i if i > 0 else i  # noqa: F821 (the point of the sample)
        i += 1
    return i


def last_item_only_inside_for(n):
    for i in range(n):  # <-
        last = i * 2
    return last


def none_before_while(n):
    x = None
    i = 0
    while i < n:  # <-
        x = i
        i += 1
    return x


def dtype_changes_in_while(x, n):
    i = 0
    while i < n:  # <-
        x = rt.cast(x, rt.float32) * 1.5
        i += 1
    return x


def dtype_changes_in_for(n):
    x = rt.constant(1)
    for i in range(n):  # <-
        x = x / 2
    return x


def shape_changes_in_while(n):
    v = rt.zeros([1])
    i = 0
    while i < n:  # <-
        v = rt.concat([v, v], 0)
        i += 1
    return v


def shape_changes_in_for(n):
    v = rt.zeros([1])
    for i in range(n):  # <-
        v = rt.concat([v, v], 0)
    return v


def rank_changes_in_while(n):
    v = rt.zeros([2])
    i = 0
    while i < n:  # <-
        v = rt.reshape(v, [1, 2])
        i += 1
    return v


def becomes_none_in_while(n):
    s = rt.constant(0)
    i = 0
    while i < n:  # <-
        s = None
        i += 1
    return s


def becomes_a_string_in_for(n):
    s = 0
    for i in range(n):  # <-
        s = "done"
    return s


def tuple_becomes_tensor_in_while(n):
    s = (rt.constant(0), rt.constant(0))
    i = 0
    while i < n:  # <-
        s = rt.constant(1)
        i += 1
    return s


def list_grows_in_for(n):
    s = [rt.constant(0)]
    for i in range(n):  # <-
        s = [rt.constant(0), rt.constant(1)]
    return s


def deleted_in_a_loop_body(n):
    y = n
    i = 0
    while i < n:  # <-
        del y
        i += 1
    return y


def bare_return_in_tensor_loop(n):
    i = 0
    while i < n:  # <-
        if i * i > 5:
            return
        i += 1
    return i


def bare_return_in_tensor_for(n):
    total = n - n
    for i in range(n):  # <-
        if i * i > 5:
            return
        total += i
    return total


def returns_none_on_every_path_from_a_loop(n):
    i = n - n
    while i < n:
        if i * i > 5:
            return
        i += 1


def returns_none_explicitly_from_a_loop(n):
    i = n - n
    while i < n:
        if i * i > 5:
            return None
        i += 1
    return None


def bare_return_in_nested_loops(n):
    for i in range(n):  # <-
        j = i
        while j > 0:
            if j * i > 5:
                return
            j -= 1
    return n


class TestLoops:
    def test_variable_read_before_its_first_assignment_in_the_loop(self):
        with pytest.raises(ValueError, match=(
                rf"'acc' has no value before a loop on a tensor at "
                rf"{where(accumulates_from_undefined)}, and the loop body reads it before "
                rf"assigning it .*: it must be defined before the loop")):
            function(accumulates_from_undefined)(t(3))

    def test_variable_first_assigned_in_the_loop_is_defined_when_the_loop_runs(self):
        assert int(function(last_item_only_inside_for)(t(3))) == last_item_only_inside_for(3)
        with pytest.raises(rt.errors.InvalidArgumentError, match=(
                rf"the for loop at {where(last_item_only_inside_for)} ran zero times, so 'last', "
                rf"first assigned inside it, has no value after it")):
            function(last_item_only_inside_for)(t(0))

    def test_variable_that_is_none_before_the_loop(self):
        with pytest.raises(ValueError, match=(
                rf"'x' is None before a loop on a tensor at {where(none_before_while)}; .*"
                rf"Initialize it with a value of the type it has inside the loop")):
            function(none_before_while)(t(3))

    def test_dtype_change_in_a_while_loop(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'x' has dtype int32 before the loop, but dtype float32 after one iteration "
                rf"\(at {where(dtype_changes_in_while)}\)\. .*cast it with rt\.cast")):
            function(dtype_changes_in_while)(t(1), t(3))

    def test_dtype_change_in_a_for_loop(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'x' has dtype int32 before the loop, but dtype float64 after one iteration "
                rf"\(at {where(dtype_changes_in_for)}\)\. .*rt\.cast")):
            function(dtype_changes_in_for)(t(3))

    @pytest.mark.parametrize("fn, before, after", [
        (shape_changes_in_while, r"\(1,\)", r"\(2,\)"),
        (shape_changes_in_for, r"\(1,\)", r"\(2,\)"),
        (rank_changes_in_while, r"\(2,\)", r"\(1, 2\)"),
    ])
    def test_shape_change_in_a_loop(self, fn, before, after):
        with pytest.raises(rt.errors.ShapeError, match=(
                rf"'v' has shape {before} before the loop, but shape {after} after one iteration "
                rf"\(at {where(fn)}\)\. .*shape_invariants")):
            function(fn)(t(3))

    def test_variable_that_becomes_none(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'s' is None at the end of an iteration of a tensor loop "
                rf"\(at {where(becomes_none_in_while)}\); it must stay an? int32 tensor")):
            function(becomes_none_in_while)(t(3))

    def test_variable_that_becomes_a_python_string(self):
        with pytest.raises(rt.errors.GraphTypeError, match=(
                rf"'s' is the Python str 'done' at the end of an iteration of a tensor loop "
                rf"\(at {where(becomes_a_string_in_for)}\)")):
            function(becomes_a_string_in_for)(t(3))

    def test_structure_change_is_an_error_at_the_loop(self):
        for fn in (tuple_becomes_tensor_in_while, list_grows_in_for):
            with pytest.raises(rt.errors.GraphTypeError, match=(
                    rf"after one iteration of the (while|for) loop at {where(fn)}: the loop body "
                    rf"changes the structure of 's'")):
                function(fn)(t(3))

    @pytest.mark.parametrize("fn", [tuple_becomes_tensor_in_while, list_grows_in_for])
    def test_structure_change_names_the_variable(self, fn):
        with pytest.raises(rt.errors.GraphTypeError, match=rf"'s'.*structure.*{where(fn)}"):
            function(fn)(t(3))

    def test_bare_return_inside_a_tensor_loop(self):
        with pytest.raises(ANY_ERROR, match=(
                rf"returns None on some paths.*{where(bare_return_in_tensor_loop)}.*"
                rf"`return <value>`")) as caught:
            function(bare_return_in_tensor_loop)(t(10))
        assert "retval" not in str(caught.value) and "Undefined" not in str(caught.value)

    def test_variable_deleted_in_a_loop_body(self):
        with pytest.raises(ValueError, match=(
                rf"'y' is deleted in the body of the while loop at {where(deleted_in_a_loop_body)} "
                rf"\(`del y`\), but it is used after the loop or in the next iteration\. "
                rf".*remove the `del y`")) as caught:
            function(deleted_in_a_loop_body)(t(3))
        assert "Undefined" not in str(caught.value)

    def test_bare_return_inside_a_tensor_for_loop(self):
        with pytest.raises(ValueError, match=(
                rf"returns None on some paths and a value on others.*inside the for loop at "
                rf"{where(bare_return_in_tensor_for)}.*`return <value>`")) as caught:
            function(bare_return_in_tensor_for)(t(10))
        assert "retval" not in str(caught.value) and "Undefined" not in str(caught.value)

    def test_bare_return_inside_nested_tensor_loops_names_each_construct(self):
        with pytest.raises(ValueError, match=(
                rf"in the if statement at \S*{HERE}:\d+, inside the while loop at \S*{HERE}:\d+, "
                rf"inside the for loop at {where(bare_return_in_nested_loops)}")):
            function(bare_return_in_nested_loops)(t(10))

    @pytest.mark.parametrize("fn", [returns_none_on_every_path_from_a_loop,
                                    returns_none_explicitly_from_a_loop])
    @pytest.mark.parametrize("dtype", [rt.int64, rt.float64])
    @pytest.mark.parametrize("n", [0, 2, 10])
    def test_returning_none_on_every_path_from_a_tensor_loop_is_python(self, fn, dtype, n):
        assert fn(n) is None
        assert function(fn)(rt.constant(np.array(n, dtype))) is None

    def test_loops_with_python_values_run_as_python(self):
        assert float(function(dtype_changes_in_for)(2)) == 0.25
        assert function(becomes_a_string_in_for)(2) == "done"
        with pytest.raises(UnboundLocalError, match="'last'"):
            convert(last_item_only_inside_for)(0)


# =============================================================================================
# 3. The construct is named: the user wrote an `if`, a `while`, a `for`, a ternary or an `and`,
#    and the message says which (several messages still say "a loop" or "a tensor conditional",
#    or nothing at all).
# =============================================================================================


def ternary_of_two_dtypes(x):
    return rt.constant(1) if x > 0 else rt.constant(2.0)  # <-


def ternary_of_two_structures(x):
    y = (x, x) if x > 0 else x  # <-
    return y


def and_of_two_dtypes(x):
    return x > 0 and x  # <-


def accumulates_from_undefined_in_for(n):
    for i in range(n):  # <-
        acc = acc + i  # noqa: F821 (the point of the sample)
    return acc


CONSTRUCT_CASES = [
    pytest.param(set_only_in_if_branch, (1,), r"if statement", id="if-undefined"),
    pytest.param(branches_of_two_dtypes, (1,), r"if statement", id="if-dtype"),
    pytest.param(none_in_one_branch, (1,), r"if statement", id="if-none"),
    pytest.param(accumulates_from_undefined, (3,), r"while loop", id="while-undefined"),
    # With a positive count the for loop defines 'last' and the graph returns it, as Python
    # does: no error to name anything. With 0 Python raises UnboundLocalError; the graph raises
    # at run time, naming the for loop and its line.
    pytest.param(last_item_only_inside_for, (0,), r"for loop", id="for-undefined"),
    pytest.param(accumulates_from_undefined_in_for, (3,), r"for loop", id="for-read-undefined"),
    pytest.param(none_before_while, (3,), r"while loop", id="while-none-before"),
    pytest.param(dtype_changes_in_for, (3,), r"for loop", id="for-dtype"),
    pytest.param(shape_changes_in_while, (3,), r"while loop", id="while-shape"),
    pytest.param(becomes_none_in_while, (3,), r"while loop", id="while-becomes-none"),
    pytest.param(ternary_of_two_dtypes, (1,), r"conditional expression", id="ternary-dtype"),
    pytest.param(ternary_of_two_structures, (1,), r"conditional expression",
                 id="ternary-structure"),
    pytest.param(and_of_two_dtypes, (1.0,), r"`and`|and expression|boolean operation",
                 id="and-dtype"),
]


@pytest.mark.parametrize("fn, args, construct", CONSTRUCT_CASES)
def test_messages_name_the_construct_and_the_line(fn, args, construct):
    with pytest.raises(ANY_ERROR, match=rf"(?s)({construct}).*{where(fn)}|{where(fn)}.*({construct})"):
        function(fn)(*[t(a) for a in args])


def test_ternary_of_two_structures_is_an_error_at_its_line():
    with pytest.raises(rt.errors.GraphTypeError, match=(
            rf"return different structures: the true branch gives \(\*, \*\) and the false branch "
            rf"gives \* \(at {where(ternary_of_two_structures)}\)\. A conditional must return the "
            rf"same nested structure in both branches")) as info:
        function(ternary_of_two_structures)(t(1))
    assert isinstance(info.value, ValueError)  # what TensorFlow raises for conditionals


# =============================================================================================
# 4. Conditions must be scalars.
# =============================================================================================


def if_on_a_vector(x):
    if x > 0:  # <-
        return x
    return -x


def while_on_a_vector(x):
    while x > 0:  # <-
        x = x - 1
    return x


def ternary_on_a_vector(x):
    return x if x > 0 else -x  # <-


def and_on_vectors(x):
    if x > 0 and x < 5:  # <-
        return x
    return -x


def not_of_a_vector(x):
    return not x  # <-


class TestConditions:
    @pytest.mark.parametrize("fn, construct", [
        (if_on_a_vector, "an if statement"),
        (while_on_a_vector, "a tensor while loop"),
        (ternary_on_a_vector, "a conditional expression"),
    ])
    def test_a_non_scalar_condition(self, fn, construct):
        with pytest.raises(ValueError, match=(
                rf"the condition of {construct} must be a scalar, got a tensor of shape \(2,\).*"
                rf"\(at {where(fn)}\)\. Reduce it with rt\.reduce_all or rt\.reduce_any")):
            function(fn)(t([1.0, 2.0]))

    def test_a_non_scalar_condition_on_eager_tensors(self):
        with pytest.raises(ValueError, match=(
                rf"the condition of an if statement must be a scalar, got a tensor of shape "
                rf"\(2,\) \(at {where(if_on_a_vector)}\)")):
            convert(if_on_a_vector)(t([1.0, 2.0]))

    def test_a_non_scalar_operand_of_and(self):
        with pytest.raises(ValueError, match=rf"(`and`|and expression).*must be a scalar.*"
                                             rf"{where(and_on_vectors)}"):
            function(and_on_vectors)(t([1.0, 2.0]))

    def test_not_of_a_vector_is_an_error_as_in_python(self):
        with pytest.raises(TypeError, match=r"ambiguous"):
            convert(not_of_a_vector)(t([1.0, 2.0]))  # eager: Python's answer, an error
        with pytest.raises(ANY_ERROR, match=rf"scalar.*{where(not_of_a_vector)}"):
            function(not_of_a_vector)(t([1.0, 2.0]))


# =============================================================================================
# 5. Syntax the transpiler does not convert.
# =============================================================================================


def generator(n):
    for i in range(n):
        yield i  # <-


def delegating_generator(n):
    yield from range(n)  # <-


async def coroutine(x):  # <-
    return x


def uses_a_local_generator(x):
    def numbers():
        yield 1
        yield 2
    s = 0
    for v in numbers():
        s += v
    return x + s


def uses_a_local_generator_with_a_loop(x):
    def evens():
        for k in range(4):
            if k % 2 == 0:
                yield x * k
    total = x - x
    for v in evens():
        if v > 4:
            total = total + v
        else:
            total = total - v
    return total


def match_on_a_tensor(x):
    match x:  # <-
        case 1:
            return 10
        case _:
            return 20


def raises_in_a_tensor_branch(x):
    if x > 0:  # <-
        raise ValueError("x must not be positive")
    return x


def raises_in_the_else_branch(x):
    if x > 0:  # <-
        y = x
    else:
        raise ValueError("x must be positive")  # raised here
    return y


def refuse(message):
    raise TypeError(message)  # raised here


def calls_a_raising_helper_in_a_branch(x):
    if x > 0:  # <-
        refuse("no positive x")
    return x


def raises_in_a_tensor_loop_body(x, n, limit):
    while x < n:  # <-
        x = x + 1
        if limit < 0:
            raise ValueError("limit must not be negative")
    return x


def checks_with_assert_instead_of_raise(x):
    rt.assert_(rt.logical_not(x > 0), "x must not be positive")
    return x


def list_set_by_a_loop_counter(n):
    values = [0, 0, 0]
    for i in range(n):
        values[i] = i
    return values


def zip_of_a_tensor_and_a_list(x):
    s = 0.0
    for a, b in zip(x, [1.0, 2.0]):
        s += a * b
    return s


def op_error_in_a_tensor_branch(x):
    if x > 0:  # <-
        x = rt.reshape(x, [2, 3])
    return x


def comprehension_over_a_tensor(x):
    y = x * 2
    return [v + 1 for v in y]  # <-


class TestUnsupportedSyntax:
    def test_yield(self):
        with pytest.raises(NotImplementedError, match=(
                rf"generator cannot be converted: it uses a generator \(yield; generators are not converted\) at "
                rf"{where(generator)} \(`yield i[^`]*`\), which a graph cannot express\. To fix it, .*"
                rf"do_not_convert")):
            function(generator)

    def test_yield_from(self):
        with pytest.raises(NotImplementedError, match=(
                rf"it uses a generator \(yield from; generators are not converted\) at {where(delegating_generator)} "
                rf"\(`yield from range\(n\)[^`]*`\).*do_not_convert")):
            function(delegating_generator)

    def test_async_def(self):
        with pytest.raises(NotImplementedError, match=(
                rf"Cannot convert coroutine at {where(coroutine)}: async functions are not "
                rf"supported\. Call it as plain Python, or make it a regular def")):
            function(coroutine)

    def test_a_local_generator_function_is_left_as_python(self):
        assert int(function(uses_a_local_generator)(t(1))) == 4

    @pytest.mark.parametrize("dtype", [rt.int64, rt.float64])
    def test_a_local_generator_with_control_flow_and_tensors(self, dtype):
        x = rt.constant(np.array(3, dtype))
        result = function(uses_a_local_generator_with_a_loop)(x)
        assert result.dtype == dtype
        assert result.numpy() == uses_a_local_generator_with_a_loop(np.array(3, dtype))

    def test_a_local_generator_keeps_its_code_as_written(self):
        code = to_code(uses_a_local_generator_with_a_loop)
        generator = code[code.index("def evens():"):code.index("total = x - x")]
        assert "for k in range(4):" in generator and "if k % 2 == 0:" in generator, code
        assert "yield" in generator and "ag__" not in generator, code

    def test_match_on_a_tensor(self):
        with pytest.raises(ANY_ERROR, match=rf"match.*{where(match_on_a_tensor)}"):
            function(match_on_a_tensor)(t(1))

    def test_match_on_python_values_runs_as_python(self):
        assert function(match_on_a_tensor)(1) == 10
        assert function(match_on_a_tensor)(2) == 20

    def test_raise_inside_a_tensor_branch(self):
        with pytest.raises(ANY_ERROR, match=rf"(?s)raise.*{where(raises_in_a_tensor_branch)}.*"
                                            rf"rt\.assert_"):
            function(raises_in_a_tensor_branch)(t(-2))

    def test_raise_message_names_the_raise_the_if_and_the_original_error(self):
        with pytest.raises(NotImplementedError, match=(
                rf"a `raise` statement \(at {where(raises_in_the_else_branch, '# raised here')}\) "
                rf"runs while tracing a branch of the if statement on a tensor at "
                rf"{where(raises_in_the_else_branch)}: a graph traces both branches.*"
                rf"\(ValueError: x must be positive\).*rt\.assert_")) as caught:
            function(raises_in_the_else_branch)(t(2))
        assert isinstance(caught.value.__cause__, ValueError)

    def test_raise_in_a_helper_called_from_a_tensor_branch(self):
        with pytest.raises(NotImplementedError, match=(
                rf"a `raise` statement \(at {where(refuse, '# raised here')}\) runs while tracing "
                rf"a branch of the if statement on a tensor at "
                rf"{where(calls_a_raising_helper_in_a_branch)}.*\(TypeError: no positive x\)")):
            function(calls_a_raising_helper_in_a_branch)(t(-1))

    def test_raise_in_a_tensor_loop_body(self):
        with pytest.raises(NotImplementedError, match=(
                rf"a `raise` statement .* runs while tracing the body of the while loop on a "
                rf"tensor at {where(raises_in_a_tensor_loop_body)}: a graph traces the body once")):
            function(raises_in_a_tensor_loop_body)(t(5), t(3), -1)
        assert int(function(raises_in_a_tensor_loop_body)(t(5), t(3), 1)) == 5

    @pytest.mark.parametrize("value", [-2, 3])
    def test_raise_on_python_values_and_eager_tensors_is_python(self, value):
        for call in (convert(raises_in_a_tensor_branch), raises_in_a_tensor_branch):
            if value > 0:
                with pytest.raises(ValueError, match="x must not be positive"):
                    call(value)
            else:
                assert call(value) == value
        if value > 0:
            with pytest.raises(ValueError, match="x must not be positive"):
                convert(raises_in_a_tensor_branch)(t(value))
        else:
            assert int(convert(raises_in_a_tensor_branch)(t(value))) == value

    @pytest.mark.parametrize("dtype", [rt.int64, rt.float64])
    def test_the_suggested_rt_assert_checks_when_the_graph_runs(self, dtype):
        checked = function(checks_with_assert_instead_of_raise)
        result = checked(rt.constant(np.array(-2, dtype)))
        assert result.dtype == dtype and result.numpy() == -2
        with pytest.raises(rt.errors.InvalidArgumentError, match="x must not be positive"):
            checked(rt.constant(np.array(3, dtype)))

    def test_an_op_error_in_a_tensor_branch_is_not_taken_for_a_raise(self):
        with pytest.raises(ANY_ERROR) as caught:
            function(op_error_in_a_tensor_branch)(t(1.0))
        assert "`raise` statement" not in str(caught.value)

    def test_comprehension_over_a_tensor_says_to_write_a_for_statement(self):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=(
                r"Iterating over a symbolic tensor .*\(comprehensions, generator expressions, "
                r"sum\(\) and unpacking are not converted: write a `for` statement")):
            function(comprehension_over_a_tensor)(t([1, 2]))

    def test_a_python_list_indexed_by_a_loop_counter_says_to_keep_a_tensor(self):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=(
                r"\(%the_loop_index: i32\[\], a variable of a graph loop or branch, such as a "
                r"loop's counter\).*A Python list cannot be indexed by a tensor \(a graph "
                r"loop's counter is one\).*rt.TensorArray")):
            function(list_set_by_a_loop_counter)(t(3))

    def test_zip_of_a_tensor_and_a_python_list_says_to_make_the_list_a_tensor(self):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=(
                r"a zip\(\) of a tensor and a Python list is not either: make the list a "
                r"tensor with rt.constant")):
            function(zip_of_a_tensor_and_a_list)(t([1.0, 2.0]))


# =============================================================================================
# 6. Functions without source run as they are, with one warning giving the reason.
# =============================================================================================


def _exec_function(source: str, name: str):
    namespace = {"rt": rt}
    exec(source, namespace)
    return namespace[name]


def _conversion_warnings(action):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = action()
    return result, [str(w.message) for w in caught if "runs as plain Python" in str(w.message)]


class TestFunctionsWithoutSource:
    def test_a_lambda_created_by_exec(self):
        fn = _exec_function("double = lambda x: x * 2", "double")

        def twice():
            wrapped = function(fn)
            first = wrapped(t(3))
            function(fn)(t(4))
            return first

        result, messages = _conversion_warnings(twice)
        assert int(result) == 6
        assert len(messages) == 1, messages
        assert re.search(r"Cannot read the source code of <lambda> \(no source text is available "
                         r"for file '<string>'\)\. .*created with exec\(\) have no source file.*"
                         r"runs as plain Python", messages[0]), messages[0]

    def test_a_builtin(self):
        result, messages = _conversion_warnings(lambda: function(operator.neg)(t(2.0)))
        assert float(result) == -2.0
        assert len(messages) == 1, messages
        assert re.search(r"Cannot convert <built-in function neg>: it is a "
                         r"builtin_function_or_method, not a Python function\..*runs as plain "
                         r"Python", messages[0]), messages[0]

    def test_a_partial_of_a_builtin(self):
        partial = functools.partial(operator.add, 1)
        result, messages = _conversion_warnings(lambda: function(partial)(t(2)))
        assert int(result) == 3
        assert len(messages) == 1 and "Cannot convert <built-in function add>" in messages[0], \
            messages

    def test_to_code_of_a_function_without_source_raises(self):
        fn = _exec_function("def no_source(x):\n    return x\n", "no_source")
        with pytest.raises(ValueError, match=r"Cannot read the source code of no_source .*exec\(\)"):
            to_code(fn)
        with pytest.raises(ValueError, match=r"Cannot show generated code for <built-in function "
                                             r"neg>: it is not a Python function"):
            to_code(operator.neg)

    def test_tensor_if_in_a_function_without_source(self):
        fn = _exec_function("def sign(x):\n    if x > 0:\n        return 1\n    return -1\n", "sign")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            wrapped = function(fn)
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                           match=r"sign.*(not converted|could not be converted).*source"):
            wrapped(t(1))


# =============================================================================================
# 7. Tensors used where Python needs a value, without conversion (rt.function, do_not_convert).
# =============================================================================================


def bool_of_symbolic(x):
    positive = x > 0
    if positive:  # <-
        return x
    return -x


def int_of_symbolic(x):
    y = x * 2
    return int(y) + 1  # <-


def len_of_symbolic(x):
    y = x * 2
    return len(y)  # <-


def iterate_symbolic(x):
    y = x * 2
    s = 0.0
    for v in y:  # <-
        s += v
    return s


def numpy_of_symbolic(x):
    y = x * 2
    return y.numpy()  # <-


def bool_builtin_on_symbolic(x):
    y = x * 2
    return bool(y)  # <-


@do_not_convert
def left_as_python(x):
    if x > 0:
        return x
    return -x


def calls_code_left_as_python(x):
    return left_as_python(x) + 1


# (function, argument, message); rt.function traces with the argument's unknown-length spec
# where a known length would make the use legal (len of a (1,)-tensor is the Python int 1).
MISUSES = [
    (bool_of_symbolic, 1.0, r"Using as a Python bool a symbolic tensor .* Functions converted with "
                            r"transpiler\.function turn if/while/and/or/not on tensors into graph "
                            r"control flow .* otherwise use rt\.cond / rt\.while_loop explicitly"),
    (int_of_symbolic, 1.5, r"Converting to int a symbolic tensor .* Use rt\.cast\(x, rt\.int32\)"),
    (len_of_symbolic, [1.5], r"Taking len\(\) of a symbolic tensor .* Use rt\.shape\(x\)\[0\]"),
    (iterate_symbolic, [1.5], r"Iterating over a symbolic tensor .* turn a `for` statement over a "
                              r"tensor into a graph loop"),
    (numpy_of_symbolic, 1.5, r"Calling \.numpy\(\) on a symbolic tensor .* call \.numpy\(\) on the "
                             r"result"),
]


def _traced_with_unknown_length(fn, arg):
    value = t(arg)
    shape = [None] * len(value.shape)
    return rt.function(fn, input_signature=[rt.TensorSpec(shape, value.dtype)])(value)


class TestTensorUsedAsPythonValue:
    @pytest.mark.parametrize("fn, arg, pattern", MISUSES, ids=[m[0].__name__ for m in MISUSES])
    def test_in_rt_function_the_error_says_how_to_fix_it(self, fn, arg, pattern):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=pattern):
            _traced_with_unknown_length(fn, arg)

    @pytest.mark.parametrize("fn, arg, pattern", MISUSES, ids=[m[0].__name__ for m in MISUSES])
    def test_in_rt_function_the_error_names_the_line_of_the_misuse(self, fn, arg, pattern):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=where(fn)):
            _traced_with_unknown_length(fn, arg)

    def test_code_called_from_converted_code_but_left_as_python(self):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError, match=(
                r"Using as a Python bool a symbolic tensor .*code they call that is not converted")):
            function(calls_code_left_as_python)(t(1))

    def test_bool_builtin_in_converted_code(self):
        with pytest.raises(rt.errors.OperatorNotAllowedInGraphError,
                           match=where(bool_builtin_on_symbolic)):
            function(bool_builtin_on_symbolic)(t(1))

    def test_int_of_a_symbolic_tensor_in_converted_code_truncates_like_python(self):
        for value in (2.7, -2.7):
            assert int(function(int_of_symbolic)(t(value))) == int(value * 2) + 1


def len_of_a_scalar(x):
    y = x * 2
    return len(y)  # <-


def iterate_a_scalar(x):
    s = 0.0
    for v in x:  # <-
        s += v
    return s


def range_of_a_float(x):
    s = 0
    for i in range(x):
        s += i
    return s


class TestBuiltinsOnTensorsInConvertedCode:
    def test_len_of_a_scalar_tensor(self):
        with pytest.raises(TypeError, match=rf"len\(\) of a scalar tensor.*{where(len_of_a_scalar)}"):
            function(len_of_a_scalar)(t(1.5))

    def test_iterating_over_a_scalar_tensor(self):
        with pytest.raises(TypeError, match=rf"cannot iterate over a scalar tensor at "
                                            rf"{where(iterate_a_scalar)}"):
            function(iterate_a_scalar)(t(1.5))

    def test_range_of_a_float_in_python(self):
        with pytest.raises(TypeError):
            range_of_a_float(3.0)
        with pytest.raises(TypeError, match="integer"):
            convert(range_of_a_float)(t(3.0))  # eager tensor: refused like Python

    def test_range_of_a_float_symbolic_tensor(self):
        with pytest.raises(TypeError, match=r"range.*float32|float32.*range"):
            function(range_of_a_float)(t(3.0))


# =============================================================================================
# 8. Never a silently different answer: state that outlives the call, evaluation order, traced
#    branches. Each must either match Python or raise an error naming the variable and line.
# =============================================================================================

COUNTER = 0


def sets_a_global_in_a_tensor_if(x):
    global COUNTER
    if x > 0:  # <-
        COUNTER = 1
    else:
        COUNTER = 2
    return x


class Box:
    def __init__(self):
        self.total = 0


BOX = Box()


def sets_an_outside_attribute_in_a_tensor_if(x):
    if x > 0:  # <-
        BOX.total = BOX.total + x
    return x


def make_counter():
    count = 0

    def bump(x):
        nonlocal count
        if x > 0:  # <-
            count += 1
        return x
    return bump, lambda: count


calls_of_middle = []


def middle_operand():
    calls_of_middle.append(1)
    return 5


def chained_comparison(x):
    return 0 < middle_operand() < x


def _python_or_named_error(call, read_back, expected, name: str, fn):
    """Passes if the call leaves ``expected`` behind, or raises an error naming ``name``
    and the marked line of ``fn``."""
    try:
        call()
    except ANY_ERROR as error:
        message = str(error)
        assert name in message and re.search(where(fn), message), message
        return
    value = read_back()
    try:
        got = np.asarray(value).item()
    except Exception:  # a symbolic tensor left over from the trace
        pytest.fail(f"{name} is {value!r} after the call; Python leaves {expected!r}")
    assert got == expected, f"{name} is {value!r} after the call; Python leaves {expected!r}"


class TestNoSilentlyDifferentAnswer:
    def test_global_assigned_under_a_tensor_if(self):
        global COUNTER
        COUNTER = 0
        _python_or_named_error(lambda: function(sets_a_global_in_a_tensor_if)(t(3)),
                               lambda: COUNTER, 1, "COUNTER", sets_a_global_in_a_tensor_if)

    def test_outside_attribute_assigned_under_a_tensor_if(self):
        BOX.total = 0
        _python_or_named_error(lambda: function(sets_an_outside_attribute_in_a_tensor_if)(t(3)),
                               lambda: BOX.total, 3, "BOX.total",
                               sets_an_outside_attribute_in_a_tensor_if)

    def test_nonlocal_assigned_under_a_tensor_if(self):
        bump, read = make_counter()
        _python_or_named_error(lambda: function(bump)(t(3)), read, 1, "count", bump)

    def test_chained_comparison_evaluates_the_middle_operand_once(self):
        calls_of_middle.clear()
        assert chained_comparison(10) is True
        python_calls = len(calls_of_middle)
        calls_of_middle.clear()
        assert bool(convert(chained_comparison)(10)) is True
        assert len(calls_of_middle) == python_calls == 1


# =============================================================================================
# 9. Arguments that do not fit a traced function.
# =============================================================================================


def doubled(x):
    return x * 2


class TestArguments:
    @pytest.mark.parametrize("arg, got", [
        (rt.constant([1, 2]), r"a tensor of dtype int32 and shape \(2,\)"),
        # A NumPy array takes the signature's dtype (as in TensorFlow); its shape must fit.
        (np.array([[1.0]]), r"a tensor of dtype float32 and shape \(1, 1\)"),
        (1.0, r"a tensor of dtype float32 and shape \(\)"),
        ("abc", r"str 'abc'"),
        ({"a": 1}, r"dict \{'a': 1\}"),
    ], ids=["int32", "float64-matrix", "scalar", "str", "dict"])
    def test_argument_that_does_not_match_the_input_signature(self, arg, got):
        fn = function(doubled, input_signature=[rt.TensorSpec([None], rt.float32)])
        with pytest.raises(TypeError, match=(
                rf"doubled\(\) argument 'x' does not match the input_signature: expected float32 "
                rf"with shape \(None,\), got {got}\. Pass a matching tensor, or widen the "
                rf"TensorSpec")):
            fn(arg)

    def test_too_many_arguments(self):
        with pytest.raises(TypeError, match=r"doubled\(\): too many positional arguments"):
            function(doubled)(t(1), t(2))

    def test_missing_argument(self):
        with pytest.raises(TypeError, match=r"doubled\(\): missing a required argument: 'x'"):
            function(doubled)()

    def test_unknown_keyword_argument(self):
        with pytest.raises(TypeError, match=r"unexpected keyword argument 'y'"):
            function(doubled)(y=t(1))

    def test_input_signature_of_the_wrong_length(self):
        spec = rt.TensorSpec([None], rt.float32)
        with pytest.raises(TypeError, match=r"input_signature of doubled has 2 entries but the "
                                            r"function takes 1 positional parameters"):
            function(doubled, input_signature=[spec, spec])(t([1.0]))

    def test_input_signature_of_something_else_than_specs(self):
        with pytest.raises(TypeError, match=r"input_signature of doubled must contain only "
                                            r"rt\.TensorSpec objects, got 3"):
            function(doubled, input_signature=[3])(t([1.0]))

    @pytest.mark.parametrize("arg, got", [
        (rt.constant([1.0, 2.0, 3.0]), r"a tensor of dtype float32 and shape \(3,\)"),
        (rt.constant([1, 2]), r"a tensor of dtype int32 and shape \(2,\)"),
        ([1.0, 2.0], r"the Python list \[1\.0, 2\.0\]"),
    ], ids=["shape", "dtype", "list"])
    def test_concrete_function_called_with_other_arguments(self, arg, got):
        concrete = function(doubled).get_concrete_function(rt.TensorSpec([2], rt.float32))
        with pytest.raises(TypeError, match=(
                rf"this concrete function of doubled was traced for \(x: a tensor of dtype float32 "
                rf"and shape \(2,\)\) and cannot be called with \({got}\)\. Call the polymorphic "
                rf"function instead")):
            concrete(arg)


# =============================================================================================
# 10. assert in converted code.
# =============================================================================================


def checks_positive(x):
    y = x + 1
    assert y > 0, "y must be positive"  # <-
    return y


class TestAssert:
    def test_python_values_raise_pythons_assertion_error(self):
        with pytest.raises(AssertionError, match="y must be positive"):
            convert(checks_positive)(-5)

    def test_a_failed_assert_in_a_graph_is_an_assertion_error(self):
        with pytest.raises(AssertionError, match="y must be positive"):
            function(checks_positive)(t(-5))

    def test_a_failed_assert_in_a_graph_names_the_assert_line(self):
        with pytest.raises(AssertionError, match=(
                rf"(?s)y must be positive.*{re.escape(HERE)}\"?, line {line_of(checks_positive)}\b")):
            function(checks_positive)(t(-5))
