"""64-bit inputs: int64 values beyond int32 (2**40) and float64 values beyond float32 (1e300,
1e-300), as Python numbers, as NumPy scalars and as int64/float64 tensors; ``int(x)`` /
``float(x)`` keep the width (issue 9 item 2); loops bounded by an int64 ``n`` (item 7); a Python
int counter multiplied into a float32 tensor (item 8).

The graph leg of a case with ``dtype="int64"`` gets ``rt.constant(v, rt.int64)`` while plain
Python computes with the Python int ``v``; NumPy-scalar inputs (``np.int64(v)``) make plain
Python compute with NumPy, so its result's dtype is the reference too. Floats of wide cases are
compared to 1e-12 relative (a float32 detour would show).
"""

import numpy as np

import runtime as rt

from .harness import case

REQUIRES_RUNTIME = True

BIG = 2**40
INT64_VALUES = [(BIG,), (-BIG - 3,), (2**33 + 7,), (2**31,), (5,), (0,), (-1,)]
NUMPY_INT64 = [(np.int64(BIG),), (np.int64(-BIG - 3),), (np.int64(-7),)]
FLOAT64_VALUES = [(1e300,), (-1e300,), (1e-300,), (2.5,), (-0.75,), (0.0,), (1e15 + 0.5,)]
NUMPY_FLOAT64 = [(np.float64(1e300),), (np.float64(-2.5e-300),), (np.float64(3.25),)]
COUNTS = [(0,), (1,), (2,), (7,)]


def wide_arithmetic(x):
    return x + 1, x - 2**35, x * 3, x // 7, x % 1000, -x


def wide_branch(x):
    if x > 2**35:
        y = x - 2**35
    else:
        y = x + 2**35
    return y


def wide_while(x):
    steps = 0
    while x > 2**32:
        x = x // 2
        steps += 1
    return x, steps


def int_of_tensor_plus_one(x):
    return int(x) + 1


def float_of_tensor_times_two(x):
    return float(x) * 2


def int_of_float(x):
    return int(x)


def float_of_int(x):
    return float(x) + 0.5


def int_in_condition(x):
    if int(x) > 2**35:
        return 1
    return 0


def float_arithmetic(x):
    return x * 1e-10, x + 1e15, x / 3


def float_extremes(x):
    if x > 1e200:
        y = x * 1e10
    elif x < -1e200:
        y = x / 1e10
    else:
        y = x * x
    return y


def sum_range_int64(n):
    s = 0
    for i in range(n):
        s += i
    return s


def count_to_int64(x, n):
    s = x
    for i in range(n):
        s = s + x
    return s


def range_start_stop_int64(a, b):
    total = 0
    for i in range(a, b):
        total += i * 2**33
    return total


def int64_counter_in_while(n):
    i = 0
    while i < n:
        i += 1
    return i


def python_counter_into_float32(x, n):
    acc = x
    i = 0
    while i < n:
        acc = acc + x * i
        i += 1
    return acc


def int32_times_python_float(x):
    return x * 1.5


def python_float_through_loop_then_branch(x, n):
    y = 1.0
    if x > 0:
        for i in range(n):
            y = 5.0
    else:
        y = x * 2.0
    return y


def python_int_through_loop_then_branch(x, n):
    y = 1
    if x > 0:
        for i in range(n):
            y = 5
    else:
        y = x * 2
    return y


def python_int_in_a_returned_tuple(x):
    y = x * 0
    if x < 0:
        y = y + 1
    elif x == 3:
        return 5, y
    return y, x


def python_float_accumulated_in_loop(x, n):
    acc = 0.0
    for i in range(n):
        acc = (acc - 8.0) % 1e13
    return acc + x


def big_python_int_returned_from_a_nested_if(x, y):
    if x > 0:
        pass
    elif y > 0:
        if x > 5:
            pass
        else:
            return 9999999999944, x
    return x, y


def stack_of_wide_values(x):
    return rt.stack([x, x * 3, -x])


CASES = [
    # int64: Python ints (graph: int64 tensors, then Python values traced as constants) and
    # NumPy int64 scalars (plain Python computes with NumPy).
    case(wide_arithmetic, INT64_VALUES, dtype="int64"),
    case(wide_arithmetic, [(BIG,), (-BIG - 3,)], tensor_params=(), label="python_values"),
    case(wide_arithmetic, NUMPY_INT64),
    case(wide_branch, INT64_VALUES, dtype="int64"),
    case(wide_branch, NUMPY_INT64),
    case(wide_while, [(BIG,), (2**33,), (3,), (-BIG,)], dtype="int64"),
    case(int_of_tensor_plus_one, INT64_VALUES, dtype="int64"),
    case(int_of_tensor_plus_one, NUMPY_INT64),
    case(int_of_tensor_plus_one, [(BIG,)], tensor_params=(), label="python_values"),
    case(int_in_condition, [(BIG,), (2**35,), (-BIG,), (3,)], dtype="int64"),
    case(float_of_int, [(BIG + 1,), (2**53,), (-7,)], dtype="int64"),
    # float64: beyond float32's range and precision.
    case(float_of_tensor_times_two, FLOAT64_VALUES, dtype="float64"),
    case(float_of_tensor_times_two, NUMPY_FLOAT64),
    case(float_of_tensor_times_two, [(1e300,), (1e-300,)], tensor_params=(),
         label="python_values"),
    case(int_of_float, [(1e15 + 0.5,), (-3.75,), (2.0**40,), (0.5,)], dtype="float64"),
    case(float_arithmetic, FLOAT64_VALUES, dtype="float64"),
    case(float_arithmetic, NUMPY_FLOAT64),
    case(float_arithmetic, [(1e300,), (1e-300,)], tensor_params=(), label="python_values"),
    case(float_extremes, FLOAT64_VALUES, dtype="float64"),
    case(float_extremes, NUMPY_FLOAT64),
    # Loops bounded by int64 values (item 7): every integer dtype is a valid bound.
    case(sum_range_int64, COUNTS, dtype="int64"),
    case(sum_range_int64, [(np.int64(5),), (np.int64(0),)]),
    case(count_to_int64, [(BIG, 3), (-5, 0), (7, 4)], dtype="int64"),
    case(count_to_int64, [(3, 4), (-5, 0)], dtype=("int32", "int64"), label="int32_body"),
    case(range_start_stop_int64, [(0, 4), (3, 1), (-2, 2)], dtype="int64"),
    case(int64_counter_in_while, COUNTS, dtype="int64"),
    # A Python int counter and a float32 tensor (item 8): weak Python scalars keep float32.
    case(python_counter_into_float32, [(1.5, 3), (-0.25, 0), (2.0, 5)], dtype=("float32", "int32")),
    case(int32_times_python_float, [(3,), (-7,), (0,)]),
    # A Python number carried by a tensor loop stays weak: it meets a 64-bit tensor at the if.
    case(python_float_through_loop_then_branch, [(2.5, 3), (-1e300, 2), (2.5, 0)],
         dtype=("float64", "int32")),
    case(python_int_through_loop_then_branch, [(3, 3), (-BIG, 2), (3, 0)],
         dtype=("int64", "int32")),
    case(python_int_in_a_returned_tuple, [(-BIG,), (3,), (BIG,)], dtype="int64"),
    case(big_python_int_returned_from_a_nested_if, [(-3, 4), (3, 4), (-3, -4)], dtype="int64"),
    # A Python float computed in a tensor loop keeps Python's (double) precision.
    case(python_float_accumulated_in_loop, [(0.5, 1), (0.5, 3), (-2.25, 0)],
         dtype=("float64", "int32")),
    # rt.stack of NumPy scalars in plain Python keeps their dtype, as rt.constant does.
    case(stack_of_wide_values, [(np.int64(BIG),), (np.float64(0.1),), (np.float64(1e300),)]),
]
