"""Python lists filled inside tensor loops (issue 9 item 13): a list created before the loop and
only appended to inside it is carried by the loop, then stacked or measured after it. Where that
cannot be honoured (the list is read by index inside the loop, or its elements differ in dtype),
the only acceptable outcome besides Python's answer is a clear error naming the list.

In plain Python ``rt.stack`` receives a list of Python numbers and returns a tensor; the graph's
answer is compared with it numerically (and with the eager run of the converted function
exactly).
"""

import numpy as np

import runtime as rt

from .harness import Refusal, case

REQUIRES_RUNTIME = True

PAIRS = [(3, 1), (2, 4), (-1, 3)]


def append_and_stack(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return rt.stack(out)


def append_and_len(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return len(out)


def append_then_reduce(x, n):
    out = []
    for i in range(n):
        out.append(x + i)
    return rt.reduce_sum(rt.stack(out))


def append_in_while(x):
    out = []
    while x > 0:
        out.append(x)
        x -= 2
    return rt.stack(out), len(out)


def append_under_tensor_if(n):
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append(i * 10)
    return len(out), rt.stack(out)


def append_vectors(x, n):
    out = []
    for i in range(n):
        out.append(rt.stack([x, x * i]))
    return rt.stack(out)


def append_two_lists(x, n):
    evens = []
    odds = []
    for i in range(n):
        evens.append(2 * i + x)
        odds.append(2 * i + 1 + x)
    return rt.stack(evens), rt.stack(odds)


def append_in_loop_under_tensor_if(x, n):
    out = []
    if x > 0:
        for i in range(n):
            out.append(x * i)
    return len(out)


def append_after_early_return(x, n):
    out = []
    if x > 5:
        return -1
    for i in range(n):
        out.append(x * i)
    return len(out)


def return_the_list(x, n):
    out = []
    for i in range(n):
        out.append(x + i)
    return out


def append_and_read_back(x, n):
    out = [x]
    for i in range(n):
        out.append(out[-1] * 2)
    return rt.stack(out)


def append_mixed_dtypes(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
        out.append(x * 0.5)
    return len(out)


_NAMES_OUT = Refusal(Exception, r"\bout\b")

CASES = [
    case(append_and_stack, PAIRS),
    # A NumPy int64: plain Python stacks int64 values, whose dtype the graph must keep.
    case(append_and_stack, [(np.int64(2**40), 3)]),
    case(append_and_len, PAIRS + [(5, 0)]),
    case(append_then_reduce, PAIRS),
    case(append_in_while, [(5,), (6,), (1,)]),
    case(append_under_tensor_if, [(1,), (4,), (5,)]),
    case(append_vectors, [(3, 2), (-1, 3)]),
    case(append_two_lists, PAIRS),
    case(append_in_loop_under_tensor_if, PAIRS + [(-3, 2)]),
    case(append_after_early_return, PAIRS + [(9, 2)]),
    case(return_the_list, PAIRS),
    # Stacking an empty list: Python's rt.stack([]) raises ValueError; so must the graph.
    case(append_and_stack, [(3, 0)], label="empty"),
    # Read by index inside the loop / two dtypes in one list: Python's answer or a clear error.
    case(append_and_read_back, [(3, 2), (1, 0)], refusal=_NAMES_OUT),
    case(append_mixed_dtypes, [(3, 2), (1, 0)], refusal=_NAMES_OUT),
]
