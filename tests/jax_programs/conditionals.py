"""``if``/``elif``/``else``, ternaries, ``and``/``or``/``not`` on array values."""

import jax
import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}


def relu_or_negate(x):
    if x.sum() > 0:
        return jax.nn.relu(x)
    else:
        return -x


CASES[relu_or_negate] = [(F([1.0, -2.0, 3.0]),), (F([-1.0, -2.0, 0.5]),), (F([0.0, 0.0, 0.0]),)]


def clip_by_norm(x, max_norm):
    norm = jnp.linalg.norm(x)
    if norm > max_norm:
        x = x * (max_norm / norm)
    return x


CASES[clip_by_norm] = [(F([3.0, 4.0]), F(1.0)), (F([0.3, 0.4]), F(1.0))]


def sign_label(x):
    if x.mean() > 0:
        label = 1
    elif x.mean() < 0:
        label = -1
    else:
        label = 0
    return label


CASES[sign_label] = [(F([1.0, 2.0]),), (F([-1.0, -2.0]),), (F([1.0, -1.0]),)]


def scale_by_sign(x):
    scale = 2.0 if x.sum() > 0 else 0.5
    return x * scale


CASES[scale_by_sign] = [(F([1.0, 2.0]),), (F([-3.0, 2.0]),)]


def shift_if_any_above(x, t):
    if jnp.any(x > t):
        return x - t
    return x


CASES[shift_if_any_above] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0, 2.5]), F(3.0))]


def log_likelihood_or_zero(x):
    if jnp.all(x > 0):
        return jnp.log(x).sum()
    return 0.0


CASES[log_likelihood_or_zero] = [(F([1.0, 2.0, 3.0]),), (F([1.0, -2.0, 3.0]),)]


def both_positive(x, y):
    if x.sum() > 0 and y.sum() > 0:
        return x + y
    return x - y


CASES[both_positive] = [(F([1.0, 2.0]), F([3.0, 4.0])), (F([1.0, 2.0]), F([-3.0, -4.0])),
                        (F([-1.0, -2.0]), F([3.0, 4.0]))]


def either_negative(x, y):
    if x.min() < 0 or y.min() < 0:
        return jnp.abs(x) + jnp.abs(y)
    return x * y


CASES[either_negative] = [(F([1.0, 2.0]), F([3.0, 4.0])), (F([1.0, 2.0]), F([3.0, -4.0]))]


def zero_if_not_finite(x):
    if not jnp.isfinite(x).all():
        return jnp.zeros_like(x)
    return x


CASES[zero_if_not_finite] = [(F([1.0, 2.0]),), (F([1.0, float("inf")]),),
                             (F([float("nan"), 0.0]),)]


def piecewise_scalar(x):
    if x > 1.0:
        y = x ** 2
    elif x > -1.0:
        y = 2.0 * x + 1.0
    else:
        y = -x
    return y


CASES[piecewise_scalar] = [(F(3.0),), (F(0.5),), (F(-1.0),), (F(-4.0),)]


def quadrant(x, y):
    if x >= 0:
        if y >= 0:
            q = 1
        else:
            q = 4
    else:
        if y >= 0:
            q = 2
        else:
            q = 3
    return q


CASES[quadrant] = [(F(1.0), F(2.0)), (F(1.0), F(-2.0)), (F(-1.0), F(2.0)), (F(-1.0), F(-2.0))]


def leaky_then_normalize(x):
    y = jnp.where(x > 0, x, 0.01 * x)
    if y.sum() > 1:
        y = y / y.sum()
    return y


CASES[leaky_then_normalize] = [(F([1.0, 2.0, -1.0]),), (F([0.1, 0.2, -1.0]),)]


def is_sorted(x):
    if jnp.all(x[1:] >= x[:-1]):
        return True
    return False


CASES[is_sorted] = [(F([1.0, 2.0, 2.0, 5.0]),), (F([1.0, 3.0, 2.0, 5.0]),)]


def safe_divide(a, b):
    if b == 0:
        return jnp.zeros_like(a)
    return a / b


CASES[safe_divide] = [(F([1.0, 2.0]), F(2.0)), (F([1.0, 2.0]), F(0.0))]


def apply_mode(x, mode):
    if mode == 0:
        return x * 2
    elif mode == 1:
        return x + 1
    else:
        return -x


CASES[apply_mode] = [(F([1.0, 2.0]), I(0)), (F([1.0, 2.0]), I(1)), (F([1.0, 2.0]), I(7))]


def scale_or_default(x, s):
    scale = s or 1.0
    return x * scale


CASES[scale_or_default] = [(F([1.0, 2.0]), F(3.0)), (F([1.0, 2.0]), F(0.0))]


def add_bias(x, b=None):
    if b is not None:
        x = x + b
    if x.max() > 10:
        x = x / 10
    return x


CASES[add_bias] = [(F([1.0, 20.0]),), (F([1.0, 2.0]), F([1.0, 1.0])), (F([1.0, 2.0]), F(30.0))]


def threshold_then_maybe_defined(x):
    if x.sum() > 0:
        y = x * 2
    return y


CASES[threshold_then_maybe_defined] = [(F([1.0, 2.0]),), (F([-1.0, -2.0]),)]


def int_or_float_branch(x):
    if x.sum() > 0:
        return x.sum()
    return 0


CASES[int_or_float_branch] = [(F([1.0, 2.0]),), (F([-1.0, -2.0]),)]


def in_range(x, lo, hi):
    if lo <= x <= hi:
        return x
    return jnp.clip(x, lo, hi)


CASES[in_range] = [(F(0.5), F(0.0), F(1.0)), (F(1.5), F(0.0), F(1.0)), (F(-1.5), F(0.0), F(1.0))]


def sum_above_or_minus_one(x, t):
    if (x > t).any():
        return jnp.where(x > t, x, 0.0).sum()
    return jnp.array(-1.0)


CASES[sum_above_or_minus_one] = [(F([1.0, 5.0]), F(2.0)), (F([1.0]), F(2.0))]


def nested_ifs_on_reductions(x):
    if x.sum() > 0:
        if x.max() > 5:
            y = x / x.max()
        else:
            y = x * 2
    else:
        if x.min() < -5:
            y = -x
        else:
            y = x + 1
    return y


CASES[nested_ifs_on_reductions] = [(F([1.0, 6.0]),), (F([1.0, 2.0]),), (F([-10.0, 1.0]),),
                                   (F([-1.0, 0.0]),)]


def round_of_array_and_item(x):
    if x.sum() > 0:
        return round(x[0]), round(x.sum().item())
    return round(x[1]), round(x.mean().item())


CASES[round_of_array_and_item] = [(F([2.5, 1.0]),), (F([-3.5, -0.5]),)]
