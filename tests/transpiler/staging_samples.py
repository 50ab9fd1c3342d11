"""Python functions the JAX and PyTorch staging tests both convert (a test checks an engine's
error against the line of this file it names)."""


def stepped_sum(n, step):
    total = 0
    for i in range(0, n, step):
        total += i
    return total


def zero_step_sum(n):
    total = 0
    for i in range(0, n, 0):
        total += i
    return total


def total_of_first(x, n):
    total = 0
    for i in range(n):
        total += x[i]
    return total


def zipped_and_enumerated(x, y):
    total = 0.0
    for i, (a, b) in enumerate(zip(x, y * 2)):
        total += a * b * i
    for (i, a), b in zip(enumerate(x, 1), y):
        if a > 2.5:
            break
        total += a * b * i
    for i, ((j, a), b) in enumerate(zip(enumerate(x), y[1:])):
        total += a * b * i * j
    return total


def reverse_digits(n):
    reversed_number = 0
    while n > 0:
        reversed_number = reversed_number * 10 + n % 10
        n = n // 10
    return reversed_number


def halved_sum(x):
    total = 1.0
    while x > 1:
        total = total * 0.5 + x
        x = x / 2
    return total


def rotated(b, first, second):
    u, v = first, second
    while b > 0:
        u, v = v, b
        b = b - 1
    return u


def extended_gcd(a, b):
    x0, x1 = 1, 0
    while b != 0:
        q = a // b
        a, b = b, a - q * b
        x0, x1 = x1, x0 - q * x1
    return a, x0


def reversed_weighted(start, limit, step):
    total = 0
    weight = 1
    for i in reversed(range(start, limit, step)):
        total += i * weight
        weight += 1
    return total
