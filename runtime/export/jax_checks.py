"""Errors the graph raises while it runs, raised by the JAX function too.

Some kernels raise on bad values (an index out of range, a value that does not fit the dtype a
Python number converts to, a failed ``rt.assert_``); XLA would clamp or wrap instead. Such a
check becomes a host callback (``jax.debug.callback``) that raises the graph's error when the
values are bad, so a call fails where the graph fails instead of returning another answer.
JAX reports it as a ``JaxRuntimeError`` whose message holds the graph's message. A check whose
values are known while JAX traces costs nothing when it passes.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

import jax
import jax.numpy as jnp

from runtime.errors import AssertionFailedError, InvalidArgumentError
from runtime.export.jax_values import is_known


def failure(node, message: str) -> InvalidArgumentError:
    """The error the executor raises when ``node``'s kernel fails with ``message``."""
    where = node.location.describe() if node.location else "an unknown location"
    if node.op.effect and not node.outputs:  # rt.assert_
        return AssertionFailedError(f"{message}\n  Assertion created at {where}")
    return InvalidArgumentError(f"{node.op.name} (node {node.reference()}) failed while running "
                                f"the graph: {message}\n  The op was created at {where}")


def check(node, ok, describe: Callable[..., str], *details) -> None:
    """Raises ``failure(node, describe(*details))`` when the call runs and ``ok`` is false
    anywhere. ``details`` are the arrays ``describe`` needs (passed to the host only then)."""
    if is_known(ok) and all(is_known(d) for d in details) and bool(np.all(ok)):
        return

    def raise_unless(ok_value, *values):
        if not np.all(ok_value):
            raise failure(node, describe(*(np.asarray(v) for v in values)))
    jax.debug.callback(raise_unless, ok, *details)


def fails(node, message: str, outputs: list[tuple]) -> list:
    """Outputs of ``outputs`` ((dtype, shape) pairs) for an op that always fails when it
    runs: the call raises there, and only if the op runs (not in a branch not taken)."""
    check(node, jnp.asarray(False), lambda: message)
    return [jnp.zeros(shape, dtype) for dtype, shape in outputs]
