"""and / or / not, chained comparisons and ternaries, including short-circuit side effects.

Side effects that must be skipped by short-circuiting print a tensor-dependent value, so in a
graph they run (or not) at run time exactly like in Python.
"""

from .harness import case

SMALL = [(3,), (0,), (-2,), (1,), (-1,), (7,), (10,), (12,)]
PAIRS = [(3, 5), (5, 3), (0, 0), (0, 4), (4, 0), (-2, 4), (-3, -7), (6, 6)]


def _loud_positive(v):
    print("positive?", v)
    return v > 0


def _loud_even(v):
    print("even?", v)
    return v % 2 == 0


def _note(log, value):
    log.append(value)
    return value


def and_of_ints(a, b):
    return a and b


def or_of_ints(a, b):
    return a or b


def not_of_comparison(x):
    return not x > 3


def not_of_int(x):
    return not x


def double_not(x):
    return not not (x > 0)


def and_chain(x):
    return x > 0 and x < 10 and x % 2 == 0


def or_chain(x):
    return x < -1 or x > 8 or x == 3


def mixed_and_or(x, y):
    return (x > 0 and y > 0) or (x < 0 and y < 0)


def chained_comparison(x):
    return 0 < x < 10


def chained_comparison_two_variables(x, y):
    return x < y <= 2 * x


def chained_equality(x, y):
    return x == y == 0


def short_circuit_and_prints(x):
    return _loud_positive(x) and _loud_even(x)


def short_circuit_or_prints(x):
    return _loud_even(x) or _loud_positive(x)


def short_circuit_in_if(x):
    r = 0
    if _loud_positive(x) and _loud_even(x):
        r = 1
    return r


def short_circuit_guards_index(xs, i):
    return i < len(xs) and xs[i] > 0


def short_circuit_python_side_effects(a, b):
    log = []
    r = _note(log, a) and _note(log, b) or _note(log, 7)
    return r, log


def logic_in_if_condition(x, y):
    if not (x > y) and y > 0:
        r = x + y
    elif x > y or y < -5:
        r = x - y
    else:
        r = 0
    return r


def ternary(x):
    return x if x > 0 else -x


def nested_ternary(x):
    return -1 if x < 0 else (0 if x == 0 else 1)


def ternary_in_arithmetic(x, y):
    return (x if x > y else y) * 2 + (1 if x == y else 0)


def ternary_on_python_flag(x, flag):
    return x * 2 if flag else x - 3


def ternary_assigned_in_loop(n):
    s = 0
    for i in range(n):
        s += i if i % 2 == 0 else -i
    return s


def equality_and_inequality(x, y):
    return x == y, x != y


def comparisons_all(x, y):
    return x < y, x <= y, x > y, x >= y


def and_or_on_python_values(a, b, c):
    return (a and b) or c


def logical_result_in_while(n):
    i = 0
    while i < n and not (i * i > 20):
        i += 1
    return i


def not_in_loop_condition(n):
    count = 0
    for i in range(n):
        if not (i % 3 == 0 or i % 5 == 0):
            count += 1
    return count


CASES = [
    case(and_of_ints, PAIRS),
    case(or_of_ints, PAIRS),
    case(not_of_comparison, SMALL),
    case(not_of_int, SMALL),
    case(double_not, SMALL),
    case(and_chain, SMALL),
    case(or_chain, SMALL),
    case(mixed_and_or, PAIRS),
    case(chained_comparison, SMALL),
    case(chained_comparison_two_variables, PAIRS + [(3, 6), (3, 7)]),
    case(chained_equality, PAIRS),
    case(short_circuit_and_prints, SMALL),
    case(short_circuit_or_prints, SMALL),
    case(short_circuit_in_if, SMALL),
    case(short_circuit_guards_index, [([1, 2], 0), ([1, -2], 1), ([1, 2], 2), ([], 0)],
         tensor_params=()),
    case(short_circuit_python_side_effects, [(0, 5), (3, 0), (3, 4), (0, 0)], tensor_params=()),
    case(logic_in_if_condition, PAIRS + [(-1, -9)]),
    case(ternary, SMALL),
    case(nested_ternary, SMALL),
    case(ternary_in_arithmetic, PAIRS),
    case(ternary_on_python_flag, [(3, True), (3, False), (-1, True)], tensor_params=(0,)),
    case(ternary_on_python_flag, [(3, True), (3, False), (-1, True)], label="tensor_flag"),
    case(ternary_assigned_in_loop, [(0,), (1,), (4,), (7,), (-1,)]),
    case(equality_and_inequality, PAIRS),
    case(comparisons_all, PAIRS),
    case(and_or_on_python_values, [(1, 2, 3), (0, 2, 3), (1, 0, 3), (0, 0, 0), (5, 6, 0)],
         tensor_params=()),
    case(and_or_on_python_values, [(1, 2, 3), (0, 2, 3), (1, 0, 3), (0, 0, 0), (5, 6, 0)],
         label="tensors"),
    case(logical_result_in_while, [(0,), (2,), (4,), (5,), (9,), (-1,)]),
    case(not_in_loop_condition, [(0,), (1,), (6,), (16,)]),
]
