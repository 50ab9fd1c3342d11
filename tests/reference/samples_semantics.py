"""Python semantics that a conversion can silently change (issue 9): chained comparisons whose
operands are calls (each evaluated once, lazily: item 4), exceptions caught around a ``return``
(item 1), a Python int and a Python float from the two branches of a tensor ``if`` (item 5), a
variable first assigned inside a tensor loop and used after it (item 9), and dict keys first set
in both branches of a tensor ``if`` or in a loop body (item 10).

Calls are counted inside the sample (``len(calls)`` is part of the result), so a converted
function that evaluates an operand twice returns a different count. In a graph, a call runs once
per trace; the count is the trace's, which is Python's when every call is evaluated once.
"""

import runtime as rt

from .harness import Refusal, case

REQUIRES_RUNTIME = True

SMALL = [(3,), (-2,), (0,), (7,)]
COUNTS = [(1,), (2,), (5,)]


# ---- chained comparisons with calls (item 4) ----------------------------------------------


def chained_middle_call(x):
    calls = []

    def middle():
        calls.append("middle")
        return 5

    result = 0 < middle() < x
    return result, len(calls)


def chained_tensor_left_of_call(x):
    calls = []

    def middle():
        calls.append("middle")
        return 4

    result = x < middle() <= 10
    return result, len(calls)


def chained_two_calls(x):
    calls = []

    def first():
        calls.append("first")
        return x + 1

    def second():
        calls.append("second")
        return 2 * x

    result = -5 <= first() < second() < 100
    return result, len(calls)


def chained_lazy_third_operand(a, b):
    calls = []

    def middle():
        calls.append("middle")
        return b

    def last():
        calls.append("last")
        return 10

    result = a < middle() < last()
    return result, len(calls)


def chained_call_in_if(x):
    calls = []

    def scaled():
        calls.append(1)
        return x * 2

    if 0 <= scaled() < 10:
        y = 1
    else:
        y = -1
    return y, len(calls)


# ---- exceptions caught around returns (item 1) --------------------------------------------


def _maybe_raise(flag):
    if flag:
        raise ValueError("no value")
    return 3


def try_return_after_python_if(c, flag):
    if c:
        return 2
    try:
        return _maybe_raise(flag)
    except ValueError:
        pass
    return 1


def try_return_after_tensor_if(x, flag):
    if x > 0:
        return 2
    try:
        return _maybe_raise(flag)
    except ValueError:
        pass
    return 1


def try_return_except_returns(x, flag):
    if x > 0:
        return x
    try:
        return _maybe_raise(flag) * x
    except ValueError:
        return -x


def try_return_in_loop(n, flag):
    total = 0
    for i in range(n):
        total += i
    try:
        return _maybe_raise(flag) + total
    except ValueError:
        pass
    return total


def try_return_inside_tensor_loop(n, flag):
    total = 0
    for i in range(n):
        try:
            return _maybe_raise(flag) + total
        except ValueError:
            pass
        total += i
    return total


def key_error_inside_loop_with_return(x, n):
    missing = {}
    for i in range(n):
        if x > i:
            return i
        x = x + missing["key"]
    return -1


# ---- a Python int and a Python float from two branches (item 5) ---------------------------


def return_int_or_float(x):
    if x > 0:
        return 1
    return 2.5


def assign_int_or_float(x):
    if x > 0:
        y = 1
    else:
        y = 2.5
    return y


def ternary_int_or_float(x):
    y = 1 if x > 0 else 2.5
    return y


def return_int_or_float_tensor(x):
    if x > 0:
        return 2
    return x * 0.5


def return_int_or_float_python_condition(x, c):
    if c:
        return 1
    return 2.5


_INT_AND_FLOAT = r"(?s)(?=.*\bint\b)(?=.*\bfloat\b)"


def _int_or_float_refused(name: str) -> Refusal:
    """Item 5: an error naming the variable (or the return) and the two types."""
    return Refusal((TypeError, ValueError), _INT_AND_FLOAT + rf"(?=.*{name})", required=True)


# ---- first assigned inside a tensor loop, used after it (item 9) --------------------------


def last_index(n):
    for i in range(n):
        last = i
    return last


def last_value_times_x(x, n):
    for i in range(n):
        last = x * i
    return last


def last_in_while(n):
    i = 0
    while i < n:
        last = i * 2
        i += 1
    return last


def _zero_trips_refused(name: str) -> Refusal:
    """Items 9 and 11: zero trips raise InvalidArgumentError naming the variable, at run time."""
    return Refusal(rt.errors.InvalidArgumentError, rf"\b{name}\b", required=True)


# ---- dict keys first set under tensor control flow (item 10) ------------------------------


def dict_key_in_both_branches(x):
    d = {}
    if x > 0:
        d["k"] = x
    else:
        d["k"] = -x
    return d["k"]


def dict_returned_with_new_keys(x):
    d = {"old": x}
    if x > 0:
        d["sign"] = 1
        d["size"] = x
    else:
        d["sign"] = -1
        d["size"] = -x
    return d


def dict_key_in_loop_body(n):
    d = {}
    for i in range(n):
        d["last"] = i * 3
    return d["last"]


def dict_key_in_one_branch(x):
    d = {}
    if x > 0:
        d["k"] = x
    return d["k"]


CASES = [
    # item 4
    case(chained_middle_call, [(10,), (3,), (5,)]),
    case(chained_tensor_left_of_call, [(1,), (4,), (9,)]),
    # In a graph both calls run (at trace time) even where Python's chain stops after the first:
    # tensor inputs where Python calls both; the short cut on Python values.
    case(chained_two_calls, [(3,), (0,), (60,)]),
    case(chained_two_calls, [(-9,), (3,)], tensor_params=(), label="python_values"),
    case(chained_lazy_third_operand, [(0, 5), (5, 0), (3, 12)], tensor_params=()),
    case(chained_lazy_third_operand, [(0, 5), (3, 12)], tensor_params=(0,), label="tensor_a"),
    case(chained_call_in_if, [(3,), (7,), (-1,)]),
    # item 1
    case(try_return_after_python_if, [(True, True), (False, True), (False, False)],
         tensor_params=()),
    case(try_return_after_python_if, [(True, True), (False, True), (False, False)],
         tensor_params=(0,), label="tensor_c"),
    case(try_return_after_tensor_if, [(3, True), (-3, True), (-3, False)], tensor_params=(0,)),
    case(try_return_except_returns, [(3, True), (-3, True), (-3, False)], tensor_params=(0,)),
    case(try_return_in_loop, [(0, True), (4, True), (4, False)], tensor_params=(0,)),
    case(try_return_inside_tensor_loop, [(0, True), (4, True), (4, False), (0, False)],
         tensor_params=(0,)),
    # Python raises KeyError when the loop reaches the lookup; so must the trace of the body.
    case(key_error_inside_loop_with_return, [(0, 3)]),
    # item 5: Python values keep Python's answer; a tensor condition must refuse
    case(return_int_or_float, SMALL, tensor_params=()),
    case(return_int_or_float, SMALL, refusal=_int_or_float_refused("return"), label="tensor"),
    case(assign_int_or_float, SMALL, refusal=_int_or_float_refused("y"), label="tensor"),
    case(ternary_int_or_float, SMALL, refusal=_int_or_float_refused("y"), label="tensor"),
    case(return_int_or_float_python_condition, [(3, True), (3, False)], tensor_params=(0,)),
    # Python's int 2 or a float tensor: a graph can only give 2.0, so it must refuse (item 5's
    # rule, with a float tensor instead of a Python float in the other branch).
    case(return_int_or_float_tensor, [(3,), (-3,)], tensor_params=(), label="python_values"),
    case(return_int_or_float_tensor, [(3,), (-3,)], refusal=_int_or_float_refused("return"),
         label="tensor"),
    # item 9: n >= 1 gives Python's value; n == 0 is a run-time InvalidArgumentError
    case(last_index, COUNTS),
    case(last_index, [(0,)], refusal=_zero_trips_refused("last"), label="zero_trip"),
    case(last_index, [(3,), (1,)], dtype="int64"),
    case(last_value_times_x, [(3, 1), (-2, 4)]),
    case(last_value_times_x, [(3, 0)], refusal=_zero_trips_refused("last"), label="zero_trip"),
    case(last_in_while, COUNTS),
    case(last_in_while, [(0,), (-1,)], refusal=_zero_trips_refused("last"), label="zero_trip"),
    # item 10
    case(dict_key_in_both_branches, SMALL),
    case(dict_returned_with_new_keys, SMALL),
    case(dict_key_in_loop_body, COUNTS),
    case(dict_key_in_loop_body, [(0,)], label="zero_trip",
         refusal=Refusal((KeyError, rt.errors.InvalidArgumentError), "last", required=True)),
    case(dict_key_in_one_branch, [(3,), (-3,)],
         refusal=Refusal((KeyError, ValueError), "'k'")),
]
