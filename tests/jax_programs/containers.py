"""Builtins on arrays (``int``, ``float``, ``len``, ``min``, ``max``, ``abs``, ``sum``,
``round``), Python numbers returned, dict/tuple/list outputs, lists built in loops."""

import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}
STATIC = {}


def repeat_int_times(x, n):
    total = jnp.zeros_like(x)
    for _ in range(int(n)):
        total = total + x
    return total


CASES[repeat_int_times] = [(F([1.0, 2.0]), I(3)), (F([1.0, 2.0]), I(0))]


def loss_as_float(x):
    loss = float(jnp.mean(x ** 2))
    if loss > 1.0:
        return loss, True
    return loss, False


CASES[loss_as_float] = [(F([1.0, 2.0]),), (F([0.1, 0.2]),)]


def clamp_builtin(x, lo, hi):
    return min(max(x, lo), hi)


CASES[clamp_builtin] = [(F(0.5), F(0.0), F(1.0)), (F(2.0), F(0.0), F(1.0)),
                        (F(-2.0), F(0.0), F(1.0))]


def abs_difference_steps(a, b):
    steps = 0
    while abs(a - b) > 0.5:
        if a > b:
            a = a - 1.0
        else:
            b = b - 1.0
        steps += 1
    return steps


CASES[abs_difference_steps] = [(F(5.0), F(1.0)), (F(1.0), F(3.2)), (F(1.0), F(1.2))]


def largest_row_sum(x):
    best = -float("inf")
    for row in x:
        best = max(best, row.sum())
    return best


CASES[largest_row_sum] = [(F([[1.0, 2.0], [3.0, -4.0], [0.5, 0.5]]),)]


def stats_dict(x):
    mean = x.mean()
    n_pos = 0
    for v in x:
        if v > 0:
            n_pos += 1
    return {"mean": mean, "positives": n_pos, "max": x.max()}


CASES[stats_dict] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, -2.0, -0.5]),)]


def sum_builtin_of_list(x):
    parts = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            parts.append(x[i])
        else:
            parts.append(0.0)
    return sum(parts)


CASES[sum_builtin_of_list] = [(F([1.0, -2.0, 3.0]),)]


def item_threshold(x):
    if x.sum().item() > 0:
        return x
    return -x


CASES[item_threshold] = [(F([1.0, 2.0]),), (F([-1.0, -2.0]),)]


def rounded_steps(x):
    n = round(x.sum())
    out = 0
    for i in range(n):
        out += 2
    return out


CASES[rounded_steps] = [(F([1.2, 1.5]),), (F([0.1, 0.2]),)]


def positives_list(x):
    out = []
    for v in x:
        if v > 0:
            out.append(v)
    return jnp.array(out)


CASES[positives_list] = [(F([1.0, -2.0, 3.0]),), (F([1.0, 2.0, 3.0]),)]


def history_of_losses(w, steps):
    history = []
    for _ in range(steps):
        loss = jnp.sum(w ** 2)
        history.append(loss)
        w = w * 0.5
    return jnp.stack(history), w


CASES[history_of_losses] = [(F([1.0, 2.0]), 3), (F([1.0, 2.0]), 1)]
STATIC[history_of_losses] = (1,)


def history_traced_steps(w, steps):
    history = []
    for _ in range(steps):
        history.append(jnp.sum(w ** 2))
        w = w * 0.5
    return history[-1], w


CASES[history_traced_steps] = [(F([1.0, 2.0]), I(3)), (F([1.0, 2.0]), I(1))]


def pairs_of_lists(xs, ys):
    result = []
    for x, y in zip(xs, ys):
        result.append((x + y, x * y))
    return result


CASES[pairs_of_lists] = [(F([1.0, 2.0]), F([3.0, 4.0]))]


def best_with_inf_start(x):
    best = float("inf")
    best_idx = -1
    for i in range(x.shape[0]):
        if x[i] < best:
            best = x[i]
            best_idx = i
    return best, best_idx


CASES[best_with_inf_start] = [(F([3.0, 1.0, 2.0]),), (F([5.0, 6.0]),)]


def tokens_until_stop(tokens, stop):
    out = []
    for t in tokens:
        if t == stop:
            break
        out.append(t)
    return len(out)


CASES[tokens_until_stop] = [(I([5, 3, 0, 7]), I(0)), (I([5, 3, 1, 7]), I(0)), (I([0, 3]), I(0))]


def int_index_from_float(x, pos):
    i = int(pos)
    if i < 0:
        i = 0
    return x[i]


CASES[int_index_from_float] = [(F([1.0, 2.0, 3.0]), F(1.7)), (F([1.0, 2.0, 3.0]), F(-2.5))]


def max_of_elements_builtin(x):
    m = x[0]
    for v in x[1:]:
        m = max(m, v)
    return m, min(x[0], x[-1])


CASES[max_of_elements_builtin] = [(F([1.0, 7.0, 3.0]),), (F([2.0]),)]


def nested_output(x):
    small = []
    large = []
    for i in range(x.shape[0]):
        if x[i] < 1.0:
            small.append(i)
        else:
            large.append(i)
    return {"n_small": len(small), "n_large": len(large)}


CASES[nested_output] = [(F([0.5, 2.0, 3.0]),)]
