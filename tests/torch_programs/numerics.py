"""Programs run on int64, int32 and float inputs alike: numerical algorithms (Newton,
bisection, series, gcd, digits), loops that make an int tensor a float (``x = x / 2``), Python
numbers next to tensors (``min(x.sum(), 10)``, a counter times 0.5), Python ints that
``torch.compile`` makes dynamic compared in staged blocks, loop-carried tuples and dicts, early
exits, and modules whose methods decide on data."""

import math

import torch
import torch.nn as nn

from tests.torch_programs import t

CASES = {}
i32, f64 = torch.int32, torch.float64


def newton_sqrt_counted(a):
    x = a
    it = 0
    while torch.abs(x * x - a) > 1e-5 * a and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x, it


CASES[newton_sqrt_counted] = [(t(2.0),), (t(1.0),), (t(1e4),)]


def gcd_by_remainders(a, b):
    while b != 0:
        a, b = b, a % b
    return a


CASES[gcd_by_remainders] = [(t(12), t(18)), (t(7), t(0)), (t(100, i32), t(75, i32))]


def sum_range_traced(n):
    s = 0
    for i in range(n):
        s += i
    return s


CASES[sum_range_traced] = [(t(0),), (t(5),), (t(3, i32),)]


def zero_trip_float_acc(x, n):
    acc = 0
    for i in range(n):
        acc = acc + x[i]
    return acc


CASES[zero_trip_float_acc] = [(t([1.0, 2.0, 3.0]), t(2))]


def enumerate_weighted(x):
    total = 0.0
    for i, v in enumerate(x):
        if v > 0:
            total += i * v
        else:
            total -= v
    return total


CASES[enumerate_weighted] = [(t([1.0, -2.0, 3.0]),), (t([-1.0]),)]


def zip_dot_break(a, b):
    acc = 0.0
    for x, y in zip(a, b):
        if x * y < 0:
            break
        acc += x * y
    return acc


CASES[zip_dot_break] = [(t([1.0, 2.0, 3.0]), t([1.0, 1.0, 1.0])),
                        (t([1.0, -2.0, 3.0]), t([1.0, 1.0, 1.0]))]


def early_return_in_loop(x, th):
    for i in range(x.shape[0]):
        if x[i] > th:
            return i, x[i]
    return -1, 0.0


CASES[early_return_in_loop] = [(t([1.0, 5.0, 2.0]), t(3.0)), (t([1.0, 2.0]), t(3.0))]


def elif_chain(x):
    if x < -1:
        y = -1.0
    elif x < 0:
        y = x
    elif x < 1:
        y = x * x
    else:
        y = 1.0
    return y


CASES[elif_chain] = [(t(-2.0),), (t(-0.5),), (t(0.5),), (t(3.0),)]


def elif_chain_int(x):
    if x < 0:
        return 0
    elif x < 10:
        return 1
    elif x < 100:
        return 2
    return 3


CASES[elif_chain_int] = [(t(-3),), (t(3),), (t(30, i32),), (t(300.0),)]


def tuple_carry(x):
    a, b = 0, 1
    i = 0
    while i < x:
        a, b = b, a + b
        i += 1
    return a, b


CASES[tuple_carry] = [(t(0),), (t(10),), (t(5, i32),)]


def dict_carry(x):
    d = {"s": 0.0, "n": 0}
    for v in x:
        if v > 0:
            d["s"] = d["s"] + v
            d["n"] = d["n"] + 1
    return d


CASES[dict_carry] = [(t([1.0, -1.0, 2.0]),), (t([-1.0]),)]


def int32_floor_div(a, b):
    q = 0
    while a >= b:
        a = a - b
        q += 1
    return q, a


CASES[int32_floor_div] = [(t(17, i32), t(5, i32)), (t(3, i32), t(5, i32))]


def min_of_sum_and_const(x):
    return min(x.sum(), 10)


CASES[min_of_sum_and_const] = [(t([1.0, 2.0]),), (t([1, 2]),), (t([10, 20]),)]


def round_item(x):
    return round(x.sum().item())


CASES[round_item] = [(t([1.2, 2.0]),), (t([0.5, 2.0]),)]


def int_of_mean(x):
    n = int(x.mean())
    return n + 1


CASES[int_of_mean] = [(t([1.7, 2.0]),), (t([-1.7, -2.0]),)]


def float_loop_weak(n):
    x = 1.0
    while x < n:
        x = x * 2
    return x


CASES[float_loop_weak] = [(t(10.0),), (t(0.5),), (t(10),), (t(0),)]


def int_loop_on_float(x):
    i = 0
    while x > 1:
        x = x / 2
        i = i + 1
    return i


CASES[int_loop_on_float] = [(t(10.0),), (t(0.5),)]


def sign_int(x):
    if x > 0:
        return 1
    elif x < 0:
        return -1
    else:
        return 0


CASES[sign_int] = [(t(2.0),), (t(-2.0),), (t(0.0),)]


def count_while_bool(x):
    done = False
    i = 0
    while not done:
        i += 1
        if i * i > x:
            done = True
    return i


CASES[count_while_bool] = [(t(10),), (t(0),), (t(2.5),)]


def for_loop_var_after(x, n):
    i = -1
    for i in range(n):
        x = x + i
    return x, i


CASES[for_loop_var_after] = [(t(1.0), t(3)), (t(1.0), t(0))]


def range_start_stop_step(a, b):
    s = 0
    for i in range(a, b, 2):
        s += i
    return s


CASES[range_start_stop_step] = [(t(1), t(10)), (t(5), t(2))]


def range_neg_step(n):
    s = 0
    for i in range(n, 0, -1):
        s = s * 2 + i
    return s


CASES[range_neg_step] = [(t(4),), (t(0),)]


def ternary_int_vs_float(x):
    y = x * 2 if x > 0 else x - 1
    return y


CASES[ternary_int_vs_float] = [(t(2),), (t(-2),), (t(1.5),)]


def and_or_conditions(x, y):
    if x > 0 and y > 0:
        return x + y
    elif x > 0 or y > 0:
        return x - y
    return x * y


CASES[and_or_conditions] = [(t(1.0), t(2.0)), (t(1.0), t(-2.0)), (t(-1.0), t(-2.0))]


def truediv_counter(n):
    i = 0
    acc = 0.0
    while i < n:
        acc = acc + 1 / (i + 1)
        i += 1
    return acc


CASES[truediv_counter] = [(t(4),), (t(0),)]


def modulo_negative(a, b):
    r = a % b
    q = a // b
    if r < 0:
        r = r + b
    return q, r


CASES[modulo_negative] = [(t(-7), t(3)), (t(7), t(-3))]


def pow_int(x, n):
    r = 1
    while n > 0:
        if n % 2 == 1:
            r = r * x
        x = x * x
        n = n // 2
    return r


CASES[pow_int] = [(t(3), t(5)), (t(2), t(0)), (t(1.5), t(3))]


def digits_sum(n):
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


CASES[digits_sum] = [(t(12345),), (t(0),), (t(99, i32),)]


def is_prime_trial(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


CASES[is_prime_trial] = [(t(1),), (t(2),), (t(9),), (t(13),)]


def argmax_loop(x):
    best_i = 0
    best = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > best:
            best = x[i]
            best_i = i
    return best_i, best


CASES[argmax_loop] = [(t([1.0, 3.0, 2.0]),), (t([5, 1, 7]),)]


def item_loop(x):
    v = x.sum().item()
    n = 0
    while v > 1:
        v = v / 2
        n += 1
    return n, v


CASES[item_loop] = [(t([4.0, 4.0]),), (t([0.5]),)]


def divmod_builtin(a, b):
    q, r = divmod(a, b)
    if r == 0:
        return q
    return q + 1


CASES[divmod_builtin] = [(t(10), t(5)), (t(-11), t(5))]


def bool_count(x):
    c = 0
    for v in x:
        c = c + (v > 0)
    return c


CASES[bool_count] = [(t([1.0, -1.0, 2.0]),)]


def loop_int_becomes_float(x, n):
    total = 0
    for i in range(n):
        total = total + x
    return total


CASES[loop_int_becomes_float] = [(t(1.5), t(2))]


def clamp_inplace_loop(x, lo, hi):
    out = x.clone()
    for i in range(x.shape[0]):
        if x[i] < lo:
            out[i] = lo
        elif x[i] > hi:
            out[i] = hi
    return out


CASES[clamp_inplace_loop] = [(t([-1.0, 0.5, 2.0]), t(0.0), t(1.0))]


def pairs_counted_with_break(x):
    count = 0
    for i in range(x.shape[0]):
        if x[i] < 0:
            continue
        for j in range(x.shape[0]):
            if j > i:
                break
            if x[j] > x[i]:
                count += 1
    return count


CASES[pairs_counted_with_break] = [(t([1.0, 3.0, -1.0, 2.0]),), (t([-1.0, -2.0]),)]


def int_times_float_counter(x, n):
    for i in range(n):
        x = x + 0.5 * i
    return x


CASES[int_times_float_counter] = [(t(1), t(3))]


def bisect_root(lo, hi):
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        if mid * mid > 2:
            hi = mid
        else:
            lo = mid
    return lo


CASES[bisect_root] = [(t(0.0, f64), t(2.0, f64)), (t(1.0), t(1.5))]


def early_stop_training(w, x, y):
    prev = float("inf")
    for epoch in range(50):
        pred = x * w
        loss = ((pred - y) ** 2).mean()
        if prev - loss < 1e-6:
            break
        w = w - 0.1 * (2 * (pred - y) * x).mean()
        prev = loss
    return w, epoch


CASES[early_stop_training] = [(t(0.0), t([1.0, 2.0]), t([2.0, 4.0])),
                              (t(2.0), t([1.0, 2.0]), t([2.0, 4.0]))]


class ThresholdCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 3)
        self.limit = 5

    def forward(self, x):
        n = 0
        while x.abs().sum() > 1.0 and n < self.limit:
            x = self.lin(x) * 0.5
            n += 1
        if n == self.limit:
            return x, -1
        return x, n


CASES[ThresholdCounter] = [(torch.ones(3) * 10,), (torch.zeros(3),)]


class SignGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
        self.b = nn.Linear(2, 2)

    def helper(self, h):
        if h.sum() > 0:
            return self.a(h)
        return self.b(h)

    def forward(self, x):
        for _ in range(2):
            x = self.helper(x)
        return x


CASES[SignGate] = [(torch.ones(2),), (-torch.ones(2),)]


def int_accumulator_int32(x):
    total = 0
    for v in x:
        total += v
    return total


CASES[int_accumulator_int32] = [(t([1, 2, 3], i32),), (t([1.5, 2.0]),)]


def min_loop_python_init(x):
    best = 1e9
    for v in x:
        best = min(best, v)
    return best


CASES[min_loop_python_init] = [(t([3.0, 1.0]),)]


def int_division_python(x):
    n = x.shape[0]
    total = x.sum()
    if total > n // 2:
        return total / n
    return total


CASES[int_division_python] = [(t([1.0, 2.0, 3.0]),), (t([0.0, 0.5, 0.0]),)]


def abs_in_loop(x):
    out = 0
    for v in x:
        out = out + abs(v)
    return out


CASES[abs_in_loop] = [(t([1.0, -2.0]),), (t([1, -2]),)]


def fizz_count(n):
    c = 0
    for i in range(1, n + 1):
        if i % 15 == 0:
            c += 3
        elif i % 5 == 0:
            c += 2
        elif i % 3 == 0:
            c += 1
    return c


CASES[fizz_count] = [(t(15),), (t(0),)]


def sqrt_math(x):
    s = 0.0
    for v in x:
        if v >= 0:
            s += math.sqrt(v)
    return s


CASES[sqrt_math] = [(t([1.0, 4.0, -1.0]),)]


def bool_result(x):
    ok = True
    for v in x:
        if v < 0:
            ok = False
    return ok


CASES[bool_result] = [(t([1.0, 2.0]),), (t([1.0, -2.0]),)]


def newton_int_input(a):
    x = a
    while torch.abs(x * x - a) > 1e-3:
        x = (x + a / x) / 2
    return x
CASES[newton_int_input] = [(t(4),), (t(10, i32),), (t(10.0),)]


def while_true_break(x):
    i = 0
    while True:
        x = x * 2
        i += 1
        if x > 100:
            break
    return x, i
CASES[while_true_break] = [(t(1.0),), (t(200.0),), (t(3),)]


def defined_in_traced_loop(n):
    for i in range(n):
        sq = i * i
    return sq
CASES[defined_in_traced_loop] = [(t(3),), (t(1),)]


def return_in_while_in_for(x):
    for i in range(x.shape[0]):
        j = 0
        while j < i:
            if x[i] + x[j] == 0:
                return i, j
            j += 1
    return -1, -1
CASES[return_in_while_in_for] = [(t([1.0, 2.0, -1.0]),), (t([1.0, 2.0]),)]


def setitem_traced_loop(x, n):
    x = x.clone()
    for i in range(n):
        x[i] = i * 10
    return x
CASES[setitem_traced_loop] = [(t([1.0, 2.0, 3.0]), t(2)), (t([1, 2, 3]), t(3))]


def bool_input(flag, x):
    if flag:
        return x + 1
    return x - 1
CASES[bool_input] = [(t(True), t(1.0)), (t(False), t(1))]


def exp_series_until(x):
    term = torch.ones_like(x)
    total = term
    k = 1
    while torch.abs(term) > 1e-7:
        term = term * x / k
        total = total + term
        k += 1
    return total, k
CASES[exp_series_until] = [(t(1.0),), (t(0.0),), (t(1),)]


def sum_of_squares_upto(limit):
    i = 1
    total = 0
    while total + i * i <= limit:
        total += i * i
        i += 1
    return i - 1, total
CASES[sum_of_squares_upto] = [(t(30),), (t(0),), (t(14.5),)]


def halve_int(x, n):
    for _ in range(n):
        x = x / 2
    return x
CASES[halve_int] = [(t(8), t(2))]


def lcm_loop(a, b):
    x, y = a, b
    while y:
        x, y = y, x % y
    return a * b // x
CASES[lcm_loop] = [(t(4), t(6)), (t(7, i32), t(3, i32))]


class StepCounter(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("calls", torch.zeros((), dtype=torch.int64))
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        if x.sum() > 0:
            self.calls += 1
        return self.lin(x)
CASES[StepCounter] = [(torch.ones(2),), (-torch.ones(2),)]


class LoopUntilSmall(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(0.5))
        self.tol = 0.1

    def shrink(self, x):
        return x * self.scale

    def forward(self, x):
        steps = 0
        while x.norm() > self.tol:
            x = self.shrink(x)
            steps = steps + 1
        return x, steps
CASES[LoopUntilSmall] = [(torch.ones(3),), (torch.zeros(3),), (torch.full((3,), 0.01),)]


class PerRowGate(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Linear(3, 2)
        self.neg = nn.Linear(3, 2)

    def forward(self, x):
        outs = []
        for row in x:
            if row.mean() > 0:
                outs.append(self.pos(row))
            else:
                outs.append(self.neg(row))
        return torch.stack(outs)
CASES[PerRowGate] = [(torch.tensor([[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]]),)]


class EarlyExitLayers(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = torch.tanh(layer(x))
            if x.abs().max() < 0.2:
                return x, i
        return x, len(self.layers)
CASES[EarlyExitLayers] = [(torch.ones(2),), (torch.zeros(2),)]


def int_floor_conversion(x):
    k = int(x * 10)
    r = 0
    while k > 0:
        r += k % 3
        k //= 3
    return r
CASES[int_floor_conversion] = [(t(2.57),), (t(0.05),)]


def scalar_float_ops(x):
    y = float(x)
    if y > 2.5:
        y = y / 2
    return math.floor(y) + 0.5
CASES[scalar_float_ops] = [(t(7.0),), (t(1.2),)]


def nested_if_in_while(x):
    n = 0
    while x > 1:
        if x > 100:
            x = x / 10
        elif x > 10:
            x = x / 3
        else:
            x = x - 1
        n += 1
    return x, n
CASES[nested_if_in_while] = [(t(1000.0),), (t(0.5),)]


def early_exit_flag(x):
    found = False
    idx = -1
    for i in range(x.shape[0]):
        if not found and x[i] > 0:
            found = True
            idx = i
    return found, idx
CASES[early_exit_flag] = [(t([-1.0, 2.0, 3.0]),), (t([-1.0]),)]


def exp_series(x, terms):
    term = 1.0
    total = 1.0
    for k in range(1, terms):
        term = term * x / k
        total = total + term
    return total
CASES[exp_series] = [(t(1.0), t(10)), (t(1.0), t(1)), (t(2.0), 5)]


def item_int_loop(x):
    n = int(x.sum().item())
    acc = 0
    for i in range(n):
        acc += i
    return acc
CASES[item_int_loop] = [(t([1, 2]),), (t([0, 0]),)]


def float64_loop(x):
    s = torch.zeros((), dtype=torch.float32)
    for v in x:
        s = s + v
    return s
CASES[float64_loop] = [(t([1.0, 2.0], f64),)]


def while_counter_compare_python(n):
    i = 0
    while i * i < n:
        i += 1
    return i
CASES[while_counter_compare_python] = [(t(10),), (t(0),), (t(10.5, f64),)]


def prefix_sum_item(x, n):
    k = n.item()
    return x[:k].sum()
CASES[prefix_sum_item] = [(t([1.0, 2.0, 3.0]), t(2)), (t([1.0, 2.0, 3.0]), t(0)),
                          (t([1.0, 2.0, 3.0]), t(3))]


def arange_of_item(n):
    k = int(n)
    total = 0
    for i in range(k):
        total += i * i
    return total
CASES[arange_of_item] = [(t(4),), (t(0),), (t(7),)]


def python_int_arg(x, n):
    for _ in range(n):
        x = x * 2
    return x
CASES[python_int_arg] = [(t(1.0), 3), (t(1.0), 0), (t(1.0), 5), (t(2.0), 7)]


def python_float_threshold(x, th):
    if x.sum() > th:
        return x - th
    return x + th
CASES[python_float_threshold] = [(t([1.0, 2.0]), 1.5), (t([1.0, 2.0]), 5.0), (t([1.0, 2.0]), 2.5)]


def shape_dependent(x):
    n = x.shape[0]
    if n > 2:
        return x[:2].sum()
    return x.sum()
CASES[shape_dependent] = [(t([1.0, 2.0, 3.0]),), (t([1.0, 2.0]),), (t([1.0, 2.0, 3.0, 4.0]),),
                          (t([5.0]),)]


def rows_dynamic(x):
    total = torch.zeros(x.shape[1])
    for row in x:
        if row.sum() > 0:
            total = total + row
    return total
CASES[rows_dynamic] = [(torch.ones(2, 3),), (-torch.ones(3, 3),), (torch.ones(4, 3),)]


def while_item(x):
    v = x.item()
    steps = 0
    while v > 1.0:
        v = v / 3
        steps += 1
    return steps
CASES[while_item] = [(t(10.0),), (t(0.5),), (t(100.0),)]


def int_item_index(x, i):
    k = int(i.item())
    if k < x.shape[0]:
        return x[k]
    return x[-1]
CASES[int_item_index] = [(t([1.0, 2.0, 3.0]), t(1)), (t([1.0, 2.0, 3.0]), t(5)),
                         (t([1.0, 2.0, 3.0]), t(2))]


def nonzero_count_loop(x):
    n = int((x > 0).sum())
    out = 0.0
    for i in range(n):
        out = out + i
    return out
CASES[nonzero_count_loop] = [(t([1.0, -1.0, 2.0]),), (t([-1.0]),), (t([1.0, 1.0, 1.0, 1.0]),)]


def argmax_index_branch(x):
    i = torch.argmax(x)
    if i == 0:
        return x[0] * 2
    return x[i]
CASES[argmax_index_branch] = [(t([3.0, 1.0]),), (t([1.0, 3.0]),), (t([1.0, 2.0, 5.0]),)]


def clamp_python_scalars(x, lo, hi):
    out = []
    for v in x:
        if v < lo:
            out.append(lo)
        elif v > hi:
            out.append(hi)
        else:
            out.append(float(v))
    return out
CASES[clamp_python_scalars] = [(t([-1.0, 0.5, 2.0]), 0.0, 1.0)]


def min_int_int(x):
    return min(x.sum(), 10), max(x.max(), 0)
CASES[min_int_int] = [(t([1, 2]),), (t([10, 20]),), (t([-5, -3]),)]


def divide_steps(x, n):
    k = 0
    while x > 1 and k < n:
        x = x / 2
        k += 1
    return x, k
CASES[divide_steps] = [(t(100.0), 3), (t(100.0), 10), (t(0.5), 3), (t(100.0), 20)]


class EarlyExitByIndex(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(4)])

    def forward(self, x):
        for i in range(len(self.layers)):
            x = torch.tanh(self.layers[i](x))
            if x.norm() < 0.5:
                break
        return x, i


CASES[EarlyExitByIndex] = [(torch.ones(2),), (torch.zeros(2),), (torch.full((2,), 5.0),)]
