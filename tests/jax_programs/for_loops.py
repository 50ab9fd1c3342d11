"""``for`` loops over ``range`` (static and traced bounds), array rows, ``enumerate``/``zip``,
with ``break``/``continue``/``return``, ``.at[]`` updates and lists."""

import jax
import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}
STATIC = {}


def triangular(n):
    total = 0
    for i in range(n):
        total += i
    return total


CASES[triangular] = [(I(0),), (I(1),), (I(10),)]


def sum_rows(x):
    acc = jnp.zeros(x.shape[1])
    for row in x:
        acc = acc + row
    return acc


CASES[sum_rows] = [(F([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),), (F([[1.0, -1.0, 0.5]]),)]


def sum_rows_from_zero(x):
    acc = 0.0
    for row in x:
        acc = acc + row
    return acc


CASES[sum_rows_from_zero] = [(F([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),)]


def first_above(x, t):
    idx = -1
    for i in range(x.shape[0]):
        if x[i] > t:
            idx = i
            break
    return idx


CASES[first_above] = [(F([0.5, 4.0, 1.0, 9.0]), F(3.0)), (F([0.5, 4.0, 1.0, 9.0]), F(10.0)),
                      (F([0.5, 4.0, 1.0, 9.0]), F(0.0))]


def sum_positive(x):
    total = 0.0
    for v in x:
        if v <= 0:
            continue
        total += v
    return total


CASES[sum_positive] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, -2.0, -3.0]),)]


def first_negative_value(x):
    for v in x:
        if v < 0:
            return v
    return jnp.zeros(())


CASES[first_negative_value] = [(F([1.0, -2.0, -3.0]),), (F([1.0, 2.0, 3.0]),)]


def fibonacci(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


CASES[fibonacci] = [(I(0),), (I(1),), (I(10),), (I(20),)]


def dot_by_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s += a * b
    return s


CASES[dot_by_zip] = [(F([1.0, 2.0, 3.0]), F([4.0, 5.0, 6.0]))]


def scaled_rows_stacked(x):
    outs = []
    for i in range(x.shape[0]):
        outs.append(x[i] * i)
    return jnp.stack(outs)


CASES[scaled_rows_stacked] = [(F([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),)]


def squares_stacked(n):
    outs = []
    for i in range(n):
        outs.append(i * i)
    return jnp.stack(outs)


CASES[squares_stacked] = [(I(3),), (I(5),)]


def powers_summed(x, n):
    terms = []
    for i in range(n):
        terms.append(x ** i)
    return jnp.stack(terms).sum(axis=0)


CASES[powers_summed] = [(F([1.0, 2.0]), I(3)), (F([0.5, -1.0]), I(1))]


def histogram_by_add(labels, k):
    counts = jnp.zeros(k, dtype=jnp.int32)
    for i in range(labels.shape[0]):
        counts = counts.at[labels[i]].add(1)
    return counts


CASES[histogram_by_add] = [(I([0, 2, 1, 2, 2]), 3)]
STATIC[histogram_by_add] = (1,)


def strided_sum(a, b):
    s = 0
    for i in range(a, b, 2):
        s += i
    return s


CASES[strided_sum] = [(I(0), I(10)), (I(3), I(8)), (I(5), I(5)), (I(7), I(2))]


def index_after_break(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            break
    return i


CASES[index_after_break] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0, 2.0]), F(3.0))]


def arange_loop(x):
    s = 0.0
    for i in jnp.arange(x.shape[0]):
        s = s + x[i] * i
    return s


CASES[arange_loop] = [(F([1.0, 2.0, 3.0]),)]


def len_range_loop(x):
    best = x[0]
    for i in range(1, len(x)):
        if x[i] > best:
            best = x[i]
    return best


CASES[len_range_loop] = [(F([1.0, 5.0, 2.0]),), (F([7.0, 5.0, 2.0]),), (F([-3.0]),)]


def prefix_means(x):
    out = []
    for i, row in enumerate(x):
        out.append(x[: i + 1].mean(axis=0))
    return jnp.stack(out)


CASES[prefix_means] = [(F([[1.0, 2.0], [3.0, 4.0], [5.0, 9.0]]),)]


def mlp_forward(x, params):
    h = x
    for i in range(len(params)):
        w, b = params[i]
        h = jnp.tanh(h @ w + b)
    return h


_W1 = (F([[0.5, -0.5], [1.0, 0.25]]), F([0.1, -0.1]))
_W2 = (F([[1.0, 0.0], [0.5, -1.0]]), F([0.0, 0.2]))
CASES[mlp_forward] = [(F([1.0, 2.0]), [_W1, _W2])]


def mlp_forward_over_params(x, params):
    for w, b in params:
        x = jax.nn.relu(x @ w + b)
    return x


CASES[mlp_forward_over_params] = [(F([1.0, 2.0]), [_W1, _W2]), (F([-1.0, 0.0]), [_W1])]


def total_of_dict(d):
    total = 0.0
    for key in d:
        if d[key].sum() > 0:
            total += d[key].sum()
    return total


CASES[total_of_dict] = [({"a": F([1.0, 2.0]), "b": F([-5.0]), "c": F([0.5])},)]


def running_max_loop(x):
    out = []
    m = -jnp.inf
    for v in x:
        m = jnp.maximum(m, v)
        out.append(m)
    return jnp.array(out)


CASES[running_max_loop] = [(F([1.0, 3.0, 2.0, 5.0]),)]


def rows_with_positive_sum(x):
    total = jnp.zeros(x.shape[1])
    n = 0
    for row in x:
        if row.sum() > 0:
            total = total + row
            n += 1
    return total, n


CASES[rows_with_positive_sum] = [(F([[1.0, 2.0], [-3.0, 1.0], [0.5, 0.5]]),),
                                 (F([[-1.0, -2.0], [-3.0, 1.0], [0.5, -0.6]]),)]


def nested_traced_ranges(n, m):
    total = 0
    for i in range(n):
        for j in range(m):
            if (i + j) % 2 == 0:
                total += i * j
    return total


CASES[nested_traced_ranges] = [(I(3), I(4)), (I(0), I(5)), (I(4), I(0))]


def loop_var_first_assigned(n):
    for i in range(n):
        last = i * i
    return last


CASES[loop_var_first_assigned] = [(I(3),), (I(0),)]


def pad_to_length(x, n):
    out = x
    for _ in range(n - x.shape[0]):
        out = jnp.concatenate([out, jnp.zeros(1)])
    return out


CASES[pad_to_length] = [(F([1.0, 2.0]), 4)]
STATIC[pad_to_length] = (1,)


def runs_of_equal_values(x):
    runs = 0
    previous = None
    for v in x:
        if previous is None or v != previous:
            runs += 1
        previous = v
    return runs


CASES[runs_of_equal_values] = [(I([1, 1, 2, 2, 3, 1]),), (I([5]),)]


def suffix_sums(x):
    best = 0.0
    for i, _ in enumerate(x):
        best = best + x[i:].sum()
    return best


CASES[suffix_sums] = [(F([1.0, 5.0, 2.0]),)]


def best_window_of_two(x):
    best = -jnp.inf
    for i in range(x.shape[0] - 1):
        w = x[i:i + 2].sum()
        if w > best:
            best = w
    return best


CASES[best_window_of_two] = [(F([1.0, 5.0, 2.0, 4.0]),), (F([-1.0, -2.0]),)]


def zip_enumerate_weighted(x, y):
    acc = 0.0
    for i, (a, b) in enumerate(zip(x, y)):
        if a > b:
            acc = acc + i * (a - b)
    return acc


CASES[zip_enumerate_weighted] = [(F([3.0, 1.0, 5.0]), F([1.0, 2.0, 1.0])), (F([0.0]), F([1.0]))]


def triangle_count_traced(n, m):
    c = 0
    for i in range(n):
        for j in range(i, m):
            c += 1
    return c


CASES[triangle_count_traced] = [(I(3), I(4)), (I(0), I(4)), (I(5), I(2))]
