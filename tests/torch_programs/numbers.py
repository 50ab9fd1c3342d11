"""Python numbers meeting tensors: ``.item()``, ``int``/``float``/``bool``, ``len``,
``min``/``max``/``abs``/``round``/``sum``, ``math``, counters, Python results."""

import math

import torch

from tests.torch_programs import t

CASES = {}


def item_double_if_positive(x):
    v = x.sum().item()
    if v > 0:
        return v * 2
    return v


CASES[item_double_if_positive] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]


def exp_of_mean(x):
    m = float(x.mean())
    if m > 0:
        return math.exp(-m)
    return math.exp(m)


CASES[exp_of_mean] = [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]


def length_policy(x):
    if len(x) > 3:
        return x[:3].sum()
    return x.sum()


CASES[length_policy] = [(t([1.0, 2.0, 3.0, 4.0]),), (t([1.0, 2.0]),)]


def clamp_with_builtins(x):
    lo = min(x.min(), 0)
    hi = max(x.max(), 1)
    return (x - lo) / (hi - lo)


CASES[clamp_with_builtins] = [(t([0.5, 0.25]),), (t([-2.0, 3.0]),)]


def abs_of_sum(x):
    s = abs(x.sum())
    if s > 1:
        return x / s
    return x


CASES[abs_of_sum] = [(t([-3.0, 1.0]),), (t([0.2, 0.3]),)]


def sqrt_of_energy(x):
    energy = float((x ** 2).sum())
    return math.sqrt(energy)


CASES[sqrt_of_energy] = [(t([3.0, 4.0]),), (t([0.0, 0.0]),)]


def count_positive(x):
    count = 0
    for v in x:
        if v > 0:
            count += 1
    return count


CASES[count_positive] = [(t([1.0, -1.0, 2.0, 0.0]),), (t([-1.0, -1.0]),)]


def rounded_mean(x):
    return round(x.mean().item(), 2)


CASES[rounded_mean] = [(t([1.0, 2.0, 2.5]),), (t([0.1234, 0.5678]),)]


def sum_of_positives_generator(x):
    return sum(v for v in x if v > 0)


CASES[sum_of_positives_generator] = [(t([1.0, -2.0, 3.0]),), (t([-1.0, -2.0]),)]


def any_row_positive(x):
    return any(row.sum() > 0 for row in x)


CASES[any_row_positive] = [(t([[1.0, -2.0], [-3.0, -1.0]]),), (t([[1.0, 2.0], [-3.0, -1.0]]),)]


def summary_dict(x):
    above = 0
    for v in x:
        if v > x.mean():
            above += 1
    return {"mean": x.mean(), "above": above}


CASES[summary_dict] = [(t([1.0, 2.0, 3.0, 10.0]),), (t([1.0, 1.0]),)]


def floor_of_float(x):
    return math.floor(float(x) * 10) / 10


CASES[floor_of_float] = [(t(1.234),), (t(-1.234),)]


def int32_total(x):
    total = 0
    for i in range(x.shape[0]):
        if x[i] % 2 == 1:
            total += x[i]
    return total


CASES[int32_total] = [(t([1, 2, 3, 5], torch.int32),), (t([2, 4, 6, 8], torch.int32),)]


def power_by_int(x, k):
    return x ** int(k)


CASES[power_by_int] = [(t([2.0, 3.0]), t(2)), (t([2.0, 3.0]), t(3))]


def int_of_scaled(x):
    n = int(x * 10)
    if n > 5:
        return n
    return -n


CASES[int_of_scaled] = [(t(0.75),), (t(0.25),), (t(-0.5),)]


def python_float_accumulator(x, n):
    total = 0.0
    for i in range(n):
        total += 0.5 * x.sum()
    return total


CASES[python_float_accumulator] = [(t([1.0, 2.0]), t(0)), (t([1.0, 2.0]), t(4))]


def bool_of_tensor(x):
    positive = bool((x > 0).all())
    if positive:
        return x.log()
    return x


CASES[bool_of_tensor] = [(t([1.0, 2.0]),), (t([-1.0, 2.0]),)]


def max_of_pair(a, b):
    return max(a, b) - min(a, b)


CASES[max_of_pair] = [(t(3.0), t(5.0)), (t(5.0), t(-3.0))]


def log_if_positive_math(x):
    s = x.sum().item()
    return math.log(s) if s > 0 else 0.0


CASES[log_if_positive_math] = [(t([1.0, 2.0]),), (t([-1.0, 0.5]),)]


def len_loop_counter(x):
    n = len(x)
    steps = 0
    while n > 1:
        n = n // 2
        steps += 1
    return steps, x.sum() / len(x)


CASES[len_loop_counter] = [(t([1.0, 2.0, 3.0, 4.0, 5.0]),)]


def mixed_number_tensor_ops(x, scale):
    y = x * scale
    if y.mean() > 1:
        y = y - 1
    return y, scale * 2


CASES[mixed_number_tensor_ops] = [(t([1.0, 2.0]), 3.0), (t([1.0, 2.0]), 0.1)]


def tuple_of_python_results(x):
    n_pos = int((x > 0).sum())
    mean = float(x.mean())
    return n_pos, mean, n_pos > 1


CASES[tuple_of_python_results] = [(t([1.0, 2.0, -1.0]),), (t([-1.0, -2.0, 1.0]),)]


def isclose_check(a, b):
    if math.isclose(float(a), float(b), rel_tol=1e-3):
        return a
    return b - a


CASES[isclose_check] = [(t(1.0), t(1.0001)), (t(1.0), t(2.0))]


def divmod_steps(n):
    q, r = divmod(n, 3)
    if r == 0:
        return q
    return q + 1


CASES[divmod_steps] = [(t(9),), (t(10),)]


def exp_of_float64_mean(x):
    m = float(x.mean())
    if m > 0:
        return math.exp(-m)
    return math.exp(m)


CASES[exp_of_float64_mean] = [(t([1.0, 2.0], torch.float64),), (t([-1.0, -2.0], torch.float64),)]
