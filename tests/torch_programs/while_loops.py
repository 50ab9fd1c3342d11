"""``while`` loops on tensor values: convergence, counters, ``break``/``continue``/``return``."""

import torch

from tests.torch_programs import t

CASES = {}


def halve_until_small(x, eps):
    while torch.norm(x) > eps:
        x = x / 2
    return x


CASES[halve_until_small] = [(t([3.0, 4.0]), t(1.0)), (t([0.3, 0.4]), t(1.0)),
                            (t([300.0, 400.0]), t(0.01))]


def count_halvings(x):
    steps = 0
    while x.abs().max() > 1:
        x = x / 2
        steps += 1
    return steps, x


CASES[count_halvings] = [(t([0.5, -0.2]),), (t([3.0, -1.0]),), (t([-100.0, 7.0]),)]


def newton_sqrt(a):
    x = a / 2 + 1
    it = 0
    while abs(x * x - a) > 1e-10 and it < 100:
        x = (x + a / x) / 2
        it += 1
    return x


CASES[newton_sqrt] = [(t(2.0, torch.float64),), (t(100.0, torch.float64),),
                      (t(1.0, torch.float64),), (t(0.25, torch.float64),)]


def newton_cube_root(a):
    x = torch.ones_like(a)
    for _ in range(100):
        fx = x ** 3 - a
        if fx.abs().max() < 1e-9:
            break
        x = x - fx / (3 * x ** 2)
    return x


CASES[newton_cube_root] = [(t([8.0, 27.0], torch.float64),), (t([1.0, 1.0], torch.float64),),
                           (t([1000.0, 0.5], torch.float64),)]


def bisect_cube_root(c):
    lo = torch.zeros_like(c)
    hi = torch.maximum(c, torch.ones_like(c))
    while hi - lo > 1e-6:
        mid = (lo + hi) / 2
        if mid ** 3 > c:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


CASES[bisect_cube_root] = [(t(8.0, torch.float64),), (t(0.5, torch.float64),),
                           (t(100.0, torch.float64),)]


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


CASES[collatz] = [(t(1),), (t(6),), (t(27),), (t(16),)]


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


CASES[gcd] = [(t(48), t(18)), (t(17), t(5)), (t(10), t(0)), (t(0), t(9))]


def early_stopping(loss, decay):
    best = float("inf")
    patience = 0
    step = 0
    while patience < 3 and step < 100:
        loss = loss * decay + 0.01
        if loss < best - 1e-3:
            best = loss
            patience = 0
        else:
            patience += 1
        step += 1
    return step, best


CASES[early_stopping] = [(t(1.0), t(0.5)), (t(10.0), t(0.9)), (t(0.01), t(0.99))]


def double_until_over(x, limit):
    i = 0
    while True:
        x = x * 2
        i += 1
        if x.sum() > limit:
            break
    return x, i


CASES[double_until_over] = [(t([1.0, 1.0]), t(3.0)), (t([1.0, 1.0]), t(100.0)),
                            (t([0.1, 0.1]), t(0.0))]


def count_odd_below(n):
    i = 0
    count = 0
    while i < n:
        i += 1
        if i % 2 == 0:
            continue
        count += 1
    return count


CASES[count_odd_below] = [(t(0),), (t(1),), (t(10),), (t(7),)]


def gradient_descent(target, lr):
    w = torch.zeros_like(target)
    grad = 2 * (w - target)
    steps = 0
    while grad.norm() > 1e-4 and steps < 1000:
        w = w - lr * grad
        grad = 2 * (w - target)
        steps += 1
    return w, steps


CASES[gradient_descent] = [(t([1.0, -2.0]), t(0.1)), (t([0.0, 0.0]), t(0.1)),
                           (t([3.0, 1.0]), t(0.4))]


def power_iteration(a, tol):
    v = torch.ones(a.shape[0], dtype=a.dtype)
    v = v / v.norm()
    diff = torch.tensor(1.0, dtype=a.dtype)
    while diff > tol:
        w = a @ v
        w = w / w.norm()
        diff = (w - v).norm()
        v = w
    return v, v @ a @ v


CASES[power_iteration] = [(t([[2.0, 0.0], [0.0, 1.0]], torch.float64), t(1e-8)),
                          (t([[4.0, 1.0], [1.0, 3.0]], torch.float64), t(1e-10)),
                          (t([[1.0, 0.0], [0.0, 1.0]], torch.float64), t(1e-3))]


def digit_sum(n):
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


CASES[digit_sum] = [(t(0),), (t(7),), (t(12345),), (t(1000),)]


def fixed_point_cos(x):
    while torch.abs(x - torch.cos(x)) > 1e-6:
        x = torch.cos(x)
    return x


CASES[fixed_point_cos] = [(t(0.0, torch.float64),), (t(0.739085133, torch.float64),),
                          (t(3.0, torch.float64),)]


def tensor_counter(x, n):
    i = torch.tensor(0)
    while i < n:
        x = x + i
        i += 1
    return x


CASES[tensor_counter] = [(t([1.0, 2.0]), t(0)), (t([1.0, 2.0]), t(4))]


def first_index_over(x, threshold):
    i = 0
    total = 0.0
    while i < x.shape[0]:
        total = total + x[i]
        if total > threshold:
            return i
        i += 1
    return -1


CASES[first_index_over] = [(t([1.0, 2.0, 3.0, 4.0]), t(2.5)), (t([1.0, 2.0, 3.0, 4.0]), t(0.5)),
                           (t([1.0, 2.0, 3.0, 4.0]), t(50.0))]


def divide_by_subtraction(a, b):
    q = 0
    while a >= b:
        a = a - b
        q += 1
    return q, a


CASES[divide_by_subtraction] = [(t(17), t(5)), (t(3), t(5)), (t(20), t(4))]


def is_prime(n):
    if n < 2:
        return False
    d = 2
    while d * d <= n:
        if n % d == 0:
            return False
        d += 1
    return True


CASES[is_prime] = [(t(1),), (t(2),), (t(9),), (t(13),), (t(97),)]


def fibonacci_above(limit):
    a, b = 0, 1
    while b < limit:
        a, b = b, a + b
    return b


CASES[fibonacci_above] = [(t(0),), (t(1),), (t(100),), (t(1000),)]


def backtracking_step(x, direction):
    lr = 1.0
    f0 = (x ** 2).sum()
    while ((x - lr * direction) ** 2).sum() > f0 and lr > 1e-4:
        lr *= 0.5
    return x - lr * direction, lr


CASES[backtracking_step] = [(t([1.0, 1.0]), t([0.5, 0.5])), (t([1.0, 1.0]), t([4.0, 4.0])),
                            (t([1.0, 1.0]), t([-1.0, -1.0]))]


def count_pairs_nested(n):
    count = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            if (i + j) % 3 == 0:
                count += 1
            j += 1
        i += 1
    return count


CASES[count_pairs_nested] = [(t(0),), (t(3),), (t(6),)]


def halve_item(x):
    while x.item() > 1:
        x = x / 2
    return x


CASES[halve_item] = [(t(10.0),), (t(0.5),)]


def jacobi_solve(a, b):
    x = torch.zeros_like(b)
    d = torch.diag(a)
    r = a - torch.diag(d)
    k = 0
    while torch.norm(a @ x - b) > 1e-6 and k < 200:
        x = (b - r @ x) / d
        k += 1
    return x, k


CASES[jacobi_solve] = [(t([[4.0, 1.0], [2.0, 5.0]], torch.float64), t([1.0, 2.0], torch.float64)),
                       (t([[10.0, 0.0], [0.0, 10.0]], torch.float64), t([0.0, 0.0], torch.float64))]


def while_else_search(x, target):
    i = 0
    while i < len(x):
        if x[i] == target:
            found = i
            break
        i += 1
    else:
        found = -1
    return found


CASES[while_else_search] = [(t([3, 1, 4, 1]), t(4)), (t([3, 1, 4, 1]), t(7)),
                            (t([3, 1, 4, 1]), t(3))]


def decay_until_quiet(signal_, threshold):
    energy = (signal_ ** 2).sum()
    rounds = 0
    while energy > threshold:
        signal_ = signal_ * 0.8
        energy = (signal_ ** 2).sum()
        rounds = rounds + 1
    return {"signal": signal_, "rounds": rounds}


CASES[decay_until_quiet] = [(t([1.0, 2.0, 3.0]), t(1.0)), (t([0.1, 0.1, 0.1]), t(1.0))]


def loop_int32_counter(x):
    n = torch.tensor(0, dtype=torch.int32)
    while x.sum() < 100:
        x = x * 3
        n += 1
    return n


CASES[loop_int32_counter] = [(t([1.0, 2.0]),), (t([200.0, 1.0]),)]


def half_precision_total(x, n):
    total = 0.0
    i = 0
    while i < n:
        total = total + x[i]
        i += 1
    return total


CASES[half_precision_total] = [(t([1.0, 2.0], torch.float16), t(2)),
                               (t([1.0, 2.0], torch.float16), t(0))]


def lower_bound(xs, target):
    lo, hi = 0, xs.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


CASES[lower_bound] = [(t([1.0, 3.0, 5.0, 7.0]), t(4.0)), (t([1.0, 3.0, 5.0, 7.0]), t(0.0)),
                      (t([1.0, 3.0, 5.0, 7.0]), t(9.0))]


def power_by_squaring(b, e):
    r = 1
    while e > 0:
        if e % 2 == 1:
            r = r * b
        b = b * b
        e = e // 2
    return r


CASES[power_by_squaring] = [(t(3), t(5)), (t(2), t(0)), (t(3, torch.int32), t(4, torch.int32))]
