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
