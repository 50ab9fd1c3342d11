"""``and``, ``or``, ``not``: lazy like Python on Python values, staged on values an engine stages
(graph ops on symbolic tensors, ``lax.cond`` on JAX tracers; see ``staging``).

On a symbolic left operand the result is what Python would give, chosen at run time:
``a and b`` is ``b`` where ``a`` is true and ``a`` otherwise (so both must have one dtype,
which comparisons, the usual operands, always do).
"""

from __future__ import annotations

import operator

import runtime as rt
from runtime.control_flow import is_symbolic
from transpiler.operators import staging


def not_(value):
    """``not value``: a scalar tensor's truth (``!= 0``) negated; a non-scalar is ambiguous, as
    in Python and NumPy, so it is an error rather than an elementwise result."""
    backend = staging.backend_for(value)
    if backend is not None:
        return backend.not_(value)
    return not value


def and_(left, right):
    """``left() and right()``: the right side is evaluated only if needed (or traced)."""
    value = left()
    backend = staging.backend_for(value)
    if backend is not None:
        return backend.and_(value, right)
    return value and right()


def or_(left, right):
    """``left() or right()``: the right side is evaluated only if needed (or traced)."""
    value = left()
    backend = staging.backend_for(value)
    if backend is not None:
        return backend.or_(value, right)
    return value or right()


def contains(container, item):
    """``item in container``; on a symbolic vector, whether any element equals ``item``
    (what iterating it and comparing would give), as a bool tensor."""
    if not is_symbolic(container):
        return item in container
    if container.shape is None or len(container.shape) != 1:
        raise TypeError(
            f"`in` on a tensor of shape {container.shape} ({container.name}): only a vector's "
            f"elements can be compared one by one, as Python's `in` does. Write "
            f"rt.reduce_any(rt.equal(t, x)) for the elementwise test you mean.")
    return rt.reduce_any(rt.equal(container, item))


_COMPARISONS = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: contains(b, a), "not in": lambda a, b: not_(contains(b, a)),
}


def chained_compare(left, *rest):
    """``left op1 b op2 c ...`` with ``rest = (op1, lambda: b, op2, lambda: c, ...)``: each
    operand is evaluated once, and only while the comparisons so far hold, as in Python."""
    op, right_thunk, *more = rest
    right = right_thunk()
    result = _COMPARISONS[op](left, right)
    if not more:
        return result
    return and_(lambda: result, lambda: chained_compare(right, *more))
