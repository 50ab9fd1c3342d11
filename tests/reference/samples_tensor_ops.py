"""Samples that call ``rt`` ops or take vectors: reductions in conditions, loops over a vector,
indexing, len of a vector. In plain Python the vector is a list and the ops run eagerly."""

import runtime as rt

from .harness import case

REQUIRES_RUNTIME = True  # test_reference skips this module until `rt` has its ops

VECTORS = [([1, 2, 3],), ([-4, 1, 0],), ([0],), ([5, -5, 5, -5],), ([-1, -2],)]


def reduce_sum_in_condition(xs):
    s = rt.reduce_sum(xs)
    if s > 0:
        return s
    return -s


def loop_over_vector(xs):
    s = 0
    for v in xs:
        s += v * v
    return s


def loop_over_vector_with_break(xs):
    count = 0
    for v in xs:
        if v < 0:
            break
        count += 1
    return count


def print_vector_elements(xs):
    for v in xs:
        print("element", v)
    return len(xs)


def index_first_and_last(xs):
    return xs[0] + xs[-1]


def indexed_loop_over_static_length(xs):
    s = 0
    for i in range(len(xs)):
        s += xs[i] * (i + 1)
    return s


def while_on_reduction(xs):
    steps = 0
    total = rt.reduce_sum(xs)
    while total > 0:
        total -= 3
        steps += 1
    return steps


def running_max_vs_reduce_max(xs):
    best = xs[0]
    for v in xs:
        best = max(best, v)
    return best, rt.reduce_max(xs)


def where_instead_of_if(x):
    return rt.where(x > 0, x, -x)


def maximum_in_loop(n):
    m = 0
    for i in range(n):
        m = rt.maximum(m, (i * 5) % 7)
    return m


def mean_of_floats(xs):
    m = rt.reduce_mean(xs)
    if m > 1.0:
        m = m - 1.0
    return m


CASES = [
    case(reduce_sum_in_condition, VECTORS),
    case(loop_over_vector, VECTORS),
    case(loop_over_vector_with_break, VECTORS),
    case(print_vector_elements, VECTORS),
    case(index_first_and_last, VECTORS),
    case(indexed_loop_over_static_length, VECTORS),
    case(while_on_reduction, VECTORS + [([10, 11],)]),
    case(running_max_vs_reduce_max, VECTORS),
    case(where_instead_of_if, [(3,), (0,), (-4,)]),
    case(maximum_in_loop, [(0,), (1,), (3,), (8,)]),
    case(mean_of_floats, [([1.5, 2.5],), ([0.25],), ([-1.0, 3.0, 4.5],)]),
]
