"""What each elementwise op computes on one element, as a Numba expression.

A rule receives the Python expressions of its operands (one element each), their dtypes and
the node's, and returns an expression of exactly the node's dtype, or None when it cannot
promise NumPy's result for those dtypes (the node then stays on the NumPy plan). Numba widens
integer scalar arithmetic to 64 bits; every result is narrowed back with its dtype's
constructor, which wraps around exactly as NumPy's fixed-width arithmetic does. Float rules
compute in the node's precision (NumPy's results, up to the last bit of transcendental
functions, whose implementations differ). Helpers for the cases where Python's and NumPy's
semantics part (integer division by zero, NaN in maximum) live in ``helpers``.

Every rule but those of ``ROUNDED_OWN_WAY`` computes exactly NumPy's bits: IEEE 754 rounds
``+ - * /`` and ``sqrt`` correctly, and the rest is exact. Of those, C kernels compute
``NUMPY_LOOPS`` with NumPy's own loops, exactly too; the default tier (``exact`` compiles)
leaves the others on the plan, so swapping it in never changes a result.
"""

from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from runtime.ops.array_ops import IDENTITY, WHERE
from runtime.ops.conversion_ops import CAST
from runtime.ops.math_ops import (ABS, ADD, BITWISE_AND, BITWISE_OR, BITWISE_XOR, CEIL, COS,
                                  DIVIDE, EQUAL, EXP, FLOOR, FLOORDIV, GREATER, GREATER_EQUAL,
                                  INVERT, LESS, LESS_EQUAL, LOG, LOG1P, LOGICAL_AND, LOGICAL_NOT,
                                  LOGICAL_OR, LOGICAL_XOR, MAXIMUM, MINIMUM, MOD, MULTIPLY,
                                  NEGATIVE, NOT_EQUAL, POSITIVE, POW, RECIPROCAL, ROUND, RSQRT,
                                  SIGMOID, SIN, SQRT, SQUARE, SUBTRACT, TAN, TANH)
from runtime.ops.nn_ops import RELU
from runtime.ops.registry import OpDef

Rule = Callable[[list, list, np.dtype, dict], "str | None"]

# dtypes the tier computes in; anything else (float16, complex, strings) stays on NumPy.
SUPPORTED_DTYPES = frozenset(np.dtype(name) for name in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64"))


@functools.cache
def numba_type(dtype: np.dtype) -> str:
    """The constructor that makes a scalar of ``dtype`` in generated code."""
    return "np.bool_" if dtype.kind == "b" else f"np.{dtype.name}"


def literal(value: np.generic) -> str:
    """A scalar constant written into generated code, exactly."""
    dtype = value.dtype
    if dtype.kind == "b":
        return "True" if value else "False"
    if dtype.kind == "f":
        number = float(value)
        text = repr(number) if np.isfinite(number) else (
            "np.nan" if np.isnan(number) else ("np.inf" if number > 0 else "-np.inf"))
        return f"{numba_type(dtype)}({text})"
    return f"{numba_type(dtype)}({int(value)})"


def _numeric(*dtypes) -> bool:
    return all(d.kind in "iuf" for d in dtypes)


def _same_inputs(in_dtypes) -> bool:
    return len(set(in_dtypes)) == 1


_WRAPPING = {"+": "wrapping_add", "-": "wrapping_sub", "*": "wrapping_mul"}


def _arithmetic(operator: str, *, kinds: str = "iuf") -> Rule:
    def rule(args, in_dtypes, out, attrs):
        if not _same_inputs(in_dtypes) or in_dtypes[0].kind not in kinds or out != in_dtypes[0]:
            return None
        if out == np.int64 and operator in _WRAPPING:  # see helpers: Numba's int64 may not wrap
            return f"{_WRAPPING[operator]}({args[0]}, {args[1]})"
        return f"{numba_type(out)}({args[0]} {operator} {args[1]})"
    return rule


def _helper(name: str, *, kinds: str) -> Rule:
    """A binary op computed by a helper function of the same dtype (see ``helpers``)."""
    def rule(args, in_dtypes, out, attrs):
        if not _same_inputs(in_dtypes) or in_dtypes[0].kind not in kinds or out != in_dtypes[0]:
            return None
        return f"{numba_type(out)}({name}({args[0]}, {args[1]}))"
    return rule


def _floor_rule(helper_for_ints: str) -> Rule:
    """``//`` and ``%``: floats follow Python's (and NumPy's) rules in Numba; integers need the
    helper that gives NumPy's 0 for a zero divisor and wraps ``MIN // -1``."""
    def rule(args, in_dtypes, out, attrs):
        if not _same_inputs(in_dtypes) or out != in_dtypes[0] or not _numeric(out):
            return None
        if out.kind == "f":
            operator = "//" if helper_for_ints == "int_floordiv" else "%"
            return f"{numba_type(out)}({args[0]} {operator} {args[1]})"
        helper = "uint_floordiv" if helper_for_ints == "int_floordiv" and out.kind == "u" \
            else helper_for_ints
        return f"{numba_type(out)}({helper}({args[0]}, {args[1]}))"
    return rule


def _divide(args, in_dtypes, out, attrs):
    if not _same_inputs(in_dtypes) or out.kind != "f" or not _numeric(*in_dtypes):
        return None
    if in_dtypes[0].kind != "f":  # integers divide as float64, as NumPy's true_divide does
        return f"{numba_type(out)}(np.float64({args[0]}) / np.float64({args[1]}))"
    return f"{numba_type(out)}({args[0]} / {args[1]})"


def _comparison(operator: str) -> Rule:
    def rule(args, in_dtypes, out, attrs):
        # Mixed dtypes compare exactly in NumPy; Numba would round an int64 to a float.
        if not _same_inputs(in_dtypes) or in_dtypes[0] not in SUPPORTED_DTYPES:
            return None
        return f"({args[0]} {operator} {args[1]})"
    return rule


def _logical(operator: str) -> Rule:
    def rule(args, in_dtypes, out, attrs):
        if any(d.kind != "b" for d in in_dtypes):
            return None
        return f"({args[0]} {operator} {args[1]})"
    return rule


def _float_function(function: str) -> Rule:
    def rule(args, in_dtypes, out, attrs):
        if in_dtypes[0].kind != "f" or out != in_dtypes[0]:
            return None
        return f"{numba_type(out)}({function}({args[0]}))"
    return rule


def _unary_operator(template: str, *, kinds: str = "iuf", int64: str | None = None) -> Rule:
    """``int64``: the template for int64 operands, through the wrapping helpers."""
    def rule(args, in_dtypes, out, attrs):
        if in_dtypes[0].kind not in kinds or out != in_dtypes[0]:
            return None
        if out == np.int64 and int64 is not None:
            return int64.format(args[0])
        return f"{numba_type(out)}({template.format(args[0])})"
    return rule


def _selection(helper: str) -> Rule:
    """maximum/minimum: NumPy propagates NaN, Python's max does not (the helper does)."""
    def rule(args, in_dtypes, out, attrs):
        if not _same_inputs(in_dtypes) or out != in_dtypes[0] or not _numeric(out):
            return None
        return f"{numba_type(out)}({helper}({args[0]}, {args[1]}))"
    return rule


def _power(args, in_dtypes, out, scalar_exponent: bool):
    # Integer powers raise in NumPy for negative exponents: they stay on the plan. A scalar
    # exponent takes NumPy's shortcuts (float_power); an array of exponents does not.
    if not _same_inputs(in_dtypes) or in_dtypes[0].kind != "f" or out != in_dtypes[0]:
        return None
    if scalar_exponent:
        return f"{numba_type(out)}(float_power({args[0]}, {args[1]}))"
    return f"{numba_type(out)}({args[0]} ** {args[1]})"


def _relu(args, in_dtypes, out, attrs):
    if out != in_dtypes[0] or not _numeric(out):
        return None
    return f"{numba_type(out)}(float_maximum({args[0]}, {numba_type(out)}(0)))"


def _sigmoid(args, in_dtypes, out, attrs):
    if in_dtypes[0].kind != "f" or out != in_dtypes[0]:
        return None
    one = numba_type(out) + "(1)"
    return f"{numba_type(out)}({one} / ({one} + np.exp(-{args[0]})))"


def _one_over(template: str) -> Rule:
    """``1 / template``, in the float dtype of the operand: each step rounds as NumPy's."""
    def rule(args, in_dtypes, out, attrs):
        if in_dtypes[0].kind != "f" or out != in_dtypes[0]:
            return None
        return f"{numba_type(out)}({numba_type(out)}(1) / {template.format(args[0])})"
    return rule


def _cast(args, in_dtypes, out, attrs):
    source = in_dtypes[0]
    if out.kind == "b":
        return f"({args[0]} != 0)"
    if source.kind == "f" and out.kind in "iu":
        return None  # NaN and out-of-range values are undefined in Numba, not NumPy's result
    return f"{numba_type(out)}({args[0]})"


def _where(args, in_dtypes, out, attrs):
    if in_dtypes[0].kind != "b" or in_dtypes[1] != out or in_dtypes[2] != out:
        return None
    return f"({args[1]} if {args[0]} else {args[2]})"


def _identity(args, in_dtypes, out, attrs):
    return args[0]


# Transcendental functions: NumPy computes them with its own vectorized code, chosen for the
# CPU it runs on (AVX2, AVX-512, ...), Numba with LLVM's or the C library's; both are within
# an ulp or two of the true value, not always the same one. Power with an exponent other
# than 0.5 is the C library's pow in kernels and may be NumPy's own code too.
ROUNDED_OWN_WAY = frozenset({EXP, LOG, LOG1P, SIN, COS, TAN, TANH, SIGMOID, POW})

# The unary ones of them that C kernels compute with NumPy's own inner loop, the very function
# NumPy's ufunc calls (``c_source``): NumPy's bits. By name: a kernel's text calls ``np.<name>``.
NUMPY_LOOPS: dict[OpDef, str] = {EXP: "exp", LOG: "log", LOG1P: "log1p", SIN: "sin",
                                 COS: "cos", TAN: "tan", TANH: "tanh"}

ELEMENT_RULES: dict[OpDef, Rule] = {
    ADD: _arithmetic("+"), SUBTRACT: _arithmetic("-"), MULTIPLY: _arithmetic("*"),
    DIVIDE: _divide, FLOORDIV: _floor_rule("int_floordiv"), MOD: _floor_rule("int_mod"),
    MAXIMUM: _selection("float_maximum"), MINIMUM: _selection("float_minimum"),
    EQUAL: _comparison("=="), NOT_EQUAL: _comparison("!="), LESS: _comparison("<"),
    LESS_EQUAL: _comparison("<="), GREATER: _comparison(">"), GREATER_EQUAL: _comparison(">="),
    LOGICAL_AND: _logical("and"), LOGICAL_OR: _logical("or"), LOGICAL_XOR: _logical("!="),
    LOGICAL_NOT: lambda args, in_dtypes, out, attrs: (
        f"(not {args[0]})" if in_dtypes[0].kind == "b" else None),
    BITWISE_AND: _arithmetic("&", kinds="iu"), BITWISE_OR: _arithmetic("|", kinds="iu"),
    BITWISE_XOR: _arithmetic("^", kinds="iu"), INVERT: _unary_operator("~{}", kinds="iu"),
    NEGATIVE: _unary_operator("-{}", int64="wrapping_neg({})"), POSITIVE: _unary_operator("{}"),
    ABS: _unary_operator("abs({})", int64="wrapping_abs({})"),
    SQUARE: _unary_operator("{0} * {0}", int64="wrapping_mul({0}, {0})"),
    EXP: _float_function("np.exp"), LOG: _float_function("np.log"),
    LOG1P: _float_function("np.log1p"), SQRT: _float_function("np.sqrt"),
    SIN: _float_function("np.sin"), COS: _float_function("np.cos"),
    TAN: _float_function("np.tan"), TANH: _float_function("np.tanh"),
    FLOOR: _float_function("np.floor"), CEIL: _float_function("np.ceil"),
    ROUND: _float_function("np.rint"), SIGMOID: _sigmoid, RELU: _relu,
    RSQRT: _one_over("np.sqrt({})"), RECIPROCAL: _one_over("{}"),
    CAST: _cast, WHERE: _where, IDENTITY: _identity,
}


def element_expression(op: OpDef, args: list, in_dtypes: list, out: np.dtype, attrs: dict,
                       scalar_operands: tuple = ()) -> str | None:
    """The expression for one element of ``op``'s result, or None if the tier cannot match
    NumPy's result (unknown op, or dtypes it does not handle). ``scalar_operands`` says which
    operands hold a single element (NumPy's power takes shortcuts for such an exponent)."""
    if out not in SUPPORTED_DTYPES or any(d not in SUPPORTED_DTYPES for d in in_dtypes):
        return None
    if op is POW:
        return _power(args, in_dtypes, out, bool(scalar_operands) and scalar_operands[1])
    rule = ELEMENT_RULES.get(op)
    return None if rule is None else rule(args, in_dtypes, out, attrs)
