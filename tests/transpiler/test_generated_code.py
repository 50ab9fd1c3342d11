"""Golden tests of `to_code`: the generated code is a product, so its exact text is pinned.

A deliberate change of the generated code updates these texts in the same commit.
"""

import textwrap

import runtime as rt
from transpiler import to_code


def simple_relu(x):
    if rt.greater(x, 0):
        return x
    else:
        return 0


def count_down(n):
    steps = 0
    while n > 0:
        n -= 1
        if n == 3:
            break
        steps += 1
    return steps


def sum_odd(n):
    total = 0
    for i in range(n):
        if i % 2 == 0:
            continue
        total += i
    return total


def first_above(x, limit):
    for v in x:
        if v > limit:
            return v
    return limit


def scaled(x):
    def helper(v):
        return v * 2
    return helper(x) + rt.reduce_sum(x)


def check(fn, expected: str) -> None:
    assert to_code(fn) == textwrap.dedent(expected).lstrip("\n")


def test_an_if_whose_branches_return_returns_the_branch_value():
    check(simple_relu, """
        def simple_relu(x):
            # if rt.greater(x, 0):
            def if_body():
                return x
            def else_body():
                return 0
            return ag__.if_stmt(rt.greater(x, 0), if_body, else_body)
        """)


def test_a_while_loop_with_break():
    check(count_down, """
        def count_down(n):
            steps = 0
            break_ = False

            # while n > 0:
            def loop_test():
                return ag__.and_(lambda: ag__.not_(break_), lambda: n > 0)
            def loop_body():
                nonlocal break_, n, steps
                continue_ = False
                n -= 1

                # if n == 3:
                def if_body():
                    nonlocal break_, continue_
                    break_ = True
                    continue_ = True
                def get_state():
                    return (break_, continue_)
                def set_state(state):
                    nonlocal break_, continue_
                    break_, continue_ = state
                ag__.if_stmt(n == 3, if_body, None, get_state, set_state, ('break_', 'continue_'))
                def if_body_1():
                    nonlocal steps
                    steps += 1
                def get_state_1():
                    return (steps,)
                def set_state_1(state):
                    nonlocal steps
                    steps, = state
                ag__.if_stmt(ag__.not_(continue_), if_body_1, None, get_state_1, set_state_1, ('steps',))
            def get_state_2():
                return (steps, break_, n)
            def set_state_2(state):
                nonlocal break_, n, steps
                steps, break_, n = state
            ag__.while_stmt(loop_test, loop_body, get_state_2, set_state_2, ('steps', 'break_', 'n'))
            return steps
        """)


def test_a_for_loop_with_continue():
    check(sum_odd, """
        def sum_odd(n):
            total = 0

            # for i in range(n):
            def loop_body(i):
                nonlocal total
                continue_ = False

                # if i % 2 == 0:
                def if_body():
                    nonlocal continue_
                    continue_ = True
                def get_state():
                    return (continue_,)
                def set_state(state):
                    nonlocal continue_
                    continue_, = state
                ag__.if_stmt(i % 2 == 0, if_body, None, get_state, set_state, ('continue_',))
                def if_body_1():
                    nonlocal total
                    total += i
                def get_state_1():
                    return (total,)
                def set_state_1(state):
                    nonlocal total
                    total, = state
                ag__.if_stmt(ag__.not_(continue_), if_body_1, None, get_state_1, set_state_1, ('total',))
            def get_state_2():
                return (total,)
            def set_state_2(state):
                nonlocal total
                total, = state
            ag__.for_stmt(ag__.range(n), None, loop_body, get_state_2, set_state_2, ('total',))
            return total
        """)


def test_a_return_inside_a_loop():
    check(first_above, """
        def first_above(x, limit):
            do_return = False
            retval = ag__.UndefinedReturnValue()

            # for v in x:
            def loop_test():
                return ag__.not_(do_return)
            def loop_body(v):
                nonlocal do_return, retval

                # if v > limit:
                def if_body():
                    nonlocal do_return, retval
                    do_return = True
                    retval = v
                def get_state():
                    return (do_return, retval)
                def set_state(state):
                    nonlocal do_return, retval
                    do_return, retval = state
                ag__.if_stmt(v > limit, if_body, None, get_state, set_state, ('do_return', 'retval'))
            def get_state_1():
                return (do_return, retval)
            def set_state_1(state):
                nonlocal do_return, retval
                do_return, retval = state
            ag__.for_stmt(x, loop_test, loop_body, get_state_1, set_state_1, ('do_return', 'retval'))
            def if_body_1():
                nonlocal do_return, retval
                do_return = True
                retval = limit
            def get_state_2():
                return (retval, do_return)
            def set_state_2(state):
                nonlocal do_return, retval
                retval, do_return = state
            ag__.if_stmt(ag__.not_(do_return), if_body_1, None, get_state_2, set_state_2, ('retval', 'do_return'), 1)
            return ag__.return_value(retval)
        """)


def test_calls_to_user_functions_go_through_converted_and_library_calls_stay():
    check(scaled, """
        def scaled(x):
            def helper(v):
                return v * 2
            return ag__.converted(helper)(x) + rt.reduce_sum(x)
        """)
