"""Builtins on JAX tracers in converted code: ``int``, ``float``, ``bool``, ``abs``, ``round``,
``min``, ``max``, ``len`` and the ``math`` functions give what Python gives on the concrete
values; ``print`` and ``assert`` act when the function runs, not once while it is traced.

``transpiler.operators.builtins`` (and ``asserts``) hand a call here when one of its values is
a tracer (``JaxBackend.builtins``), or, for ``print``, when the call sits in a branch or loop
body that JAX stages (``in_staged_block``): such a body runs any number of times, even zero,
so a print of Python values there prints at run time too, as in the runtime backend.
"""

from __future__ import annotations

import sys

import jax
import jax.numpy as jnp
import jax.scipy.special
import numpy as np

from runtime.ops.io_ops import FormattedValue, format_value
from transpiler.operators import control_flow as cf
from transpiler.operators.formatting import StagedText, flatten_print_values
from transpiler.operators.staging import extremes, is_jax_tracer, math_functions
from transpiler.operators.staging.jax_values import (condition, describe, in_staged_block,
                                                     spec_of, weak)

__all__ = ["MATH", "METHODS", "item_", "int_", "float_", "bool_", "abs_", "round_", "min_",
           "max_", "len_", "print_", "print_pieces", "assert_", "in_staged_block"]


def _kind(value) -> str:
    return np.dtype(jnp.result_type(value)).kind


def _scalar(name: str, value) -> None:
    if np.ndim(value) != 0:
        raise TypeError(
            f"{name}() of an array of shape {tuple(np.shape(value))}{cf._where()}: only a "
            f"0-dimensional array converts to a Python number, as in NumPy. Index one element, "
            f"or use .astype(...) for the whole array.")
    if _kind(value) == "c":
        raise TypeError(
            f"{name}() of a complex array{cf._where()} is not defined, as for Python complex "
            f"numbers. Take .real first.")


def int_(value):
    """``int(x)``: an integer of ``x``'s width and at least 32 bits (float32 → int32, float64 →
    int64, bool and narrower ints → int32), truncating toward zero as Python does, typed as a
    Python int (weak). NaN and infinities give what the cast gives (Python raises)."""
    _scalar("int", value)
    dtype = np.dtype(jnp.result_type(value))
    if dtype.kind == "f":
        target = jnp.int64 if dtype.itemsize == 8 else jnp.int32
    elif dtype.kind == "b" or dtype.itemsize < 4:
        target = jnp.int32
    else:
        target = dtype
    return weak(jnp.trunc(value).astype(target) if dtype.kind == "f"
                else jnp.asarray(value).astype(target))


def float_(value):
    """``float(x)``: a float of ``x``'s width and at least 32 bits (int64 → float64), typed as a
    Python float (weak)."""
    _scalar("float", value)
    dtype = np.dtype(jnp.result_type(value))
    if dtype.kind == "f" and dtype.itemsize >= 4:
        return weak(jnp.asarray(value))
    target = jnp.float64 if dtype.itemsize == 8 else jnp.float32
    return weak(jnp.asarray(value).astype(target))


def item_(value):
    """``x.item()``: the one value of ``x``, as a 0-d array standing for the Python number
    (weak), computed when the function runs (JAX cannot give a Python number from a
    tracer)."""
    if np.size(value) != 1:
        raise TypeError(f"item() of an array of shape {tuple(np.shape(value))}{cf._where()}: "
                        f"only an array with one element has one value, as in NumPy. Index "
                        f"one element first.")
    return weak(jnp.reshape(value, ()))


METHODS = {"item": item_}  # what converted code calls instead (``builtins.traced_method``)


def bool_(value):
    """``bool(x)``: whether ``x`` is not zero, as a bool scalar."""
    _scalar("bool", value)
    return jnp.asarray(value) != 0


def abs_(value):
    return jnp.abs(value)


def _as_double(value, name: str = "float()"):
    """A number or a 0-d array as the widest float JAX computes with (float64 with
    ``jax_enable_x64``, else float32), typed as a Python float."""
    _scalar(name.removesuffix("()"), value)
    return weak(jnp.asarray(value, dtype=jnp.result_type(float)))


def _as_integer(value, name: str):
    """An integer or bool (a Python one, or a 0-d array) as JAX's default int, exactly; None
    for a float."""
    _scalar(name.removesuffix("()"), value)
    if _kind(value) not in "biu":
        return None
    return weak(jnp.asarray(value).astype(jnp.result_type(int)))


MATH = math_functions.Engine(
    xp=jnp, special={"erf": jax.scipy.special.erf, "erfc": jax.scipy.special.erfc,
                     "lgamma": jax.scipy.special.gammaln},
    as_float=_as_double, as_int=lambda value: weak(value.astype(jnp.result_type(int))),
    integral=_as_integer,
    check=lambda holds, message: None)  # JAX gives the IEEE value (see math_functions)


def round_(number, ndigits=None):
    """``round(x)`` rounds half to even (NumPy's, and Python's, rule); with ``ndigits``, a value
    of ``x``'s dtype. Without, a value standing for a Python number (weak, as ``x.item()``)
    gives what ``int`` gives, and an array what JAX's own ``round`` gives on concrete arrays,
    the default int array (so converted code types it as it runs unconverted)."""
    if ndigits is not None:
        return jnp.round(number, ndigits)
    rounded = jnp.round(number) if _kind(number) == "f" else number
    if getattr(number, "weak_type", True):
        return int_(rounded)
    return jnp.asarray(rounded).astype(jnp.result_type(int))


def _typed(value) -> extremes.Typed:
    spec = spec_of(value)
    kind = np.dtype(spec.dtype).kind
    return extremes.Typed("i" if kind == "u" else kind, np.dtype(spec.dtype), spec.weak_type,
                          describe(spec))


_JAX = extremes.Engine("a JAX tracer", "jnp",
                       reduce=lambda name, vector: getattr(jnp, name)(vector),
                       select=jnp.where, typed=_typed, conversion=".astype(...)")


def min_(*args, **kwargs):
    return extremes.extreme(_JAX, "min", args, kwargs)


def max_(*args, **kwargs):
    return extremes.extreme(_JAX, "max", args, kwargs)


def len_(value):
    if np.ndim(value) == 0:
        raise TypeError(f"len() of a scalar array{cf._where()}: a scalar has no length. Use "
                        f"x.size for the number of elements.")
    return np.shape(value)[0]


def print_(values: tuple, sep: str, end: str) -> None:
    """Prints ``values`` when the function runs, as Python prints the concrete values (NumPy's
    text for arrays: ``5``, ``2.5``, ``[1. 2.]``)."""
    template, arrays = _template(flatten_print_values(values, sep))
    jax.debug.callback(lambda *concrete: sys.stdout.write(_render(template, concrete) + end),
                       *arrays, ordered=True)


def _template(pieces: list) -> tuple[list, list]:
    """``pieces`` as text with slots ``(index, style)`` for the tracers, and the tracers."""
    template, arrays = [], []
    for piece in pieces:
        if isinstance(piece, FormattedValue) and is_jax_tracer(piece.value):
            template.append((len(arrays), piece.style))
            arrays.append(piece.value)
        elif is_jax_tracer(piece):
            template.append((len(arrays), ""))
            arrays.append(piece)
        else:
            template.append(str(piece))
    return template, arrays


def _render(template: list, concrete: tuple) -> str:
    return "".join(format_value(np.asarray(concrete[item[0]]), item[1])
                   if isinstance(item, tuple) else item for item in template)


def print_pieces(values: tuple) -> list:
    """The values of a ``print`` and the tracers of its formatted texts (f-strings)."""
    pieces = []
    for value in values:
        if isinstance(value, StagedText):
            pieces.extend(p.value if isinstance(p, FormattedValue) else p for p in value.pieces)
        else:
            pieces.append(value)
    return pieces


def assert_(test, message) -> None:
    """``assert test, message()`` on a traced test: checked each time the function runs,
    raising ``AssertionError(message)`` (inside JAX's run-time error) where it is false."""
    truth = condition(test, "an assert statement")
    text = None if message is None else message()
    pieces = text.pieces if isinstance(text, StagedText) else [] if text is None else [text]
    template, arrays = _template(pieces)
    location = cf._where()

    def check(holds, *concrete) -> None:
        if not np.all(np.asarray(holds)):
            said = "Assertion failed" if text is None else _render(template, concrete)
            raise AssertionError(f"{said} (the assert{location})" if location else said)
    jax.debug.callback(check, truth, *arrays, ordered=True)
