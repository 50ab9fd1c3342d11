"""``while`` loops on array values, with ``break``, ``continue`` and ``return``."""

import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}


def halve_until_small(x, eps):
    while jnp.linalg.norm(x) > eps:
        x = x / 2
    return x


CASES[halve_until_small] = [(F([3.0, 4.0]), F(1.0)), (F([0.1, 0.2]), F(1.0)),
                            (F([30.0, 40.0]), F(0.5))]


def count_halvings(x):
    steps = 0
    while x.sum() > 1:
        x = x * 0.5
        steps += 1
    return x, steps


CASES[count_halvings] = [(F([1.0, 2.0, 3.0]),), (F([0.1, 0.2]),), (F([100.0, 0.0]),)]


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


CASES[collatz_steps] = [(I(1),), (I(6),), (I(27),), (I(97),)]


def index_of_first_negative(x):
    i = 0
    while i < x.shape[0]:
        if x[i] < 0:
            break
        i += 1
    return i


CASES[index_of_first_negative] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, 2.0, 3.0]),),
                                  (F([1.0, 2.0, 3.0]),)]


def sum_skipping_multiples(n, k):
    total = 0
    i = 0
    while i < n:
        i += 1
        if i % k == 0:
            continue
        total += i
    return total


CASES[sum_skipping_multiples] = [(I(10), I(3)), (I(0), I(2)), (I(7), I(1)), (I(5), I(10))]


def find_value(x, target):
    i = 0
    while i < len(x):
        if x[i] == target:
            return i
        i += 1
    return -1


CASES[find_value] = [(I([4, 7, 1, 7]), I(7)), (I([4, 7, 1, 7]), I(4)), (I([4, 7, 1, 7]), I(9))]


def leading_positive_sum(x):
    i = 0
    total = 0.0
    while i < x.shape[0] and x[i] > 0:
        total += x[i]
        i += 1
    return total


CASES[leading_positive_sum] = [(F([1.0, 2.0, -1.0, 4.0]),), (F([-1.0, 2.0, 1.0, 4.0]),),
                               (F([1.0, 2.0, 1.0, 4.0]),)]


def fixed_point_cos(x, tol):
    done = False
    iterations = 0
    while not done:
        new_x = jnp.cos(x)
        done = jnp.abs(new_x - x) < tol
        x = new_x
        iterations += 1
    return x, iterations


CASES[fixed_point_cos] = [(F(1.0), F(1e-4)), (F(0.7390851), F(1e-3)), (F(-2.0), F(1e-2))]


def power_iteration(a, tol):
    v = jnp.ones(a.shape[0]) / jnp.sqrt(a.shape[0])
    diff = 1.0
    it = 0
    while diff > tol and it < 100:
        w = a @ v
        w = w / jnp.linalg.norm(w)
        diff = jnp.linalg.norm(w - v)
        v = w
        it += 1
    return v @ a @ v, it


CASES[power_iteration] = [(F([[2.0, 1.0], [1.0, 3.0]]), F(1e-4)),
                          (F([[4.0, 0.0], [0.0, 1.0]]), F(1e-3)),
                          (F([[1.0, 0.0], [0.0, 1.0]]), F(1e-3))]


def fast_power(base, exp):
    result = 1
    while exp > 0:
        if exp % 2 == 1:
            result = result * base
        base = base * base
        exp = exp // 2
    return result


CASES[fast_power] = [(I(3), I(0)), (I(3), I(5)), (I(2), I(10)), (F(1.5), I(3))]


def zero_prefix(x, n):
    i = 0
    while i < n:
        x = x.at[i].set(0)
        i += 1
    return x


CASES[zero_prefix] = [(F([1.0, 2.0, 3.0, 4.0]), I(2)), (F([1.0, 2.0, 3.0, 4.0]), I(0)),
                      (F([1.0, 2.0, 3.0, 4.0]), I(4))]


def countdown_with_break(n):
    steps = 0
    while True:
        if n <= 0:
            break
        n = n - 3
        steps += 1
    return steps, n


CASES[countdown_with_break] = [(I(10),), (I(0),), (I(-5),), (I(3),)]


def while_else_search(x, target):
    i = 0
    while i < x.shape[0]:
        if x[i] > target:
            found = True
            break
        i += 1
    else:
        found = False
    return found, i


CASES[while_else_search] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0, 2.0]), F(3.0))]


def lower_bound(xs, target):
    lo, hi = 0, xs.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


CASES[lower_bound] = [(F([1.0, 3.0, 5.0, 7.0]), F(4.0)), (F([1.0, 3.0]), F(0.0)),
                      (F([1.0]), F(9.0))]


def heap_depth(i):
    depth = 0
    while i > 0:
        i = (i - 1) // 2
        depth += 1
    return depth


CASES[heap_depth] = [(I(0),), (I(6),), (I(100),)]


def power_by_squaring(b, e):
    r = 1
    while e > 0:
        if e % 2 == 1:
            r = r * b
        b = b * b
        e = e // 2
    return r


CASES[power_by_squaring] = [(I(3), I(5)), (I(2), I(0))]


def nested_while_break(x):
    i = 0
    total = 0.0
    while i < 5:
        j = 0
        while j < 5:
            if x * i * j > 6:
                break
            total = total + 1
            j += 1
        i += 1
    return total


CASES[nested_while_break] = [(F(1.0),), (F(0.0),)]
