"""``cond`` and ``while_loop`` as ``lax.cond``, ``lax.while_loop`` and ``lax.scan``.

* A ``cond`` whose predicate is known while JAX traces runs only the branch taken (no
  ``lax.cond``). One the counted-loop pass added (a loop vectorized under a run-time guard on
  the range's length) runs its loop branch: the vectorized branch builds a range whose length
  is known only when the graph runs, which JAX cannot stage, and both give the same result.
* A ``while_loop`` without ``maximum_iterations`` is a ``lax.while_loop``: forward-mode
  derivatives (``jax.jvp``, ``jax.jacfwd``) work, reverse mode (``jax.grad``) does not, because
  JAX cannot differentiate a loop of unknown trip count in reverse (it raises a ``ValueError``
  saying so). With ``maximum_iterations`` a Python int, the loop is a ``lax.scan`` of that
  many steps, each running the loop's test and body only while the loop still runs, so
  ``jax.grad`` works through it (at the cost of ``maximum_iterations`` cheap steps after the
  loop ends). A limit given as a tensor is a ``lax.while_loop`` that counts.

Known loop-invariant values stay known inside the bodies (they are closed over, not passed).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import jax.numpy as jnp
from jax import lax

from runtime.export.jax_errors import refuse
from runtime.export.jax_math import truth
from runtime.export.jax_values import is_known, to_jax
from runtime.passes.counted_loops import RANGE_FITS

Run = Callable  # run(graph, values) -> the graph's outputs (known or JAX values)


def _typed(node, values) -> tuple:
    return tuple(to_jax(v, out.dtype, node) for v, out in zip(values, node.outputs))


def cond(run: Run, node, values) -> list:
    pred, *inputs = values
    then_graph, else_graph = node.subgraphs["then"], node.subgraphs["else"]
    if is_known(pred):
        return run(then_graph if bool(pred) else else_graph, inputs)
    if node.inputs[0].node.op is RANGE_FITS:
        return run(else_graph, inputs)
    traced = [i for i, v in enumerate(inputs) if not is_known(v)]

    def branch(graph):
        def fn(*operands):
            bound = list(inputs)
            for position, value in zip(traced, operands):
                bound[position] = value
            return _typed(node, run(graph, bound))
        return fn
    try:
        results = lax.cond(truth(node, pred), branch(then_graph), branch(else_graph),
                           *[inputs[i] for i in traced])
    except TypeError as error:
        if "identical types" not in str(error) and "must have" not in str(error):
            raise
        raise refuse(node, f"its branches give results of different shapes, which the graph "
                           f"allows (it joins them) but lax.cond does not ({error}). Make both "
                           f"branches return the same shapes.") from None
    return list(results)


def _loop_functions(run: Run, node, rest):
    cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]

    def test(carry):
        (result,) = run(cond_graph, list(carry) + rest)
        return truth(node, result)

    def step(carry):
        return _typed(node, run(body_graph, list(carry) + rest))
    return test, step


def while_loop(run: Run, node, values) -> list:
    count, limit = node.attrs["num_vars"], node.attrs["maximum_iterations"]
    carry, rest = _typed(node, values[:count]), list(values[count:])
    if limit == "input":
        limit, rest = rest[0], rest[1:]
    test, step = _loop_functions(run, node, rest)
    try:
        if limit is None:
            return list(lax.while_loop(test, step, carry))
        if isinstance(limit, (int, np.integer)) and not isinstance(limit, np.ndarray):
            return list(_scan(test, step, carry, int(limit)))
        return list(_counted(test, step, carry, limit, node))
    except TypeError as error:
        if "identical types" not in str(error) and "must have" not in str(error):
            raise
        raise refuse(node, f"a loop variable changes shape from one iteration to the next, "
                           f"which the graph allows (shape_invariants) but lax.while_loop does "
                           f"not ({error}). Keep the loop variables' shapes fixed, e.g. by "
                           f"writing into a preallocated array.") from None


def _scan(test, step, carry, limit: int) -> tuple:
    """At most ``limit`` iterations as a scan (reverse-mode differentiable)."""
    stopped = jnp.asarray(False)

    def one(state, _):
        running, values = state

        def active(values):
            return lax.cond(test(values), lambda v: (jnp.asarray(True), step(v)),
                            lambda v: (stopped, v), values)
        return lax.cond(running, active, lambda v: (stopped, v), values), None
    (_, result), _ = lax.scan(one, (jnp.asarray(True), carry), None, length=max(limit, 0))
    return result


def _counted(test, step, carry, limit, node) -> tuple:
    """At most ``limit`` (a tensor) iterations: the test does not run once it is reached."""
    limit = to_jax(limit, limit.dtype, node)
    zero = jnp.zeros((), limit.dtype)

    def counted_test(state):
        done, values = state
        return lax.cond(done < limit, test, lambda _: jnp.asarray(False), values)

    def counted_step(state):
        done, values = state
        return done + 1, step(values)
    return lax.while_loop(counted_test, counted_step, (zero, carry))[1]
