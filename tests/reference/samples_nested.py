"""Combinations: loops in ifs, ifs in loops, loops in loops, with break/continue/return mixed in."""

from .harness import case

COUNTS = [(0,), (1,), (2,), (4,), (7,), (-2,)]
PAIRS = [(3, 4), (-3, 4), (0, 0), (5, 1), (-1, -1), (2, 6)]


def loop_inside_if(x, n):
    if x > 0:
        for i in range(n):
            x += i
    else:
        x = -x
    return x


def if_inside_loop_inside_if(x, n):
    s = 0
    if x > 0:
        for i in range(n):
            if i % 2 == 0:
                s += x
            else:
                s -= 1
    return s


def while_inside_for(n):
    total = 0
    for i in range(n):
        j = i
        while j > 0:
            total += 1
            j //= 2
    return total


def for_inside_while(n):
    total = 0
    k = 0
    while k < n:
        for i in range(k):
            total += i * k
        k += 1
    return total


def break_inner_continue_outer(n):
    s = 0
    for i in range(n):
        if i % 3 == 2:
            continue
        for j in range(n):
            if j >= i:
                break
            s += j
    return s


def triple_nested_loops(n):
    s = 0
    for i in range(n):
        for j in range(i):
            for k in range(j):
                s += 1
    return s


def grid_sum(n, m):
    s = 0
    for i in range(n):
        for j in range(m):
            s += i * m + j
    return s


def return_from_innermost(n):
    for i in range(n):
        for j in range(n):
            for k in range(n):
                if i + j + k == 5:
                    return i * 100 + j * 10 + k
    return -1


def dependent_bounds(n):
    s = 0
    for i in range(n):
        for j in range(i, n):
            s += j - i
    return s


def count_primes(n):
    count = 0
    for p in range(2, n):
        is_prime = True
        d = 2
        while d * d <= p:
            if p % d == 0:
                is_prime = False
                break
            d += 1
        if is_prime:
            count += 1
    return count


def sort_three(a, b, c):
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return a, b, c


def state_machine(n):
    state = 0
    visits = 0
    for i in range(n):
        if state == 0:
            state = 1
        elif state == 1:
            if i % 2 == 0:
                state = 2
            else:
                state = 0
        else:
            state = 0
            visits += 1
    return state, visits


def fizzbuzz_counts(n):
    fizz = 0
    buzz = 0
    both = 0
    other = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            both += 1
        elif i % 3 == 0:
            fizz += 1
        elif i % 5 == 0:
            buzz += 1
        else:
            other += 1
    return fizz, buzz, both, other


def loop_then_if_then_loop(n):
    s = 0
    for i in range(n):
        s += i
    if s > 5:
        s = s // 2
    else:
        s = s * 3
    for i in range(n):
        s -= 1
    return s


def python_outer_while_inner(n):
    s = 0
    for k in [1, 2, 3]:
        j = 0
        while j < n:
            s += k
            j += 1
    return s


def while_with_nested_if_and_break(n):
    i = 0
    hits = 0
    while i < n + 40:
        i += 1
        if i % 2 == 0:
            if i % 3 == 0:
                hits += 1
                if hits >= n:
                    break
    return i, hits


def nested_loops_both_continue(n):
    s = 0
    for i in range(n):
        if i == 1:
            continue
        for j in range(n):
            if j == i:
                continue
            s += 1
    return s


def if_in_while_in_if(x, n):
    r = 0
    if n > 0:
        i = 0
        while i < n:
            if x > i:
                r += 2
            else:
                r += 1
            i += 1
    else:
        r = -1
    return r


def early_return_then_nested_loops(x, n):
    if x < 0:
        return -x
    s = 0
    for i in range(n):
        for j in range(i):
            if (i + j) % 2 == 0:
                continue
            s += x
    return s


def loop_variable_reassigned_in_nested_if(n):
    v = 1
    for i in range(n):
        if v > 20:
            if i % 2 == 0:
                v = v - 15
            else:
                v = v - 7
        else:
            v = v * 2
    return v


CASES = [
    case(loop_inside_if, PAIRS),
    case(if_inside_loop_inside_if, PAIRS),
    case(while_inside_for, COUNTS + [(9,)]),
    case(for_inside_while, COUNTS),
    case(break_inner_continue_outer, COUNTS + [(9,)]),
    case(triple_nested_loops, COUNTS),
    case(grid_sum, PAIRS),
    case(return_from_innermost, [(1,), (2,), (3,), (4,), (6,)]),
    case(return_from_innermost, [(0,), (-1,)], label="zero_trip"),
    case(dependent_bounds, COUNTS),
    case(count_primes, [(0,), (2,), (3,), (10,), (20,), (30,)]),
    case(sort_three, [(1, 2, 3), (3, 2, 1), (2, 3, 1), (1, 3, 2), (0, 0, 0), (-1, 5, -5)]),
    case(state_machine, COUNTS + [(11,)]),
    case(fizzbuzz_counts, [(0,), (1,), (15,), (16,), (31,)]),
    case(loop_then_if_then_loop, COUNTS),
    case(python_outer_while_inner, COUNTS),
    case(while_with_nested_if_and_break, [(0,), (1,), (2,), (3,), (10,)]),
    case(nested_loops_both_continue, COUNTS),
    case(if_in_while_in_if, PAIRS),
    case(early_return_then_nested_loops, [(-3, 4), (2, 0), (2, 3), (5, 5), (0, 4)]),
    case(loop_variable_reassigned_in_nested_if, COUNTS + [(12,)]),
]
