"""Small algorithms written with tensors: searches, sorts, number theory, numerics."""

import torch

from tests.torch_programs import t

CASES = {}


def _gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def lcm(a, b):
    return a * b // _gcd(a, b)


CASES[lcm] = [(t(4), t(6)), (t(7), t(3)), (t(5), t(5))]


def binary_search(sorted_x, target):
    lo = 0
    hi = sorted_x.shape[0] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if sorted_x[mid] == target:
            return mid
        elif sorted_x[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


CASES[binary_search] = [(t([1, 3, 5, 7, 9, 11]), t(7)), (t([1, 3, 5, 7, 9, 11]), t(1)),
                        (t([1, 3, 5, 7, 9, 11]), t(4)), (t([1, 3, 5, 7, 9, 11]), t(11))]


def integer_sqrt(n):
    r = n
    while r * r > n:
        r = (r + n // r) // 2
    return r


CASES[integer_sqrt] = [(t(0),), (t(1),), (t(15),), (t(16),), (t(1000),)]


def count_inversions(x):
    n = x.shape[0]
    count = 0
    for i in range(n):
        for j in range(i + 1, n):
            if x[i] > x[j]:
                count += 1
    return count


CASES[count_inversions] = [(t([3, 1, 2, 0]),), (t([0, 1, 2, 3]),)]


def matrix_power(m, k):
    result = torch.eye(m.shape[0], dtype=m.dtype)
    while k > 0:
        if k % 2 == 1:
            result = result @ m
        m = m @ m
        k = k // 2
    return result


CASES[matrix_power] = [(t([[1, 1], [1, 0]]), t(0)), (t([[1, 1], [1, 0]]), t(5)),
                       (t([[1, 1], [1, 0]]), t(10))]


def extended_gcd(a, b):
    old_r, r = a, b
    old_s, s = 1, 0
    while r != 0:
        q = old_r // r
        old_r, r = r, old_r - q * r
        old_s, s = s, old_s - q * s
    return old_r, old_s


CASES[extended_gcd] = [(t(240), t(46)), (t(17), t(5)), (t(7), t(0))]


def trapezoid(a, b, n):
    h = (b - a) / n
    total = 0.5 * (torch.exp(a) + torch.exp(b))
    for i in range(1, n):
        total = total + torch.exp(a + i * h)
    return total * h


CASES[trapezoid] = [(t(0.0, torch.float64), t(1.0, torch.float64), t(1)),
                    (t(0.0, torch.float64), t(1.0, torch.float64), t(10))]


def kth_smallest(x, k):
    x = x.clone()
    for _ in range(k):
        i = torch.argmin(x)
        value = x[i]
        x[i] = float("inf")
    return value


CASES[kth_smallest] = [(t([5.0, 2.0, 8.0, 1.0]), 1), (t([5.0, 2.0, 8.0, 1.0]), 3)]


def selection_sort(x):
    x = x.clone()
    n = x.shape[0]
    for i in range(n):
        m = i
        for j in range(i + 1, n):
            if x[j] < x[m]:
                m = j
        if m != i:
            tmp = x[i].clone()
            x[i] = x[m]
            x[m] = tmp
    return x


CASES[selection_sort] = [(t([3.0, 1.0, 2.0]),), (t([1.0, 2.0, 3.0]),)]


def sieve_count(n):
    is_p = torch.ones(50, dtype=torch.bool)
    is_p[0] = False
    is_p[1] = False
    i = 2
    while i * i < n:
        if is_p[i]:
            is_p[i * i::i] = False
        i += 1
    return is_p[:n].sum()


CASES[sieve_count] = [(10,), (30,)]


def sqrt_newton_vector(a, tol):
    x = a.clone()
    while True:
        nx = 0.5 * (x + a / x)
        if (nx - x).abs().max() < tol:
            return nx
        x = nx


CASES[sqrt_newton_vector] = [(t([4.0, 9.0, 2.0], torch.float64), t(1e-12)),
                             (t([1.0, 1.0], torch.float64), t(1e-3))]


def secant_root(x0, x1):
    f = lambda x: x ** 3 - 2 * x - 5  # noqa: E731
    it = 0
    while torch.abs(f(x1)) > 1e-10 and it < 50:
        x0, x1 = x1, x1 - f(x1) * (x1 - x0) / (f(x1) - f(x0))
        it += 1
    return x1


CASES[secant_root] = [(t(2.0, torch.float64), t(3.0, torch.float64)),
                      (t(2.09, torch.float64), t(2.1, torch.float64))]


def two_sum_sorted(x, target):
    i = 0
    j = x.shape[0] - 1
    while i < j:
        s = x[i] + x[j]
        if s == target:
            return i, j
        if s < target:
            i += 1
        else:
            j -= 1
    return -1, -1


CASES[two_sum_sorted] = [(t([1, 2, 4, 7, 11]), t(9)), (t([1, 2, 4, 7, 11]), t(100)),
                         (t([1, 2, 4, 7, 11]), t(3))]


def geometric_series_until(r, tol):
    term = torch.ones_like(r)
    total = torch.zeros_like(r)
    n = 0
    while term.abs() > tol:
        total += term
        term *= r
        n += 1
    return total, n


CASES[geometric_series_until] = [(t(0.5, torch.float64), t(1e-8)),
                                 (t(-0.9, torch.float64), t(1e-6)),
                                 (t(0.0, torch.float64), t(0.5))]


def gradient_clip_steps(w, grads):
    for g in grads:
        norm = g.norm()
        if norm > 1.0:
            g = g / norm
        w = w - 0.1 * g
    return w


CASES[gradient_clip_steps] = [(t([0.0, 0.0]), t([[3.0, 4.0], [0.1, 0.2], [-6.0, 8.0]]))]


def kmeans_1d(x, c0, c1, iters):
    for _ in range(iters):
        assign = (x - c0).abs() > (x - c1).abs()
        new_c0 = x[~assign].mean()
        new_c1 = x[assign].mean()
        if torch.abs(new_c0 - c0) + torch.abs(new_c1 - c1) < 1e-6:
            break
        c0, c1 = new_c0, new_c1
    return c0, c1


CASES[kmeans_1d] = [(t([1.0, 1.2, 0.8, 5.0, 5.5, 4.5]), t(0.0), t(6.0), t(10))]


def mandelbrot_escape(cr, ci, max_iter):
    zr = torch.zeros_like(cr)
    zi = torch.zeros_like(ci)
    n = 0
    while n < max_iter and zr * zr + zi * zi <= 4.0:
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        n += 1
    return n


CASES[mandelbrot_escape] = [(t(0.0), t(0.0), t(20)), (t(1.0), t(1.0), t(20)),
                            (t(-0.75), t(0.1), t(50))]


def staircase_integer_ops(x):
    y = x.clone()
    for i in range(y.shape[0]):
        if y[i] % 3 == 0:
            y[i] //= 3
        elif y[i] % 2 == 0:
            y[i] = y[i] // 2
        else:
            y[i] = y[i] * 3 + 1
    return y


CASES[staircase_integer_ops] = [(t([3, 4, 5, 6, 7]),), (t([1, 1, 1, 1, 1]),)]


def leaky_bucket(arrivals, capacity, rate):
    level = torch.zeros(())
    dropped = 0
    for a in arrivals:
        level = level + a
        if level > capacity:
            dropped += 1
            level = capacity
        level = torch.clamp(level - rate, min=0.0)
    return level, dropped


CASES[leaky_bucket] = [(t([1.0, 3.0, 2.0, 5.0]), t(4.0), t(1.0)),
                       (t([0.1, 0.1, 0.1]), t(4.0), t(1.0))]


def tree_sum_by_stack(values, left, right):
    stack = torch.zeros(16, dtype=left.dtype)
    top = 1
    total = 0.0
    while top > 0:
        top -= 1
        node = stack[top]
        total = total + values[node]
        if left[node] >= 0:
            stack[top] = left[node]
            top += 1
        if right[node] >= 0:
            stack[top] = right[node]
            top += 1
    return total


CASES[tree_sum_by_stack] = [(t([1.0, 2.0, 3.0, 4.0]), t([1, 3, -1, -1]), t([2, -1, -1, -1]))]


def bfs_levels(adj, start):
    n = adj.shape[0]
    dist = torch.full((n,), -1, dtype=torch.int64)
    dist[start] = 0
    frontier = torch.zeros(n, dtype=torch.bool)
    frontier[start] = True
    level = 0
    while frontier.any():
        level += 1
        reached = (adj[frontier].sum(0) > 0) & (dist < 0)
        dist[reached] = level
        frontier = reached
    return dist


CASES[bfs_levels] = [(t([[0, 1, 0], [0, 0, 1], [0, 0, 0]]), 0)]


def largest_doubled(x):
    i = x.argmax().item()
    return x[i] * 2, x[i - 3]


CASES[largest_doubled] = [(t([1.0, 5.0, 2.0]),), (t([7.0, 5.0, 2.0]),)]


def insertion_sort_in_place(x):
    x = x.clone()
    for i in range(1, x.shape[0]):
        j = i
        while j > 0 and x[j - 1] > x[j]:
            smaller = x[j].clone()
            x[j] = x[j - 1]
            x[j - 1] = smaller
            j -= 1
    return x


CASES[insertion_sort_in_place] = [(t([3.0, 1.0, 2.0]),), (t([5.0, 4.0, 3.0, 2.0, 1.0]),),
                                  (t([1, 3, 2], torch.int32),)]
