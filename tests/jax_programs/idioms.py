"""Python idioms around loops and conditions: comprehensions with conditions, ``any``/``all``
of generators, ``for``/``else``, nested early returns, loop bounds changed in the body, flags
and loop variables read after the loop, closures."""

import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}


def relu_by_comprehension(x):
    return jnp.array([v if v > 0 else 0.0 for v in x])


CASES[relu_by_comprehension] = [(F([1.0, -2.0, 3.0]),)]


def count_positive_generator(x):
    return sum(1 for v in x if v > 0)


CASES[count_positive_generator] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, -2.0, -3.0]),)]


def any_above_generator(x, t):
    if any(v > t for v in x):
        return x - t
    return x


CASES[any_above_generator] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0, 2.5]), F(3.0))]


def find_pair_with_sum(x, target):
    n = x.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] + x[j] == target:
                return i, j
    return -1, -1


CASES[find_pair_with_sum] = [(I([1, 4, 6, 3]), I(7)), (I([1, 4, 6, 3]), I(10)),
                             (I([1, 4, 6, 3]), I(100))]


def inner_break_only(n, m):
    total = 0
    for i in range(n):
        for j in range(m):
            if j > i:
                break
            total += 1
    return total


CASES[inner_break_only] = [(I(3), I(5)), (I(4), I(2)), (I(0), I(3))]


def bound_changed_in_body(n):
    total = 0
    for i in range(n):
        n = n - 1
        total += n
    return total, n


CASES[bound_changed_in_body] = [(I(4),), (I(0),)]


def last_index_or_default(n):
    i = -1
    for i in range(n):
        pass
    return i


CASES[last_index_or_default] = [(I(5),), (I(0),)]


def reversed_range(n):
    out = 0
    for i in reversed(range(n)):
        out = out * 10 + i
    return out


CASES[reversed_range] = [(I(4),), (I(0),)]


def negative_step(n):
    total = 0
    for i in range(n, 0, -2):
        total += i
    return total


CASES[negative_step] = [(I(7),), (I(0),), (I(-3),)]


def prime_by_for_else(n):
    for d in range(2, n):
        if n % d == 0:
            result = False
            break
    else:
        result = n >= 2
    return result


CASES[prime_by_for_else] = [(I(7),), (I(9),), (I(1),), (I(2),)]


def contains_above(x, t):
    found = False
    for v in x:
        if v > t:
            found = True
    return found


CASES[contains_above] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0, 2.5]), F(3.0))]


def mixed_increment(x):
    total = 0
    for v in x:
        total += 1 if v > 0 else 0.5
    return total


CASES[mixed_increment] = [(F([1.0, -2.0, 3.0]),), (F([1.0, 2.0, 3.0]),)]


def builtin_max_of_array(x):
    return max(x), min(x)


CASES[builtin_max_of_array] = [(F([1.0, 7.0, -3.0]),)]


def enumerate_from_one(x):
    best = 0
    for i, v in enumerate(x, start=1):
        if v > 0:
            best = i
    return best


CASES[enumerate_from_one] = [(F([1.0, -7.0, 3.0, -1.0]),), (F([-1.0, -7.0, -3.0, -1.0]),)]


def closure_in_loop(x, n):
    def step(v, k):
        return v * 0.5 + k

    for k in range(n):
        x = step(x, k)
    return x


CASES[closure_in_loop] = [(F([1.0, 2.0]), I(3)), (F([1.0, 2.0]), I(0))]


def rounding_ties(x):
    n = round(x.sum())
    return n, round(x[0])


CASES[rounding_ties] = [(F([1.0, 1.5]),), (F([0.5, 3.0]),), (F([-1.5, 0.0]),)]


def counter_in_both_branches(x):
    evens = 0
    odds = 0
    for v in x:
        if v % 2 == 0:
            evens += 1
        else:
            odds += 2
    return evens, odds


CASES[counter_in_both_branches] = [(I([1, 2, 3, 4, 6]),)]


def modulo_negative(n, m):
    steps = 0
    while n < 0:
        n = n + m
        steps += 1
    return n % m, n // m, steps


CASES[modulo_negative] = [(I(-7), I(3)), (I(5), I(3)), (I(-1), I(4))]


def nested_if_in_while_with_return(x):
    i = 0
    while i < x.shape[0]:
        if x[i] > 0:
            if x[i] > 10:
                return x[i] * 0
            x = x.at[i].set(-x[i])
        i += 1
    return x.sum()


CASES[nested_if_in_while_with_return] = [(F([1.0, -2.0, 3.0]),), (F([1.0, 20.0, 3.0]),)]


def iterate_while_rebinding(x):
    total = 0.0
    for v in x:
        total += v
        x = x * 2
    return total, x


CASES[iterate_while_rebinding] = [(F([1.0, 2.0, 3.0]),)]


def carry_to_next(x):
    for i, v in enumerate(x):
        if i + 1 < len(x):
            x = x.at[i + 1].add(v)
    return x


CASES[carry_to_next] = [(F([1.0, 2.0, 3.0, 4.0]),)]


def popcount(n):
    count = 0
    while n:
        count += n & 1
        n >>= 1
    return count


CASES[popcount] = [(I(0),), (I(1),), (I(255),), (I(1000),)]


def halve_while_even(n):
    steps = 0
    while n > 0 and not n % 2:
        n //= 2
        steps += 1
    return n, steps


CASES[halve_while_even] = [(I(48),), (I(7),), (I(0),)]


def capped_loop(x, n):
    for i in range(min(n, 3)):
        x = x + i
    return x


CASES[capped_loop] = [(F([1.0, 2.0]), I(2)), (F([1.0, 2.0]), I(10)), (F([1.0, 2.0]), I(-1))]


def split_sums_list(x):
    acc = [0.0, 0.0]
    for v in x:
        if v > 0:
            acc[0] += v
        else:
            acc[1] += v
    return acc


CASES[split_sums_list] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, -2.0, -3.0]),)]


def dict_counters(x):
    stats = {"pos": 0, "neg": 0}
    for v in x:
        if v > 0:
            stats["pos"] += 1
        elif v < 0:
            stats["neg"] += 1
    return stats


CASES[dict_counters] = [(F([1.0, -2.0, 3.0, 0.0]),), (F([-1.0, -2.0, -3.0, -4.0]),)]


class _State:
    def __init__(self):
        self.count = 0
        self.total = 0.0


def object_attribute_counter(x):
    state = _State()
    for v in x:
        if v > 0:
            state.count += 1
            state.total = state.total + v
    return state.count, state.total


CASES[object_attribute_counter] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, -2.0, -3.0]),)]


def mutate_list_in_if(x):
    flags = [False, False]
    if x.sum() > 0:
        flags[0] = True
    else:
        flags[1] = True
    return flags


CASES[mutate_list_in_if] = [(F([1.0, 2.0]),), (F([-1.0, -2.0]),)]
