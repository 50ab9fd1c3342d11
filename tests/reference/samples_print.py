"""print: trace-time prints of Python values, run-time prints of tensors, in program order.

The rule (AutoGraph's): a print whose arguments include a tensor runs every time the graph runs;
a print of Python values only runs once, while tracing. So every print below that sits inside
tensor-dependent control flow prints a tensor-dependent value. Printed values are ints or bools
(float32 and float64 print different digits).
"""

from .harness import case

SMALL = [(3,), (0,), (-2,), (1,), (7,)]
COUNTS = [(0,), (1,), (3,), (5,), (-1,)]


def _report(label, v):
    print(label, v)
    return v


def print_python_values_only(x):
    print("start")
    print("constants", 1, 2, True)
    return x + 1


def print_tensor(x):
    print("x is", x)
    return x


def print_in_for(n):
    s = 0
    for i in range(n):
        print("i", i)
        s += i
    return s


def print_in_branches(x):
    if x > 0:
        print("positive", x)
        y = x
    else:
        print("not positive", x)
        y = -x
    return y


def print_in_while(n):
    while n > 0:
        print("n =", n)
        n -= 2
    return n


def print_several_values(x, y):
    print(x, y, x + y, x * y)
    return x - y


def print_bool(x):
    print("big:", x > 10, "even:", x % 2 == 0)
    return x


def print_in_python_loop(x):
    for w in [1, 2]:
        print("w", w, "x*w", x * w)
    return x


def print_order_across_constructs(n):
    print("before", n)
    s = 0
    for i in range(n):
        if i % 2 == 0:
            print("even", i)
        else:
            print("odd", i)
        s += i
    print("after", s)
    return s


def print_with_sep_and_end(x):
    print("a", x, "b", sep="-", end="!\n")
    print(x, x + 1, sep="")
    return x


def print_in_nested_loops(n):
    for i in range(n):
        for j in range(i):
            print("pair", i, j)
    return n


def print_from_helper(x):
    y = _report("value", x)
    if y > 2:
        y = _report("big", y * 10)
    return y


def print_before_break(n):
    i = 0
    while i < n:
        print("step", i)
        if i >= 2:
            print("breaking at", i)
            break
        i += 1
    return i


def print_negative_numbers(x):
    print(-x, x - 10)
    return -x


def print_python_value_in_python_loop(x):
    for w in (3, 4):
        print("static", w)
    return x * 2


def print_loop_variable_updated(n):
    acc = 1
    for i in range(n):
        acc = acc * 2
        print("acc", acc)
    return acc


CASES = [
    case(print_python_values_only, SMALL),
    case(print_tensor, SMALL),
    case(print_in_for, COUNTS),
    case(print_in_branches, SMALL),
    case(print_in_while, COUNTS + [(6,)]),
    case(print_several_values, [(1, 2), (0, -3), (5, 5)]),
    case(print_bool, [(3,), (11,), (12,), (-4,)]),
    case(print_in_python_loop, SMALL),
    case(print_order_across_constructs, COUNTS),
    case(print_with_sep_and_end, SMALL),
    case(print_in_nested_loops, [(0,), (1,), (3,), (4,)]),
    case(print_from_helper, SMALL),
    case(print_before_break, COUNTS),
    case(print_negative_numbers, SMALL),
    case(print_python_value_in_python_loop, SMALL),
    case(print_loop_variable_updated, COUNTS),
]
