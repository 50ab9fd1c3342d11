"""The runtime backend: control flow on eager2graph's symbolic tensors becomes ``rt.cond`` and
``rt.while_loop`` in the graph being traced.

The graph-building code still lives in ``transpiler.operators.control_flow`` (``graph_*``
functions) and ``builtins`` (``graph_range``), next to the checks it shares with the other
backends; this module is the seam's entry for the runtime.
"""

from __future__ import annotations

import runtime as rt
from runtime.control_flow import is_symbolic, scalar_condition
from transpiler.operators import control_flow, dataset_loops


class RuntimeBackend:
    """Stages control flow on symbolic ``rt`` tensors."""

    name = "runtime"
    stages = staticmethod(is_symbolic)

    if_stmt = staticmethod(control_flow.graph_if_stmt)
    if_exp = staticmethod(control_flow.graph_if_exp)
    while_stmt = staticmethod(control_flow.graph_while_stmt)

    @staticmethod
    def for_stmt(iterable, *args, **kwargs) -> None:
        if isinstance(iterable, (rt.data.Dataset, rt.data.Iterator)):
            dataset_loops.graph_dataset_for_stmt(iterable, *args, **kwargs)
        else:
            control_flow.graph_for_stmt(iterable, *args, **kwargs)

    @staticmethod
    def not_(value):
        return rt.logical_not(scalar_condition(value, "a `not` expression"))

    @staticmethod
    def and_(value, right):
        with control_flow.naming_construct("`and` expression"):
            return rt.cond(scalar_condition(value, "an `and` expression"), right, lambda: value)

    @staticmethod
    def or_(value, right):
        with control_flow.naming_construct("`or` expression"):
            return rt.cond(scalar_condition(value, "an `or` expression"), lambda: value, right)

    @staticmethod
    def stages_rest_of_range(rest: range, extra_test, body, get_state, set_state, names,
                             opts) -> bool:
        """The rest of a Python range as one ``rt.while_loop`` over a range made in the graph
        (its counter stands for a Python int, as in a loop over a traced range; see
        ``control_flow._staged_rest``): unrolled, each iteration was a conditional nested in
        the one before (100 iterations: a printed graph of 95,000 characters)."""
        bounds = [rt.constant(bound) for bound in (rest.start, rest.stop, rest.step)]
        control_flow.graph_for_stmt(rt.range(*bounds), extra_test, body, get_state, set_state,
                                    names, opts, mutates=(), outer=(), staged=())
        return True

    @staticmethod
    def range(*args):
        for value in args:
            if is_symbolic(value) and value.dtype.kind not in "iu":
                raise TypeError(
                    f"range() takes integers, but got a tensor of dtype {value.dtype.name} "
                    f"({value.name}). Cast it with rt.cast(x, rt.int32) if a whole number is meant.")
        return rt.range(*args)


BACKEND = RuntimeBackend()
