"""break and continue in while/for, single and nested, conditional on tensors or on Python values.

A break that depends on a tensor is only legal in a staged loop (range(tensor) or a tensor
while test); in loops over Python lists the break conditions here depend on Python values only.
A continue may depend on a tensor anywhere (it does not change the iteration count).
"""

from .harness import case

COUNTS = [(0,), (1,), (3,), (6,), (10,), (-2,)]


def first_multiple(n, k):
    found = -1
    for i in range(n):
        if i > 0 and i % k == 0:
            found = i
            break
    return found


def while_break(n):
    i = 0
    while i <= n:
        if i * i > n:
            break
        i += 1
    return i


def for_continue(n):
    s = 0
    for i in range(n):
        if i % 2 == 1:
            continue
        s += i
    return s


def while_continue(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if i % 3 == 0:
            continue
        s += i
    return s


def break_and_continue(n):
    s = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        if s > 12:
            break
        s += i
    return s


def break_inner_only(n):
    total = 0
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            total += 1
    return total


def break_outer_with_flag(n):
    total = 0
    stop = False
    for i in range(n):
        for j in range(n):
            if i * j > 6:
                stop = True
                break
            total += j
        if stop:
            break
    return total, stop


def continue_outer_from_inner_flag(n):
    total = 0
    for i in range(n):
        skip = False
        for j in range(3):
            if i == j:
                skip = True
        if skip:
            continue
        total += i
    return total


def python_list_break(x):
    for w in [1, 2, 3, 4]:
        if w > 2:
            break
        x = x * 2 + w
    return x


def python_list_tensor_continue(x):
    s = 0
    for w in [1, 2, 3, 4]:
        if x > w:
            continue
        s += w
    return s


def break_in_else_branch(n):
    s = 0
    for i in range(n):
        if i < 3:
            s += i
        else:
            break
    return s


def continue_then_break(n):
    s = 0
    for i in range(n):
        if i == 2:
            continue
        if i == 5:
            break
        s += i
    return s


def while_true_with_break(n):
    i = 0
    while True:
        i += 1
        if i >= n:
            break
    return i


def effect_before_break(n):
    last = 0
    count = 0
    for i in range(n):
        last = i * 10
        count += 1
        if last >= 30:
            break
    return last, count


def two_break_conditions(n, m):
    i = 0
    while i < n + m:
        if i >= n:
            break
        if i * 2 >= m:
            break
        i += 1
    return i


def continue_in_nested_if(n):
    s = 0
    for i in range(n):
        if i > 1:
            if i % 2 == 0:
                continue
            s += 100
        s += i
    return s


def find_digit(n, d):
    pos = -1
    k = 0
    n = abs(n)
    while n > 0:
        if n % 10 == d:
            pos = k
            break
        n //= 10
        k += 1
    return pos


def continue_skips_many_statements(n):
    a = 0
    b = 0
    c = 0
    for i in range(n):
        a += 1
        if i % 2 == 0:
            continue
        b += i
        c = b * 2
    return a, b, c


def triple_nested_break(n):
    count = 0
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if k > j:
                    break
                count += 1
            if j > i:
                break
    return count


def break_in_while_with_counter(n):
    total = 0
    i = 0
    while i < n:
        i += 1
        total += i
        if total > 20:
            break
    return i, total


def continue_every_iteration(n):
    s = 0
    for i in range(n):
        s += i
        continue
    return s


def break_first_iteration(n):
    s = 5
    for i in range(n):
        s = i + 100
        break
    return s


def python_list_break_on_python_value(x, limit):
    s = x
    for w in [3, 1, 4, 1, 5, 9]:
        if w > limit:
            break
        s = s + w
    return s


def nested_while_break_continue(n):
    out = 0
    i = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        j = 0
        while j < i:
            j += 1
            if j > 3:
                break
            out += j
    return out


CASES = [
    case(first_multiple, [(10, 3), (10, 4), (3, 5), (0, 2), (12, 1), (-1, 3)]),
    case(while_break, [(0,), (1,), (5,), (50,), (-4,)]),
    case(for_continue, COUNTS),
    case(while_continue, COUNTS),
    case(break_and_continue, COUNTS + [(20,)]),
    case(break_inner_only, COUNTS),
    case(break_outer_with_flag, COUNTS),
    case(continue_outer_from_inner_flag, COUNTS),
    case(python_list_break, [(0,), (1,), (-5,), (9,)]),
    case(python_list_tensor_continue, [(0,), (1,), (2,), (3,), (4,), (-1,)]),
    case(break_in_else_branch, COUNTS),
    case(continue_then_break, COUNTS),
    # Python values only: `while True` with a tensor break is a Python loop whose test turns
    # into a tensor, which the AutoGraph rules reject.
    case(while_true_with_break, [(0,), (1,), (4,)], tensor_params=()),
    case(effect_before_break, COUNTS),
    case(two_break_conditions, [(0, 0), (3, 10), (10, 3), (60, 60), (5, 5)]),
    case(continue_in_nested_if, COUNTS),
    case(find_digit, [(12345, 3), (12345, 9), (0, 0), (-707, 0), (99, 9)]),
    case(continue_skips_many_statements, COUNTS),
    case(triple_nested_break, [(0,), (1,), (2,), (3,), (4,)]),
    case(break_in_while_with_counter, COUNTS),
    case(continue_every_iteration, COUNTS),
    case(break_first_iteration, COUNTS),
    case(python_list_break_on_python_value, [(0, 3), (0, 4), (2, 0), (-1, 9)], tensor_params=(0,)),
    case(nested_while_break_continue, COUNTS),
]
