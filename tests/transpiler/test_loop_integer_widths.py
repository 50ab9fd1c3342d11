"""A loop variable that starts as a Python int counts as wide as the integers it meets: with an
int64 bound it is an int64 in the graph, as a Python int would not wrap around at 2**31 (it
was an int32 and wrapped: a wrong value, or a loop that never ended)."""

import numpy as np
import pytest

import transpiler


def digits(n):
    s = 0
    i = 0
    while i < n:
        s = s * 10 + i
        i += 1
    return s


def count_past_int32(n):
    i = 2147483646
    k = 0
    while i < n:
        i += 1
        k += 1
        if k > 5:
            break
    return i, k


def bounded_inside_a_branch(n, limit):
    i = 0
    while i < limit:
        if n > i:  # the int64 is met inside a branch of the loop's body
            i += 2**30
        else:
            i += 1
    return i


@pytest.mark.parametrize("fn, args", [
    (digits, (12,)), (digits, (0,)), (count_past_int32, (2**31 + 1,)),
    (count_past_int32, (2**31 + 9,)), (bounded_inside_a_branch, (2**33, 2**32))])
def test_python_ints_meeting_int64_tensors_give_python_s_values(fn, args):
    converted = transpiler.function(fn)
    expected = fn(*args)
    got = converted(*(np.int64(a) for a in args))
    got = tuple(int(v) for v in got) if isinstance(expected, tuple) else int(got)
    assert got == expected


def test_next_to_int32_the_variable_stays_int32():
    assert transpiler.function(digits)(np.int32(5)).dtype == np.int32
    i, k = transpiler.function(count_past_int32)(np.int64(2**31 + 1))
    assert i.dtype == np.int64 and k.dtype == np.int32  # only what meets the int64 widens
