"""while loops: tensor-dependent tests, 0/1/2+ loop variables, nesting, locals of the body.

Every loop terminates on every input, including negative ones (graph loops cannot be cut short).
"""

from .harness import case

COUNTS = [(0,), (1,), (2,), (5,), (9,), (-3,)]


def _positive(v):
    return v > 0


def countdown(n):
    i = 0
    while n > 0:
        n -= 1
        i += 1
    return i


def sum_to(n):
    s = 0
    i = 0
    while i < n:
        i += 1
        s += i
    return s


def zero_iterations_keep_values(n):
    a = 7
    b = -7
    while n > 100:
        a = a + 1
        b = b - 1
        n = n - 1
    return a, b, n


def collatz_steps(n):
    steps = 0
    while n != 1 and steps < 200:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def digit_sum(n):
    s = 0
    n = abs(n)
    while n > 0:
        s += n % 10
        n //= 10
    return s


def fibonacci(n):
    a, b = 0, 1
    i = 0
    while i < n:
        a, b = b, a + b
        i += 1
    return a


def count_even_odd(n):
    evens = 0
    odds = 0
    i = 0
    while i < n:
        if i % 2 == 0:
            evens += 1
        else:
            odds += 1
        i += 1
    return evens, odds


def nested_while(n):
    i = 0
    total = 0
    while i < n:
        j = 0
        while j < i:
            total += j
            j += 1
        i += 1
    return total


def python_test_tensor_body(x):
    i = 0
    while i < 3:
        x = x * 2 + i
        i += 1
    return x


def test_with_or(n, m):
    count = 0
    while n > 0 or m > 0:
        n -= 1
        m -= 2
        count += 1
    return count, n, m


def body_local_variable(n):
    total = 0
    while n > 0:
        square = n * n
        total += square
        n -= 1
    return total


def bit_length(n):
    bits = 0
    while n > 0:
        n //= 2
        bits += 1
    return bits


def next_power_of_two(n):
    p = 1
    while p < n:
        p *= 2
    return p


def test_calls_helper(n):
    steps = 0
    while _positive(n):
        n -= 3
        steps += 1
    return n, steps


def reverse_digits(n):
    r = 0
    while n > 0:
        r = r * 10 + n % 10
        n = n // 10
    return r


def integer_sqrt(n):
    r = 0
    while (r + 1) * (r + 1) <= n:
        r += 1
    return r


def test_uses_two_variables(a, b):
    steps = 0
    while a < b:
        a += 2
        b -= 1
        steps += 1
    return a, b, steps


def decrement_until_divisible(n, d):
    while n % d != 0:
        n -= 1
    return n


def loop_variable_bool_flag(n):
    done = False
    i = 0
    while not done:
        i += 1
        if i >= n:
            done = True
    return i


CASES = [
    case(countdown, COUNTS),
    case(sum_to, COUNTS),
    case(zero_iterations_keep_values, [(0,), (5,), (101,), (103,)]),
    case(collatz_steps, [(1,), (2,), (3,), (6,), (7,), (27,), (0,), (-1,), (-5,)]),
    case(gcd, [(12, 18), (18, 12), (7, 0), (0, 5), (17, 5), (-12, 18), (12, -18), (100, 75)]),
    case(digit_sum, [(0,), (7,), (123,), (-456,), (9999,), (1000,)]),
    case(fibonacci, [(0,), (1,), (2,), (10,), (20,), (25,), (-1,)]),
    case(count_even_odd, COUNTS),
    case(nested_while, COUNTS),
    case(python_test_tensor_body, [(0,), (1,), (-4,), (10,)]),
    case(test_with_or, [(0, 0), (3, 0), (0, 5), (4, 4), (-1, 7), (6, -2)]),
    case(body_local_variable, COUNTS),
    case(bit_length, [(0,), (1,), (2,), (7,), (8,), (255,), (1000,), (-8,)]),
    case(next_power_of_two, [(-5,), (0,), (1,), (2,), (3,), (17,), (1000,)]),
    case(test_calls_helper, [(-1,), (0,), (1,), (3,), (10,)]),
    case(reverse_digits, [(0,), (5,), (120,), (12345,), (-12,)]),
    case(integer_sqrt, [(-4,), (0,), (1,), (3,), (4,), (15,), (16,), (99,), (10000,)]),
    case(test_uses_two_variables, [(0, 0), (0, 10), (5, 3), (-4, 20), (1, 2)]),
    case(decrement_until_divisible, [(10, 3), (9, 3), (0, 7), (17, 5), (-4, 3), (23, 1)]),
    # Python values only: with a tensor n the test would turn from Python to tensor after the
    # first iteration, which is illegal (see the spec's "consistency of control flow types").
    case(loop_variable_bool_flag, [(1,), (2,), (5,), (0,), (-3,)], tensor_params=()),
]
