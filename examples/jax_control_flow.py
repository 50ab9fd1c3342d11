"""Python control flow under jax.jit, jax.grad and jax.vmap, through `transpiler.convert`.

    python examples/jax_control_flow.py            # needs: pip install "eager2graph[jax]"

`convert` rewrites `if`, `while`, `for`, `break`, `return`, ternaries and `and`/`or` so that,
on JAX tracers, they become lax.cond / while_loop / fori_loop / scan; on Python values the
function runs as Python. Three programs:

1. Collatz steps under `jax.jit`: a `while` on a traced number, with an `if` inside.
2. A loop with a traced trip count under `jax.grad`: `set_loop_options(maximum_iterations=N)`
   bounds it, so it runs as a while_loop that stops early and differentiates as a scan that
   reverse mode goes through.
3. A piecewise function under `jax.vmap`: the `if` becomes a select over the batch.
"""

from __future__ import annotations

import argparse
import time

try:
    import jax
    import jax.numpy as jnp
except ImportError as error:
    raise SystemExit(f"examples/jax_control_flow.py runs converted functions under JAX, which "
                     f"cannot be imported ({error}). Install the extra with: "
                     f'pip install "eager2graph[jax]"') from None

from transpiler import convert, set_loop_options


@jax.jit
@convert
def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@convert
def compound(rate, years):
    """Growth of 1.0 over a traced number of years, capped at 10% a year from year 5."""
    value = 1.0
    year = 0
    while year < years:
        set_loop_options(maximum_iterations=50)
        value = value * (1.0 + (rate if year < 5 else jnp.minimum(rate, 0.1)))
        year += 1
    return value


@convert
def piecewise(x):
    if x > 1.0:
        return x * x
    elif x > -1.0:
        return 2.0 * x + 1.0
    return -x


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="accepted for the example tests")
    parser.parse_args()

    start = time.perf_counter()
    steps = [int(collatz_steps(jnp.int32(n))) for n in (6, 7, 27)]
    print(f"collatz steps under jax.jit for 6, 7, 27: {steps}")
    print(f"same as Python: {steps == [collatz_steps.__wrapped__(n) for n in (6, 7, 27)]}")

    rate, years = jnp.float32(0.2), jnp.int32(8)
    value, grad = jax.jit(jax.value_and_grad(compound))(rate, years)
    eps = 1e-3
    numeric = (compound(rate + eps, years) - compound(rate - eps, years)) / (2 * eps)
    print(f"compound(0.2, 8 years) = {float(value):.4f}; jax.grad: {float(grad):.3f}, "
          f"finite differences: {float(numeric):.3f}")
    runs = str(jax.make_jaxpr(compound)(rate, years))
    differentiates = str(jax.make_jaxpr(jax.grad(compound))(rate, years))
    print(f"the bounded loop runs as a while_loop and differentiates as a scan: "
          f"{'while' in runs and 'scan' in differentiates and 'while' not in differentiates}")

    xs = jnp.asarray([-3.0, -0.5, 0.5, 2.0], jnp.float32)
    print(f"jax.vmap(piecewise)({xs.tolist()}) = {jax.vmap(piecewise)(xs).tolist()}")
    print(f"ran in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
