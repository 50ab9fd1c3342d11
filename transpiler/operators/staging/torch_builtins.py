"""Builtins on traced PyTorch tensors in converted code: ``int``, ``float``, ``bool``, ``abs``,
``round``, ``min``, ``max`` and ``len`` give what Python gives on the concrete values, as
tensors (Python would ask the tensor for its value, which a trace does not know: "Could not
extract specialized integer from data-dependent expression"); so do the numbers such a value
gives (``x.item()``). ``assert`` checks when the program runs.

``transpiler.operators.builtins`` (and ``asserts``) hand a call here when one of its values is a
traced tensor (``TorchBackend.builtins``). ``print`` keeps Python's meaning: it prints while
PyTorch traces (PyTorch's own print operator is not kept by ``torch.export`` nor run by
``torch.compile`` here), as unconverted code does under ``torch.export``.
"""

from __future__ import annotations

import builtins

import torch

from transpiler.operators import control_flow as cf
from transpiler.operators.staging import extremes, is_torch_traced, math_functions
from transpiler.operators.staging.torch_values import Spec, condition, kind, number

__all__ = ["MATH", "METHODS", "FUNCTIONS", "item_", "equal", "allclose", "int_", "float_",
           "bool_", "abs_", "round_", "min_", "max_", "len_", "print_", "assert_",
           "in_staged_block"]


_SYMBOLIC_NUMBERS = {torch.SymBool: torch.bool, torch.SymInt: torch.int64,
                     torch.SymFloat: torch.float64}


def _tensor(value):
    """``value``, or a number the trace knows only when the program runs (``x.item()``) as a
    0-d tensor of the type Python gives it."""
    dtype = _SYMBOLIC_NUMBERS.get(type(value))
    return value if dtype is None else torch.scalar_tensor(value, dtype=dtype)


def _one_value(name: str, value: torch.Tensor) -> None:
    if value.numel() != 1:
        raise TypeError(
            f"{name}() of a tensor of shape {tuple(value.shape)}{cf._where()}: only a tensor "
            f"with one element converts to a Python number, as in PyTorch. Index one element, "
            f"or use .to(...) for the whole tensor.")
    if value.dtype.is_complex:
        raise TypeError(
            f"{name}() of a complex tensor{cf._where()} is not defined, as for Python complex "
            f"numbers. Take .real first.")


def int_(value: torch.Tensor) -> torch.Tensor:
    """``int(x)``: an int64 scalar (PyTorch's type for Python ints), truncated toward zero. NaN
    and infinities, where Python raises, fail the program's run-time check."""
    value = _tensor(value)
    _one_value("int", value)
    value = value.reshape(())
    if value.dtype.is_floating_point:
        torch._assert_async(torch.isfinite(value),
                            f"int() of a NaN or infinite value{cf._where()}: Python raises, as "
                            f"no integer holds it.")
        value = torch.trunc(value)
    return value.to(torch.int64)


def float_(value: torch.Tensor) -> torch.Tensor:
    """``float(x)``: a float scalar of ``x``'s width and at least 32 bits (int64 → float64),
    as the other engines give."""
    value = _tensor(value)
    _one_value("float", value)
    value = value.reshape(())
    if value.dtype.is_floating_point and value.dtype.itemsize >= 4:
        return value
    return value.to(torch.float64 if value.dtype.itemsize == 8 else torch.float32)


def item_(value: torch.Tensor):
    """``x.item()``: of a float, complex or bool tensor, its one value as a 0-d tensor standing
    for the Python number (a symbolic float of the trace cannot be read inside staged blocks
    once Python arithmetic made it: ``math.exp(-m)``); of an integer tensor, a symbolic int of
    the trace, which sizes and indices take."""
    if value.numel() != 1:
        raise RuntimeError(f"a Tensor with {value.numel()} elements cannot be converted to "
                           f"Scalar{cf._where()}, as in PyTorch. Index one element first.")
    if value.dtype.is_floating_point or value.dtype.is_complex or value.dtype == torch.bool:
        return value.reshape(())
    return value.item()


def equal(input, other):  # noqa: A002 (PyTorch's parameter names, which callers may use)
    """``torch.equal``: on traced tensors, the same sizes (known while tracing) and equal
    elements, computed when the program runs."""
    if not _traced(input, other):
        return torch.equal(input, other)
    if tuple(input.shape) != tuple(other.shape):
        return False
    return torch.eq(input, other).all()


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):  # noqa: A002
    """``torch.allclose``: on traced tensors, ``isclose`` of every element, computed when the
    program runs."""
    if not _traced(input, other):
        return torch.allclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return torch.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan).all()


def _traced(*values) -> bool:
    return any(map(is_torch_traced, values))


# What converted code calls instead of these functions and methods (``staging.
# library_replacement``, ``builtins.traced_method``): PyTorch computes their results from the
# data, which a trace does not have ("DataDependentOutputException: aten.equal").
FUNCTIONS = {torch.equal: equal, torch.allclose: allclose}


def bool_(value) -> torch.Tensor:
    """``bool(x)``: whether ``x`` is not zero, as a bool scalar."""
    value = _tensor(value)
    _one_value("bool", value)
    return condition(value, "bool()")


def abs_(value) -> torch.Tensor:
    return torch.abs(_tensor(value))


def round_(number, ndigits=None) -> torch.Tensor:
    """``round(x)``: like ``int(x)`` of ``x`` rounded half to even (Python's rule, and
    PyTorch's); with ``ndigits``, a value of ``x``'s dtype."""
    number = _tensor(number)
    if ndigits is not None:
        return torch.round(number, decimals=ndigits)
    return int_(torch.round(number) if number.dtype.is_floating_point else number)


def _select(condition, new, old) -> torch.Tensor:
    as_tensor = (lambda value: value if isinstance(value, torch.Tensor) else number(value))
    return torch.where(as_tensor(condition), as_tensor(new), old)


def _typed(value) -> extremes.Typed:
    spec = Spec.of(value)
    return extremes.Typed(kind(spec.dtype), spec.dtype, spec.weak, spec.describe())


_TORCH = extremes.Engine("a traced PyTorch tensor", "torch",
                         reduce=lambda name, vector: getattr(torch, f"a{name}")(vector),
                         select=_select, typed=_typed, conversion=".to(...)")


def min_(*args, **kwargs):
    return extremes.extreme(_TORCH, "min", args, kwargs)


def max_(*args, **kwargs):
    return extremes.extreme(_TORCH, "max", args, kwargs)


def len_(value: torch.Tensor):
    if value.dim() == 0:
        raise TypeError(f"len() of a 0-d tensor{cf._where()}: a scalar has no length. Use "
                        f"x.numel() for the number of elements.")
    return value.shape[0]


def _as_double(value, name: str = "float()") -> torch.Tensor:
    """A Python number or a one-element value as the float64 scalar Python computes with."""
    if isinstance(value, (bool, int, float)):
        return number(float(value), torch.float64)
    value = _tensor(value)
    _one_value(name.removesuffix("()"), value)
    return value.reshape(()).to(torch.float64)


def _as_integer(value, name: str):
    """A Python or symbolic int (``n.item()``) as an int64 scalar, exactly; None for anything
    else: ``math.floor`` of a tensor goes through its float in eager PyTorch too."""
    if isinstance(value, (bool, int, torch.SymBool, torch.SymInt)):
        return torch.scalar_tensor(value, dtype=torch.int64) \
            if isinstance(value, (torch.SymBool, torch.SymInt)) else number(int(value), torch.int64)
    return None


METHODS = {"item": item_, "equal": equal, "allclose": allclose}

MATH = math_functions.Engine(
    xp=torch, special={"erf": torch.erf, "erfc": torch.erfc, "lgamma": torch.lgamma},
    as_float=_as_double, as_int=lambda value: value.to(torch.int64), integral=_as_integer,
    check=lambda holds, message: torch._assert_async(holds, message))


def in_staged_block() -> bool:
    """Prints in staged blocks print while PyTorch traces them (see the module's docstring)."""
    return False


def print_(values: tuple, sep: str, end: str) -> None:
    builtins.print(*values, sep=sep, end=end)


def assert_(test, message) -> None:
    """``assert test, message()`` on a traced test: checked each time the program runs. The
    message is fixed while tracing (a tensor in it shows as traced)."""
    truth = condition(test, "an assert statement")
    said = "Assertion failed" if message is None else str(message())
    location = cf._where()
    torch._assert_async(truth, f"{said} (the assert{location})" if location else said)
