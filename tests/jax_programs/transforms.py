"""Functions meant for ``jax.grad`` (scalar losses with an ``if`` or a bounded loop) and for
``jax.vmap`` (per-example functions with an ``if`` or a loop)."""

import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}
TRANSFORMS = {}


# -- jax.grad ---------------------------------------------------------------------------------


def piecewise_loss(x):
    if x > 1.0:
        return x ** 2
    elif x > -1.0:
        return 2.0 * x + 1.0
    return -x


CASES[piecewise_loss] = [(F(3.0),), (F(0.5),), (F(-2.0),)]
TRANSFORMS[piecewise_loss] = "grad"


def huber_loss(pred, target):
    err = pred - target
    total = 0.0
    for e in err:
        if jnp.abs(e) < 1.0:
            total += 0.5 * e ** 2
        else:
            total += jnp.abs(e) - 0.5
    return total


CASES[huber_loss] = [(F([0.5, 3.0, -2.0]), F([0.0, 0.0, 0.0]))]
TRANSFORMS[huber_loss] = "grad"


def grow_until(x):
    y = x
    while y < 10.0:
        y = y * 2.0
    return y


CASES[grow_until] = [(F(1.5),), (F(20.0),)]
TRANSFORMS[grow_until] = "grad"


def power_traced_n(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


CASES[power_traced_n] = [(F(1.5), I(3)), (F(2.0), I(0))]
TRANSFORMS[power_traced_n] = "grad"


# -- jax.vmap ---------------------------------------------------------------------------------


def relu_scalar(x):
    if x > 0:
        return x
    return 0.0 * x


CASES[relu_scalar] = [(F([1.0, -2.0, 0.0, 3.0]),)]
TRANSFORMS[relu_scalar] = "vmap"


def collatz_vmapped(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


CASES[collatz_vmapped] = [(I([1, 6, 27, 7]),)]
TRANSFORMS[collatz_vmapped] = "vmap"


def first_above_per_row(row, t):
    for i in range(row.shape[0]):
        if row[i] > t:
            return i
    return -1


CASES[first_above_per_row] = [(F([[1.0, 5.0, 2.0], [0.0, 0.0, 0.0], [9.0, 1.0, 1.0]]),
                               F([3.0, -1.0, 10.0]))]
TRANSFORMS[first_above_per_row] = "vmap"


def clip_and_count(x):
    count = 0
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            x = x.at[i].set(1.0)
            count += 1
    return x, count


CASES[clip_and_count] = [(F([[0.5, 2.0, 3.0], [0.1, 0.2, 0.3]]),)]
TRANSFORMS[clip_and_count] = "vmap"


def steps_to_threshold(x, t):
    steps = 0
    while x < t:
        x = x * 1.5 + 0.1
        steps += 1
    return steps, x


CASES[steps_to_threshold] = [(F([0.1, 5.0, 1.0]), F([2.0, 1.0, 30.0]))]
TRANSFORMS[steps_to_threshold] = "vmap"


def sign_category(x):
    if x.sum() > 0 and x.max() > 1:
        return jnp.int32(2)
    elif x.sum() > 0:
        return jnp.int32(1)
    return jnp.int32(0)


CASES[sign_category] = [(F([[1.0, 2.0], [0.2, 0.3], [-1.0, -2.0]]),)]
TRANSFORMS[sign_category] = "vmap"


def count_by_sign_per_row(x):
    stats = {"pos": 0, "neg": 0}
    for v in x:
        if v > 0:
            stats["pos"] += 1
        elif v < 0:
            stats["neg"] += 1
    return stats


CASES[count_by_sign_per_row] = [(F([[1.0, -2.0, 3.0], [-1.0, -2.0, 0.0]]),)]
TRANSFORMS[count_by_sign_per_row] = "vmap"


def first_large_row_sum(x):
    for row in x:
        if row.sum() > 2.0:
            return row.sum()
    return 0.0


CASES[first_large_row_sum] = [(F([[[1.0, 0.5], [2.0, 3.0]], [[0.1, 0.2], [0.3, 0.4]]]),)]
TRANSFORMS[first_large_row_sum] = "vmap"


def loss_with_early_return(w, x):
    total = 0.0
    for row in x:
        pred = row @ w
        if pred > 5.0:
            return total + pred
        total = total + pred ** 2
    return total


CASES[loss_with_early_return] = [(F([1.0, 2.0]), F([[1.0, 0.5], [2.0, 3.0], [1.0, 1.0]])),
                                 (F([0.1, 0.2]), F([[1.0, 0.5], [2.0, 3.0], [1.0, 1.0]]))]
TRANSFORMS[loss_with_early_return] = "grad"
