"""Converted Python control flow next to the same functions written with `lax` by hand.

    python examples/jax_vs_lax.py            # needs: pip install "eager2graph[jax]"
    python examples/jax_vs_lax.py --quick    # a few seconds: fewer, shorter timing rounds

Each workload is written twice: once as plain Python, run as `jax.jit(convert(f))`, and once
the way a JAX user writes it by hand (`lax.cond`, `lax.while_loop` for loops that stop early,
`lax.fori_loop` for counted ones). Both must give the same results on several inputs; then
the table compares

* jaxpr equations of `jax.make_jaxpr(convert(f))` and `jax.make_jaxpr(hand)`: the top level,
  and the total counting every equation of every sub-jaxpr (branches, loop bodies, the
  `jit`-wrapped helpers of jax.numpy) the same way on both sides;
* run time per call of the jitted functions: the median over rounds that alternate the two
  (both in this process; the load average is printed, as other processes skew it);
* trace time (conversion + trace for the converted function, JAX's own trace of the
  hand-written one) and the first call (trace + lower + compile), median of fresh traces;
* a verdict: ok when the converted jaxpr has no more equations in total, or its run time is
  within 10% of the hand-written one.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

try:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
except ImportError as error:
    raise SystemExit(f"examples/jax_vs_lax.py compares converted functions with lax under JAX, "
                     f"which cannot be imported ({error}). Install the extra with: "
                     f'pip install "eager2graph[jax]"') from None

from transpiler import convert, set_loop_options
from transpiler.api import clear_conversion_cache

# -- the workloads: plain Python first, then the hand-written lax version ---------------------


def piecewise(x):
    if x > 1.0:
        return x * x
    elif x > -1.0:
        return 2.0 * x + 1.0
    return -x


def piecewise_lax(x):
    return lax.cond(x > 1.0, lambda x: x * x,
                    lambda x: lax.cond(x > -1.0, lambda x: 2.0 * x + 1.0, lambda x: -x, x), x)


def clipped(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


def clipped_lax(x, lo, hi):
    return lax.cond(x < lo, lambda: lo, lambda: lax.cond(x > hi, lambda: hi, lambda: x))


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_lax(n):
    def body(state):
        n, steps = state
        n = lax.cond(n % 2 == 0, lambda n: n // 2, lambda n: 3 * n + 1, n)
        return n, steps + 1
    return lax.while_loop(lambda state: state[0] != 1, body, (n, 0))[1]


def sum_of_squares(xs):
    total = 0.0
    for x in xs:
        total += x * x
    return total


def sum_of_squares_lax(xs):
    return lax.fori_loop(0, xs.shape[0], lambda i, total: total + xs[i] * xs[i], 0.0)


def power(x, n):
    result = 1.0
    i = 0
    while i < n:
        set_loop_options(maximum_iterations=2048)
        result *= x
        i += 1
    return result


def power_lax(x, n):
    def body(state):
        i, result = state
        return i + 1, result * x
    return lax.while_loop(lambda state: (state[0] < n) & (state[0] < 2048), body, (0, 1.0))[1]


def sum_until(xs, limit):
    total = 0.0
    for x in xs:
        if total > limit:
            break
        total += x
    return total


def sum_until_lax(xs, limit):
    def body(state):
        i, total = state
        return i + 1, total + xs[i]
    return lax.while_loop(lambda state: (state[0] < xs.shape[0]) & (state[1] <= limit), body,
                          (0, 0.0))[1]


def first_above(xs, threshold):
    for i, x in enumerate(xs):
        if x > threshold:
            return i
    return -1


def first_above_lax(xs, threshold):
    def body(state):
        i, _ = state
        return i + 1, xs[i] > threshold
    i, found = lax.while_loop(lambda state: (state[0] < xs.shape[0]) & ~state[1], body,
                              (0, False))
    return jnp.where(found, i - 1, -1)


def nested(n, m):
    total = 0
    for i in range(n):
        for j in range(m):
            total += (i * j) % 7
    return total


def nested_lax(n, m):
    def outer(i, total):
        return lax.fori_loop(0, m, lambda j, total: total + (i * j) % 7, total)
    return lax.fori_loop(0, n, outer, 0)


def traced_range(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc * x + i
    return acc


def traced_range_lax(x, n):
    return lax.fori_loop(0, n, lambda i, acc: acc * x + i, 0.0)


def both_positive(x, y):
    if x > 0 and y > 0:
        return x * y
    return x - y


def both_positive_lax(x, y):
    return lax.cond((x > 0) & (y > 0), lambda: x * y, lambda: x - y)


def _inputs(size: int):
    rng = np.random.default_rng(0)
    xs = jnp.asarray(rng.uniform(0.0, 1.0, size), jnp.float32)
    f32, i32 = jnp.float32, jnp.int32
    return [  # name, python, lax, the inputs checked (the first one is timed)
        ("piecewise if/elif", piecewise, piecewise_lax,
         [(f32(0.5),), (f32(3.0),), (f32(-2.0),), (f32(1.0),)]),
        ("clipped ternary", clipped, clipped_lax,
         [(f32(0.5), f32(0.0), f32(1.0)), (f32(-2.0), f32(0.0), f32(1.0)),
          (f32(4.0), f32(0.0), f32(1.0))]),
        ("collatz while", collatz, collatz_lax, [(i32(77031),), (i32(27),), (i32(1),)]),
        ("for over an array", sum_of_squares, sum_of_squares_lax, [(xs,), (xs[:3],)]),
        ("while, maximum_iterations", power, power_lax,
         [(f32(1.0001), i32(1500)), (f32(2.0), i32(3)), (f32(2.0), i32(0)),
          (f32(1.0), i32(5000))]),
        ("for with break", sum_until, sum_until_lax,
         [(xs, f32(size * 0.45)), (xs, f32(1.0)), (xs, f32(1e9))]),
        ("return in a for", first_above, first_above_lax,
         [(xs, f32(0.9999)), (xs, f32(0.5)), (xs, f32(2.0))]),
        ("nested for, traced bounds", nested, nested_lax,
         [(i32(40), i32(40)), (i32(3), i32(5)), (i32(0), i32(4))]),
        ("for over traced range", traced_range, traced_range_lax,
         [(f32(0.999), i32(size)), (f32(2.0), i32(4)), (f32(2.0), i32(0))]),
        ("and condition", both_positive, both_positive_lax,
         [(f32(2.0), f32(3.0)), (f32(2.0), f32(-3.0)), (f32(-2.0), f32(3.0))]),
    ]


# -- measuring ---------------------------------------------------------------------------------


def equations(jaxpr) -> tuple[int, int]:
    """(top-level equations, all equations including those of every sub-jaxpr)."""
    total = 0
    for eqn in jaxpr.eqns:
        total += 1
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                inner = getattr(sub, "jaxpr", sub)  # a ClosedJaxpr's Jaxpr
                if hasattr(inner, "eqns"):
                    total += equations(inner)[1]
    return len(jaxpr.eqns), total


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)


def _per_call(fn, args, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        out = fn(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / calls


def run_times(converted, hand, args, rounds: int) -> tuple[float, float]:
    """Median seconds per call of each, over rounds that alternate which goes first."""
    once = _per_call(hand, args, 3)
    calls = max(1, min(200, int(0.01 / max(once, 1e-7))))  # about 10 ms a round
    mine, theirs = [], []
    for index in range(rounds):
        pair = [(converted, mine), (hand, theirs)]
        for fn, times in pair if index % 2 else pair[::-1]:
            times.append(_per_call(fn, args, calls))
    return statistics.median(mine), statistics.median(theirs)


def first_calls(python, hand, args, repeats: int) -> tuple[float, float, float, float]:
    """Median (trace, trace + lower + compile) seconds of fresh functions: conversion + trace
    for ``python``, JAX's trace alone for ``hand``."""
    rows = []
    for _ in range(repeats):
        clear_conversion_cache()
        row = []
        for make in (lambda: convert(python), lambda: lambda *a: hand(*a)):
            start = time.perf_counter()
            traced = jax.jit(make()).trace(*args)
            traced_at = time.perf_counter()
            traced.lower().compile()
            row += [traced_at - start, time.perf_counter() - start]
        rows.append(row)
    return tuple(statistics.median(column) for column in zip(*rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer and shorter timing rounds")
    options = parser.parse_args()
    rounds, repeats, size = (3, 1, 256) if options.quick else (41, 5, 4096)

    jax.jit(lambda x: lax.cond(x > 0, lambda: x, lambda: -x))(1.0)  # JAX's own first use
    print(f"jax {jax.__version__}, {jax.default_backend()}; load average "
          f"{' '.join(f'{load:.2f}' for load in os.getloadavg())}")
    header = (f"{'workload':<26} {'eqns top':>9} {'eqns all':>9} {'run µs/call':>16} "
              f"{'trace ms':>12} {'first call ms':>14}  verdict")
    print(header)
    print(f"{'':<26} {'conv/lax':>9} {'conv/lax':>9} {'conv/lax':>16} {'conv/lax':>12} "
          f"{'conv/lax':>14}")
    passed = 0
    for name, python, hand, inputs in _inputs(size):
        converted, hand_jit = jax.jit(convert(python)), jax.jit(hand)
        for args in inputs:
            got, want = converted(*args), hand_jit(*args)
            if not _same(got, want):
                raise AssertionError(f"{name}{tuple(np.asarray(a).tolist() for a in args)}: "
                                     f"converted {got}, lax {want}")
        args = inputs[0]
        top, total = equations(jax.make_jaxpr(convert(python))(*args).jaxpr)
        hand_top, hand_total = equations(jax.make_jaxpr(hand)(*args).jaxpr)
        mine, theirs = run_times(converted, hand_jit, args, rounds)
        trace, first, hand_trace, hand_first = first_calls(python, hand, args, repeats)
        fewer = total <= hand_total
        close = mine <= 1.1 * theirs
        passed += fewer or close
        verdict = ("ok: " + ("≤ eqns" if fewer else "run time within 10%")) if fewer or close \
            else f"slower by {mine / theirs - 1:.0%}"
        print(f"{name:<26} {f'{top}/{hand_top}':>9} {f'{total}/{hand_total}':>9} "
              f"{f'{mine * 1e6:.1f}/{theirs * 1e6:.1f}':>16} "
              f"{f'{trace * 1e3:.1f}/{hand_trace * 1e3:.1f}':>12} "
              f"{f'{first * 1e3:.0f}/{hand_first * 1e3:.0f}':>14}  {verdict}")
    print(f"same results as the hand-written lax on every input; {passed} of {len(_inputs(8))} "
          f"workloads have no more equations or run within 10%")


if __name__ == "__main__":
    main()
