"""``ag__.math``: the functions of Python's ``math`` module as converted code calls them.

On Python numbers (and concrete tensors) each is the ``math`` function itself; on a value an
engine traces (a JAX tracer, a traced PyTorch tensor or a number it knows only when the program
runs), it is that engine's version with Python's meaning (``staging.math_functions``). Generated
code writes ``ag__.math.exp(m)`` where the user wrote ``math.exp(m)``.
"""

from __future__ import annotations

import functools
import math
import types
from typing import Callable

from transpiler.operators import staging
from transpiler.operators.staging import math_functions


_NUMBERS = frozenset((int, float, bool))


def _overload(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def call(*args, **kwargs):
        if not kwargs and all(type(arg) in _NUMBERS for arg in args):
            return fn(*args)
        backend = staging.backend_for_any((*args, *kwargs.values()))
        engine = getattr(getattr(backend, "builtins", None), "MATH", None)
        if engine is None:
            return fn(*args, **kwargs)
        return math_functions.call(engine, fn, args, kwargs)
    return call


_OVERLOADS = {getattr(math, name): _overload(getattr(math, name))
              for name in math_functions.names()}

namespace = types.SimpleNamespace(**{fn.__name__: call for fn, call in _OVERLOADS.items()})


def replacements() -> dict:
    """Each function of ``math`` with a traced version -> its overload (``f = math.exp``
    called later)."""
    return dict(_OVERLOADS)
