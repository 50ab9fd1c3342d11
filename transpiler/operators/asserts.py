"""``assert`` in converted code: Python's check on Python values, a graph check on tensors."""

from __future__ import annotations

from typing import Callable

import runtime as rt
from runtime.control_flow import is_symbolic
from transpiler.operators import staging


def assert_stmt(test, message: Callable[[], object] | None = None) -> None:
    """``assert test, message()``; on a symbolic test, ``rt.assert_`` checks when the graph runs
    (raising ``rt.errors.InvalidArgumentError``)."""
    if is_symbolic(test):
        text = "Assertion failed." if message is None else str(message())
        rt.assert_(test, text)
        return
    engine = getattr(staging.backend_for(test), "builtins", None)
    if engine is not None:  # a JAX tracer: checked by a callback when the function runs
        engine.assert_(test, message)
        return
    if not test:
        raise AssertionError() if message is None else AssertionError(message())
