"""The ``math`` module's functions on values JAX or PyTorch trace, with Python's meaning.

``math.exp(float(x.mean()))`` asks a traced value for the number it holds, which a trace does
not know. Converted code calls these instead (``ag__.math.exp``, see
``transpiler.operators.math_calls``): on a traced value each computes what Python computes, in
double precision as Python does (float32 under JAX without ``jax_enable_x64``), as a scalar the
program computes when it runs. ``floor`` and ``ceil`` give integers, the tests
(``isnan``, ``isclose``, ...) bools. Where Python raises (``math.sqrt(-1.0)``, ``math.log(0.0)``,
``math.exp(1000.0)``), an engine that checks at run time (PyTorch) fails the program's run with
Python's reason; JAX gives the IEEE value (NaN or an infinity), as its ``int()`` does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from transpiler.operators import control_flow as cf


@dataclass(frozen=True)
class Engine:
    """What the functions need of an engine: its array namespace (``torch`` or ``jnp``), its
    special functions (``erf``, ``lgamma``), how a scalar becomes the widest float
    (``as_float(value, name)``, ``name`` for errors), how a float becomes an int, how an integer
    scalar stays one (``integral`` gives None for a float), and how it checks a condition when
    the program runs (or ignores it)."""

    xp: object
    special: dict
    as_float: Callable[[object, str], object]
    as_int: Callable[[object], object]
    integral: Callable[[object, str], object]
    check: Callable[[object, str], None]


# The elementwise functions, by the name both namespaces give them.
_ELEMENTWISE = {
    math.exp: "exp", math.expm1: "expm1", math.log2: "log2", math.log10: "log10",
    math.log1p: "log1p", math.sqrt: "sqrt", math.sin: "sin", math.cos: "cos", math.tan: "tan",
    math.asin: "arcsin", math.acos: "arccos", math.atan: "arctan", math.sinh: "sinh",
    math.cosh: "cosh", math.tanh: "tanh", math.asinh: "arcsinh", math.acosh: "arccosh",
    math.atanh: "arctanh", math.fabs: "abs", math.isnan: "isnan", math.isinf: "isinf",
    math.isfinite: "isfinite",
}
_SPECIAL = {math.erf: "erf", math.erfc: "erfc", math.lgamma: "lgamma"}
# (math.trunc is left out: it asks its argument for __trunc__, which tensors do not define.)
_ROUNDING = {math.floor: "floor", math.ceil: "ceil"}

# Where Python raises ValueError ("math domain error"): the values outside the domain.
_OUTSIDE_DOMAIN = {
    math.sqrt: ("a negative value", lambda xp, x: x < 0),
    math.log2: ("a value not above 0", lambda xp, x: x <= 0),
    math.log10: ("a value not above 0", lambda xp, x: x <= 0),
    math.log1p: ("a value not above -1", lambda xp, x: x <= -1),
    math.asin: ("a value outside [-1, 1]", lambda xp, x: xp.abs(x) > 1),
    math.acos: ("a value outside [-1, 1]", lambda xp, x: xp.abs(x) > 1),
    math.acosh: ("a value below 1", lambda xp, x: x < 1),
    math.atanh: ("a value outside (-1, 1)", lambda xp, x: xp.abs(x) >= 1),
    math.lgamma: ("0 or a negative integer", lambda xp, x: (x <= 0) & (xp.floor(x) == x)),
}


def names() -> list[str]:
    """The ``math`` functions that have a traced version."""
    return sorted(fn.__name__ for fn in _ALL)


def call(engine: Engine, fn: Callable, args: tuple, kwargs: dict):
    """``fn(*args, **kwargs)`` (a function of ``math``) on traced values."""
    name = f"math.{fn.__name__}()"
    if fn in _OTHERS:
        return _OTHERS[fn](engine, name, *args, **kwargs)
    if kwargs or len(args) != 1:
        raise TypeError(f"{name} takes exactly one argument{cf._where()}, as in Python.")
    if fn in _ROUNDING:
        return _rounded(engine, fn, name, args[0])
    x = engine.as_float(args[0], name)
    if fn in _OUTSIDE_DOMAIN:
        what, outside = _OUTSIDE_DOMAIN[fn]
        engine.check(~outside(engine.xp, x), _domain_error(name, what))
    if fn in _SPECIAL:
        return engine.special[_SPECIAL[fn]](x)
    result = getattr(engine.xp, _ELEMENTWISE[fn])(x)
    if fn in (math.exp, math.expm1, math.sinh, math.cosh):
        _check_overflow(engine, name, x, result)
    return result


def _rounded(engine: Engine, fn: Callable, name: str, value):
    """``floor`` or ``ceil``: an integer is itself (exactly, not through a float);
    a float must be finite and fit an int64 (Python's ints have no bound)."""
    integer = engine.integral(value, name)
    if integer is not None:
        return integer
    x, xp = engine.as_float(value, name), engine.xp
    engine.check(xp.isfinite(x) & (xp.abs(x) < 2.0 ** 63), (
        f"{name} of NaN, an infinity or a value beyond int64{cf._where()}: Python raises "
        f"ValueError or OverflowError, or gives an int this traced value cannot hold."))
    return engine.as_int(getattr(xp, _ROUNDING[fn])(x))


def _domain_error(name: str, what: str) -> str:
    return f"{name} of {what}{cf._where()}: Python raises ValueError (math domain error)."


def _check_overflow(engine: Engine, name: str, x, result) -> None:
    xp = engine.xp
    engine.check(~(xp.isinf(result) & xp.isfinite(x)), _overflow(name))


def _overflow(name: str) -> str:
    return f"{name} of a value too large{cf._where()}: Python raises OverflowError (math " \
           f"range error)."


def _log(engine: Engine, name: str, x, base=None):
    x = engine.as_float(x, name)
    engine.check(~(x <= 0), _domain_error(name, "a value not above 0"))
    if base is None:
        return engine.xp.log(x)
    base = engine.as_float(base, name)
    engine.check(~(base <= 0), _domain_error(name, "a base not above 0"))
    engine.check(base != 1, f"{name} to the base 1{cf._where()}: Python raises "
                            f"ZeroDivisionError (the base's logarithm is 0).")
    return engine.xp.log(x) / engine.xp.log(base)


def _pow(engine: Engine, name: str, x, y):
    x, y = engine.as_float(x, name), engine.as_float(y, name)
    xp = engine.xp
    engine.check(~((x < 0) & xp.isfinite(y) & (xp.floor(y) != y)),
                 _domain_error(name, "a negative base and a fractional exponent"))
    engine.check(~((x == 0) & (y < 0)), _domain_error(name, "0 and a negative exponent"))
    result = x ** y
    engine.check(~(xp.isinf(result) & xp.isfinite(x) & xp.isfinite(y)), _overflow(name))
    return result


def _binary(function: str) -> Callable:
    def apply(engine: Engine, name: str, a, b):
        return getattr(engine.xp, function)(engine.as_float(a, name), engine.as_float(b, name))
    return apply


def _hypot(engine: Engine, name: str, *coordinates):
    """Python's ``hypot``, folded pairwise by the engine's: no square overflows or vanishes
    on the way (``hypot(1e200, 1e200)`` is 1.4e200)."""
    total = engine.as_float(0.0, name)
    for value in coordinates:
        total = engine.xp.hypot(total, engine.as_float(value, name))
    return total


def _isclose(engine: Engine, name: str, a, b, *, rel_tol=1e-09, abs_tol=0.0):
    """Python's rule: equal values are close; an infinity is close only to itself; otherwise
    the difference is within ``rel_tol`` of either value or within ``abs_tol``."""
    xp = engine.xp
    a, b = engine.as_float(a, name), engine.as_float(b, name)
    difference = xp.abs(b - a)
    within = (difference <= xp.abs(rel_tol * b)) | (difference <= xp.abs(rel_tol * a)) | (
        difference <= abs_tol)
    return (a == b) | (within & ~xp.isinf(a) & ~xp.isinf(b))


def _scaled(factor: float) -> Callable:
    def apply(engine: Engine, name: str, x):
        return engine.as_float(x, name) * factor
    return apply


_OTHERS = {
    math.log: _log, math.pow: _pow, math.atan2: _binary("arctan2"),
    math.copysign: _binary("copysign"), math.hypot: _hypot, math.isclose: _isclose,
    math.degrees: _scaled(180.0 / math.pi), math.radians: _scaled(math.pi / 180.0),
}


_ALL = frozenset((*_ELEMENTWISE, *_SPECIAL, *_ROUNDING, *_OTHERS))


def traced_version(fn) -> bool:
    """Whether ``fn`` is a ``math`` function with a traced version here."""
    try:
        return fn in _ALL
    except TypeError:  # unhashable callables are not math functions
        return False
