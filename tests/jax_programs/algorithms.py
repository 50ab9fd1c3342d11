"""Small numerical and integer algorithms: Newton, bisection, gcd, primes, sorting, searching,
gradient descent with early stopping, an RNN cell, ODE steps."""

import jax
import jax.numpy as jnp

from tests.jax_programs import F, I

CASES = {}
STATIC = {}


def newton_sqrt(a):
    x = a
    while jnp.abs(x * x - a) > 1e-4 * a:
        x = 0.5 * (x + a / x)
    return x


CASES[newton_sqrt] = [(F(2.0),), (F(1.0),), (F(1e4),), (F(0.25),)]


def _cubic(x):
    return x ** 3 - 2 * x - 5


def newton_root(x0, tol):
    x = x0
    step = 0
    while True:
        fx = _cubic(x)
        if jnp.abs(fx) < tol:
            break
        x = x - fx / jax.grad(_cubic)(x)
        step += 1
        if step >= 50:
            break
    return x, step


CASES[newton_root] = [(F(2.0), F(1e-4)), (F(10.0), F(1e-3)), (F(2.0945515), F(1e-2))]


def bisection(lo, hi, tol):
    f = lambda x: x * x - 2.0  # noqa: E731
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2


CASES[bisection] = [(F(0.0), F(2.0), F(1e-4)), (F(1.0), F(1.5), F(1e-2)), (F(1.0), F(1.1), F(1.0))]


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


CASES[gcd] = [(I(48), I(18)), (I(17), I(5)), (I(7), I(0)), (I(0), I(9))]


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def lcm(a, b):
    if a == 0 or b == 0:
        return 0
    return a * b // _gcd(a, b)


CASES[lcm] = [(I(4), I(6)), (I(0), I(6)), (I(7), I(13))]


def is_prime(n):
    if n < 2:
        return False
    for d in range(2, n):
        if d * d > n:
            break
        if n % d == 0:
            return False
    return True


CASES[is_prime] = [(I(1),), (I(2),), (I(9),), (I(13),), (I(25),), (I(97),)]


def binary_search(xs, target):
    lo, hi = 0, xs.shape[0] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] == target:
            return mid
        elif xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


_SORTED = I([1, 3, 5, 7, 9, 11])
CASES[binary_search] = [(_SORTED, I(7)), (_SORTED, I(1)), (_SORTED, I(11)), (_SORTED, I(4))]


def _loss(w, x, y):
    return jnp.mean((x @ w - y) ** 2)


def gradient_descent_early_stop(w, x, y, lr):
    best = jnp.inf
    patience = 0
    for step in range(12):
        loss = _loss(w, x, y)
        if loss < best - 1e-2:
            best = loss
            patience = 0
        else:
            patience += 1
            if patience >= 2:
                break
        w = w - lr * jax.grad(_loss)(w, x, y)
    return w, step


_X = F([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
_Y = F([1.0, 2.0, 3.0])
CASES[gradient_descent_early_stop] = [(F([0.0, 0.0]), _X, _Y, F(0.3)),
                                      (F([0.0, 0.0]), _X, _Y, F(2.0))]


def train_until_converged(w, x, y):
    lr = 0.2
    loss = _loss(w, x, y)
    steps = 0
    while loss > 1e-3:
        w = w - lr * jax.grad(_loss)(w, x, y)
        loss = _loss(w, x, y)
        steps += 1
        if steps > 200:
            break
    return w, loss, steps


CASES[train_until_converged] = [(F([0.0, 0.0]), _X, _Y), (F([1.0, 2.0]), _X, _Y)]


def rnn_final_state(xs, w_x, w_h, b):
    h = jnp.zeros(w_h.shape[0])
    for x_t in xs:
        h = jnp.tanh(w_x @ x_t + w_h @ h + b)
    return h


_WX = F([[0.5, -0.2], [0.1, 0.3], [0.0, 1.0]])
_WH = F([[0.1, 0.0, 0.2], [0.0, 0.1, -0.1], [0.3, 0.2, 0.1]])
CASES[rnn_final_state] = [(F([[1.0, 0.0], [0.5, -1.0], [2.0, 2.0]]), _WX, _WH, F([0.0, 0.1, -0.1])),
                          (F([[1.0, 2.0]]), _WX, _WH, F([0.0, 0.1, -0.1]))]


def rnn_outputs_masked(xs, lengths_limit, w_x, w_h):
    h = jnp.zeros(w_h.shape[0])
    outputs = []
    for t in range(xs.shape[0]):
        if t < lengths_limit:
            h = jnp.tanh(w_x @ xs[t] + w_h @ h)
        outputs.append(h)
    return jnp.stack(outputs), h


CASES[rnn_outputs_masked] = [(F([[1.0, 0.0], [0.5, -1.0], [2.0, 2.0]]), I(2), _WX, _WH),
                             (F([[1.0, 0.0], [0.5, -1.0], [2.0, 2.0]]), I(0), _WX, _WH)]


def euler_until(y0, k, t_end):
    t = 0.0
    y = y0
    dt = 0.1
    while t < t_end:
        y = y + dt * (-k * y)
        t = t + dt
    return y, t


CASES[euler_until] = [(F([1.0, 2.0]), F(0.5), F(0.95)), (F([1.0, 2.0]), F(0.5), F(0.0)),
                      (F([1.0, 2.0]), F(2.0), F(0.35))]


def collatz_max(n):
    peak = n
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        peak = max(peak, n)
    return peak


CASES[collatz_max] = [(I(1),), (I(7),), (I(27),)]




def insertion_sort(x):
    n = x.shape[0]
    for i in range(1, n):
        j = i
        while j > 0 and x[j - 1] > x[j]:
            a, b = x[j - 1], x[j]
            x = x.at[j - 1].set(b)
            x = x.at[j].set(a)
            j -= 1
    return x


CASES[insertion_sort] = [(F([3.0, 1.0, 2.0]),), (F([1.0, 2.0]),)]


def tree_sum_by_stack(values, left, right):
    stack = jnp.zeros(16, dtype=left.dtype)
    top = 1
    total = 0.0
    while top > 0:
        top -= 1
        node = stack[top]
        total = total + values[node]
        if left[node] >= 0:
            stack = stack.at[top].set(left[node])
            top += 1
        if right[node] >= 0:
            stack = stack.at[top].set(right[node])
            top += 1
    return total


CASES[tree_sum_by_stack] = [(F([1.0, 2.0, 3.0, 4.0]), I([1, 3, -1, -1]), I([2, -1, -1, -1]))]


def kahan_sum(x):
    s = 0.0
    c = 0.0
    for v in x:
        y = v - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


CASES[kahan_sum] = [(F([1.0, 1e-8, 1e-8, -1.0]),)]


def rk4_decay(y0, h, n):
    y = y0
    t = 0.0
    for _ in range(n):
        k1 = -y
        k2 = -(y + h * k1 / 2)
        k3 = -(y + h * k2 / 2)
        k4 = -(y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
        t = t + h
    return y, t


CASES[rk4_decay] = [(F(1.0), F(0.1), I(10)), (F(1.0), F(0.1), I(0))]
