"""Conditional expressions, ``and``, ``or`` and ``not`` for the engines outside the runtime.

Each is one conditional of the engine choosing between two values (``a and b`` is ``b if a
else a``), so an engine that stages conditionals stages these too: a backend class inherits
``StagedExpressions`` and names its engine's ``staged_cond`` (the values of two branches), its
``condition`` (a scalar boolean of a value, or a clear error) and its ``logical_not``.
"""

from __future__ import annotations

from typing import Callable

from transpiler.operators import control_flow as cf
from transpiler.operators.control_flow import naming_construct


class StagedExpressions:
    """``if_exp``, ``and_``, ``or_`` and ``not_`` in terms of the engine's conditional."""

    staged_cond: Callable
    condition: Callable
    logical_not: Callable

    def if_exp(self, cond, if_true: Callable, if_false: Callable):
        return self._choose(cond, if_true, if_false, "conditional expression")

    def and_(self, value, right: Callable):
        return self._choose(value, right, lambda: value, "`and` expression")

    def or_(self, value, right: Callable):
        return self._choose(value, lambda: value, right, "`or` expression")

    def not_(self, value):
        return self.logical_not(self.condition(value, "a `not` expression"))

    def _choose(self, cond, if_true: Callable, if_false: Callable, construct: str):
        location = cf._where()
        with naming_construct(construct):
            value, = self.staged_cond(cond, lambda: (if_true(),), lambda: (if_false(),),
                                      construct=construct, location=location,
                                      names=("the value",))
        return value
