"""Programs run on int and float arrays alike, in JAX's default widths and in explicit int32:
numerical algorithms (Newton, bisection, secant, series, gcd, digits), loops that make an int
array a float (``x = x / 2``), Python numbers next to arrays (``min(x.sum(), 10)``, a counter
times 0.5), dicts carried through loops, early exits, helpers and closures."""

import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}
STATIC = {}


def _i32(value):
    return jnp.asarray(value, jnp.int32)


def _f32(value):
    return jnp.asarray(value, jnp.float32)


def _bool(value):
    return jnp.asarray(value, bool)


def newton_sqrt_counted(a):
    x = a
    it = 0
    while jnp.abs(x * x - a) > 1e-5 * a and it < 50:
        x = 0.5 * (x + a / x)
        it += 1
    return x, it


CASES[newton_sqrt_counted] = [(F(2.0),), (F(9.0),), (F(1.0),), (F(1e4),)]


def bisection_fixed_steps(lo, hi):
    for _ in range(40):
        mid = (lo + hi) / 2
        if mid * mid - 2 > 0:
            hi = mid
        else:
            lo = mid
    return lo


CASES[bisection_fixed_steps] = [(F(0.0), F(2.0)), (F(1.0), F(1.5))]


def gcd_by_remainders(a, b):
    while b != 0:
        a, b = b, a % b
    return a


CASES[gcd_by_remainders] = [(I(12), I(18)), (I(7), I(0)), (I(0), I(5)), (_i32(100), _i32(75))]


def collatz_peak(n):
    best = n
    while n > 1:
        n = jnp.where(n % 2 == 0, n // 2, 3 * n + 1)
        best = max(best, n)
    return best


CASES[collatz_peak] = [(I(1),), (I(7),), (I(27),)]


def power_iteration_early_stop(m, iters):
    v = jnp.ones(m.shape[0]) / m.shape[0]
    lam = 0.0
    for _ in range(iters):
        w = m @ v
        lam_new = jnp.linalg.norm(w)
        v = w / lam_new
        if jnp.abs(lam_new - lam) < 1e-6:
            break
        lam = lam_new
    return lam


CASES[power_iteration_early_stop] = [(F([[2.0, 0.0], [0.0, 1.0]]), 100),
                                     (F([[1.0, 0.0], [0.0, 1.0]]), 3),
                                     (F([[3.0, 1.0], [1.0, 3.0]]), 0)]
STATIC[power_iteration_early_stop] = (1,)


def early_stop_loss(x, lr):
    loss = jnp.sum(x ** 2)
    step = 0
    for step in range(100):
        x = x - lr * 2 * x
        new = jnp.sum(x ** 2)
        if loss - new < 1e-4:
            break
        loss = new
    return x, step


CASES[early_stop_loss] = [(F([1.0, 2.0]), F(0.1)), (F([0.0, 0.0]), F(0.1)), (F([1.0, 1.0]), F(0.5))]


def sum_range_traced(n):
    s = 0
    for i in range(n):
        s += i
    return s


CASES[sum_range_traced] = [(I(0),), (I(5),), (_i32(3),)]


def enumerate_weighted(x):
    total = 0.0
    for i, v in enumerate(x):
        if v > 0:
            total += i * v
        else:
            total -= v
    return total


CASES[enumerate_weighted] = [(F([1.0, -2.0, 3.0]),), (F([-1.0]),)]


def zip_dot_break(a, b):
    acc = 0.0
    for x, y in zip(a, b):
        if x * y < 0:
            break
        acc += x * y
    return acc


CASES[zip_dot_break] = [(F([1.0, 2.0, 3.0]), F([1.0, 1.0, 1.0])),
                        (F([1.0, -2.0, 3.0]), F([1.0, 1.0, 1.0]))]


def nested_break_continue(x):
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


CASES[nested_break_continue] = [(F([1.0, 3.0, -1.0, 2.0]),), (F([-1.0, -2.0]),)]


def early_return_in_loop(x, t):
    for i in range(x.shape[0]):
        if x[i] > t:
            return i, x[i]
    return -1, 0.0


CASES[early_return_in_loop] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0]), F(3.0))]


def dict_carry(x):
    d = {"s": 0.0, "n": 0}
    for v in x:
        if v > 0:
            d["s"] = d["s"] + v
            d["n"] = d["n"] + 1
    return d


CASES[dict_carry] = [(F([1.0, -1.0, 2.0]),), (F([-1.0]),)]


def int32_floor_div(a, b):
    q = 0
    while a >= b:
        a = a - b
        q += 1
    return q, a


CASES[int32_floor_div] = [(_i32(17), _i32(5)), (_i32(3), _i32(5))]


def mixed_python_int(x):
    k = 3
    if x.sum() > 0:
        k = k + 1
    return x * k


CASES[mixed_python_int] = [(F([1.0, 2.0]),), (F([-1.0, -2.0]),), (I([1, 2]),)]


def helper_square(v):
    if v > 0:
        return v * v
    return -v


def calls_helper(x):
    total = 0.0
    for v in x:
        total += helper_square(v)
    return total


CASES[calls_helper] = [(F([1.0, -2.0, 3.0]),)]


def closure_scale(x, s):
    def scale(v):
        if v > s:
            return v * s
        return v
    return scale(x.sum())


CASES[closure_scale] = [(F([1.0, 2.0]), F(1.0)), (F([0.1, 0.2]), F(1.0))]


def min_of_sum_and_const(x):
    return min(x.sum(), 10)


CASES[min_of_sum_and_const] = [(F([1.0, 2.0]),), (F([10.0, 20.0]),), (I([1, 2]),), (I([10, 20]),)]


def float_loop_weak(n):
    x = 1.0
    while x < n:
        x = x * 2
    return x


CASES[float_loop_weak] = [(F(10.0),), (F(0.5),), (I(10),), (I(0),)]


def int_loop_on_float(x):
    i = 0
    while x > 1:
        x = x / 2
        i = i + 1
    return i


CASES[int_loop_on_float] = [(F(10.0),), (F(0.5),)]


def int_or_array(x):
    if x > 0:
        return x
    return 0


CASES[int_or_array] = [(F(2.0),), (F(-2.0),), (I(3),), (I(-3),)]


def count_while_bool(x):
    done = False
    i = 0
    while not done:
        i += 1
        if i * i > x:
            done = True
    return i


CASES[count_while_bool] = [(I(10),), (I(0),), (F(2.5),)]


def for_loop_var_after(x, n):
    i = -1
    for i in range(n):
        x = x + i
    return x, i


CASES[for_loop_var_after] = [(F(1.0), I(3)), (F(1.0), I(0))]


def range_start_stop_step(a, b):
    s = 0
    for i in range(a, b, 2):
        s += i
    return s


CASES[range_start_stop_step] = [(I(1), I(10)), (I(5), I(2)), (I(0), I(1))]


def range_neg_step(n):
    s = 0
    for i in range(n, 0, -1):
        s = s * 2 + i
    return s


CASES[range_neg_step] = [(I(4),), (I(0),)]


def ternary_int_vs_float(x):
    y = x * 2 if x > 0 else x - 1
    return y


CASES[ternary_int_vs_float] = [(I(2),), (I(-2),), (F(1.5),)]


def int_division_python(x):
    n = x.shape[0]
    total = x.sum()
    if total > n // 2:
        return total / n
    return total


CASES[int_division_python] = [(F([1.0, 2.0, 3.0]),), (F([0.0, 0.1, 0.0]),)]


def truediv_counter(n):
    i = 0
    acc = 0.0
    while i < n:
        acc = acc + 1 / (i + 1)
        i += 1
    return acc


CASES[truediv_counter] = [(I(4),), (I(0),)]


def floor_mod_pair(a, b):
    r = a % b
    q = a // b
    if r < 0:
        r = r + b
    return q, r


CASES[floor_mod_pair] = [(I(-7), I(3)), (I(7), I(-3)), (I(7), I(3))]


def pow_int(x, n):
    r = 1
    while n > 0:
        if n % 2 == 1:
            r = r * x
        x = x * x
        n = n // 2
    return r


CASES[pow_int] = [(I(3), I(5)), (I(2), I(0)), (F(1.5), I(3))]


def digits_sum(n):
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


CASES[digits_sum] = [(I(12345),), (I(0),), (_i32(99),)]


def is_prime_trial(n):
    if n < 2:
        return False
    i = 2
    while i * i <= n:
        if n % i == 0:
            return False
        i += 1
    return True


CASES[is_prime_trial] = [(I(1),), (I(2),), (I(9),), (I(13),)]


def first_above_then_sum(x, t):
    idx = x.shape[0]
    for i, v in enumerate(x):
        if v > t:
            idx = i
            break
    return x[:3].sum() * idx


CASES[first_above_then_sum] = [(F([1.0, 5.0, 2.0]), F(3.0)), (F([1.0, 2.0]), F(3.0))]


def running_mean_scan(x):
    mean = 0.0
    for i in range(x.shape[0]):
        mean = mean + (x[i] - mean) / (i + 1)
    return mean


CASES[running_mean_scan] = [(F([1.0, 2.0, 3.0]),), (I([1, 2, 4]),)]


def int_times_float_counter(x, n):
    for i in range(n):
        x = x + 0.5 * i
    return x


CASES[int_times_float_counter] = [(I(1), I(3))]


def accumulate_int32(x):
    total = 0
    for v in x:
        total += v
    return total


CASES[accumulate_int32] = [(_i32([1, 2, 3]),), (I([1, 2]),), (_f32([1.5]),)]


def max_iter_loop(x):
    it = 0
    while x > 1e-3:
        x = x * 0.5
        it += 1
        if it >= 10:
            break
    return x, it


CASES[max_iter_loop] = [(F(1.0),), (F(1e-4),), (F(1e6),)]


def secant_method(x0, x1):
    for _ in range(20):
        f0 = x0 * x0 - 2
        f1 = x1 * x1 - 2
        if jnp.abs(f1 - f0) < 1e-12:
            break
        x0, x1 = x1, x1 - f1 * (x1 - x0) / (f1 - f0)
    return x1


CASES[secant_method] = [(F(1.0), F(2.0))]


def float_int_sum_if(x):
    s = 0
    if x > 0:
        s = s + x
    return s


CASES[float_int_sum_if] = [(F(1.5),), (F(-1.5),), (I(3),), (I(-3),)]


def item_loop(x):
    v = x.sum().item()
    n = 0
    while v > 1:
        v = v / 2
        n += 1
    return n, v


CASES[item_loop] = [(F([4.0, 4.0]),), (F([0.5]),)]


def int_pow_negative(n):
    if n > 0:
        return 2 ** n
    return 0


CASES[int_pow_negative] = [(I(3),), (I(-3),)]


def newton_int_input(a):
    x = a
    while jnp.abs(x * x - a) > 1e-3:
        x = (x + a / x) / 2
    return x
CASES[newton_int_input] = [(I(4),), (I(10),), (jnp.asarray(1000, jnp.int32),), (F(10.0),)]


def halve_int(x, n):
    for _ in range(n):
        x = x / 2
    return x
CASES[halve_int] = [(I(8), I(2)), (I(7), I(3))]


def avg_while(x):
    s = 0
    i = 0
    while i < x.shape[0]:
        s = s + x[i]
        i += 1
    return s / i
CASES[avg_while] = [(I([1, 2, 4]),), (F([1.0, 2.0]),)]


def while_true_break(x):
    i = 0
    while True:
        x = x * 2
        i += 1
        if x > 100:
            break
    return x, i
CASES[while_true_break] = [(F(1.0),), (F(200.0),), (I(3),)]


def defined_in_traced_loop(n):
    for i in range(n):
        sq = i * i
    return sq
CASES[defined_in_traced_loop] = [(I(3),), (I(1),)]


def return_in_while_in_for(x):
    for i in range(x.shape[0]):
        j = 0
        while j < i:
            if x[i] + x[j] == 0:
                return i, j
            j += 1
    return -1, -1
CASES[return_in_while_in_for] = [(F([1.0, 2.0, -1.0]),), (F([1.0, 2.0]),)]


def at_set_traced_loop(x, n):
    for i in range(n):
        x = x.at[i].set(i * 10)
    return x
CASES[at_set_traced_loop] = [(F([1.0, 2.0, 3.0]), I(2)), (I([1, 2, 3]), I(3))]


def bool_input(flag, x):
    if flag:
        return x + 1
    return x - 1
CASES[bool_input] = [(_bool(True), F(1.0)), (_bool(False), I(1))]


def int64_sum(n):
    s = I(0)
    i = 0
    while i < n:
        s = s + i
        i += 1
    return s
CASES[int64_sum] = [(I(10),), (I(0),)]


def while_cond_and(x, y):
    i = 0
    while i < 10 and x[i % 3] < y:
        y = y - 1
        i += 1
    return i, y
CASES[while_cond_and] = [(F([1.0, 2.0, 3.0]), F(5.0)), (F([1.0, 2.0, 3.0]), F(0.0))]


def int_floor_conversion(x):
    k = int(x * 10)
    r = 0
    while k > 0:
        r += k % 3
        k //= 3
    return r
CASES[int_floor_conversion] = [(F(2.57),), (F(0.05),)]


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
CASES[nested_if_in_while] = [(F(1000.0),), (F(0.5),)]


def lcm_loop(a, b):
    x, y = a, b
    while y:
        x, y = y, x % y
    return a * b // x
CASES[lcm_loop] = [(I(4), I(6)), (I(7), I(3))]


def sum_of_squares_upto(limit):
    i = 1
    total = 0
    while total + i * i <= limit:
        total += i * i
        i += 1
    return i - 1, total
CASES[sum_of_squares_upto] = [(I(30),), (I(0),), (F(14.5),)]


def exp_series_until(x):
    term = jnp.ones_like(x)
    total = term
    k = 1
    while jnp.abs(term) > 1e-7:
        term = term * x / k
        total = total + term
        k += 1
    return total, k
CASES[exp_series_until] = [(F(1.0),), (F(0.0),), (I(1),)]


def min_max_python_loop(x):
    lo = x[0]
    hi = x[0]
    for v in x[1:]:
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi
CASES[min_max_python_loop] = [(F([3.0, 1.0, 2.0]),), (I([3, 1, 2]),)]


def float_counter_div(n):
    i = 0
    acc = 0
    while i < n:
        acc += i / 2
        i += 1
    return acc
CASES[float_counter_div] = [(I(4),), (I(3),)]
