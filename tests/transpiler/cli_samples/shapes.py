"""Sample user file for the CLI tests."""

import runtime as rt


def scale_until(x, n):
    i = 0
    while i < n:
        x = x * 2.0
        i += 1
    if rt.reduce_sum(x) > 3.0:
        rt.print(x)
    return x


def no_arguments():
    return rt.constant(1.0) + 2.0


class Model:
    def call(self, x):
        return x + 1.0
