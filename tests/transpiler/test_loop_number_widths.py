"""Loop variables that start as Python numbers keep their values at the width the loop gives
them: a Python int that meets an int64 bound is an int64 in the graph, as a Python int would
not wrap around at 2**31 (it was an int32 and wrapped: a wrong value, or a loop that never
ended); a Python float that the body makes float64 starts as that float64 exactly (it went
through float32 first)."""

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


def remainder_or_start(a, b):
    x = 9999999999989.0
    for _ in range(int(b)):
        x = (a * a) % 10000000000000.0
    return x


def test_a_python_float_made_float64_by_the_body_keeps_every_digit():
    """Found by the fuzzer: a loop that ran zero times gave 9999999827968.0."""
    converted = transpiler.function(remainder_or_start)
    for b in (0.0, 1.0):
        assert float(converted(np.float64(3.0), np.float64(b))) == remainder_or_start(3.0, b)
