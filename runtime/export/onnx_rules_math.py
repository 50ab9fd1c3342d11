"""ONNX for the elementwise ops: arithmetic, comparisons, logic, unary math.

Where ONNX's op computes something else than NumPy (the runtime's kernels), the rule emits the
extra nodes that give NumPy's answer: integer ``//`` rounds toward negative infinity and gives
0 for a zero divisor (ONNX ``Div`` truncates and fails), float ``//`` and ``%`` follow NumPy's
``divmod``, integer ``**`` wraps around (ONNX Runtime computes it in floating point and
saturates), ``log1p`` keeps its precision near 0. A rule is ``rule(builder, node, inputs) ->
output names``; inputs arrive in the dtypes of ``node.inputs`` and results leave in the
dtypes of ``node.outputs``.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder, compute_dtype, value_info
from runtime.ops import math_ops as m
from runtime.ops.registry import CONST


def _operands(b: Builder, node, ins, dtype) -> list[str]:
    return [b.cast(name, value.dtype, dtype) for name, value in zip(ins, node.inputs)]


def _arithmetic(onnx_op: str, bool_ok: bool = True):
    """An op computing in its output dtype (widened where ORT lacks kernels); bools compute
    as int32 and convert back (NumPy's bool + is or, * is and)."""
    def rule(b: Builder, node, ins):
        out = node.outputs[0].dtype
        work = np.dtype(np.int32) if out == np.bool_ else compute_dtype(out)
        if out == np.bool_ and not bool_ok:
            raise ExportError(f"{node.op.name} on bool tensors has no ONNX equivalent.")
        return [b.cast(b.emit(onnx_op, _operands(b, node, ins, work)), work, out)]
    return rule


def _comparison(onnx_op: str):
    def rule(b: Builder, node, ins):
        common = np.result_type(*(v.dtype for v in node.inputs))
        if common == np.bool_ and onnx_op != "Equal":
            common = np.dtype(np.int32)
        result = b.emit(onnx_op, _operands(b, node, ins, compute_dtype(common)))
        return [b.emit("Not", [result]) if node.op is m.NOT_EQUAL else result]
    return rule


def _logical(onnx_op: str):
    def rule(b: Builder, node, ins):
        return [b.emit(onnx_op, _operands(b, node, ins, np.bool_))]
    return rule


def _bitwise(onnx_op: str, bool_op: str):
    def rule(b: Builder, node, ins):
        if node.outputs[0].dtype == np.bool_:
            return [b.emit(bool_op, ins)]
        return [b.emit(onnx_op, ins)]
    return rule


def _unary(onnx_op: str):
    """A float function: integer inputs convert to the float dtype NumPy gives them first."""
    def rule(b: Builder, node, ins):
        out = node.outputs[0].dtype
        work = compute_dtype(out)
        return [b.cast(b.emit(onnx_op, _operands(b, node, ins, work)), work, out)]
    return rule


def _rounding(onnx_op: str):
    """floor, ceil, round: the identity on integers (NumPy keeps them integers)."""
    float_rule = _unary(onnx_op)

    def rule(b: Builder, node, ins):
        if node.outputs[0].dtype.kind in "iub":
            return [b.cast(ins[0], node.inputs[0].dtype, node.outputs[0].dtype)]
        return float_rule(b, node, ins)
    return rule


# -- division -------------------------------------------------------------------------------


def _signbit(b: Builder, value: str, dtype) -> str:
    """Whether the sign bit of a float is set (also for -0.0: 1 / -0.0 is -inf)."""
    one, zero = b.scalar(1, dtype), b.scalar(0, dtype)
    return b.emit("Less", [b.emit("Div", [one, value]), zero])


def _float_divmod(b: Builder, x: str, y: str, dtype) -> tuple[str, str]:
    """NumPy's ``divmod`` on floats (npy_divmod): the floored quotient and the remainder with
    the divisor's sign, both from C's fmod, with NumPy's signs of zero and its answers for a
    zero divisor (``x / 0`` and NaN)."""
    zero, one, half = (b.scalar(v, dtype) for v in (0, 1, 0.5))
    mod = b.emit("Mod", [x, y], fmod=1)
    div = b.emit("Div", [b.emit("Sub", [x, mod]), y])
    mod_is_zero = b.emit("Equal", [mod, zero])
    signs_differ = b.emit("Xor", [b.emit("Less", [y, zero]), b.emit("Less", [mod, zero])])
    adjust = b.emit("And", [b.emit("Not", [mod_is_zero]), signs_differ])
    div = b.emit("Where", [adjust, b.emit("Sub", [div, one]), div])
    signed_zero_y = b.emit("Where", [b.emit("Less", [y, zero]), b.scalar(-0.0, dtype), zero])
    remainder = b.emit("Where", [adjust, b.emit("Add", [mod, y]),
                                 b.emit("Where", [mod_is_zero, signed_zero_y, mod])])
    floor = b.emit("Floor", [div])
    floor = b.emit("Where", [b.emit("Greater", [b.emit("Sub", [div, floor]), half]),
                             b.emit("Add", [floor, one]), floor])
    quotient = b.emit("Div", [x, y])
    signed_zero_q = b.emit("Where", [_signbit(b, quotient, dtype), b.scalar(-0.0, dtype), zero])
    floor = b.emit("Where", [b.emit("Equal", [div, zero]), signed_zero_q, floor])
    y_is_zero = b.emit("Equal", [y, zero])
    return (b.emit("Where", [y_is_zero, quotient, floor]),
            b.emit("Where", [y_is_zero, mod, remainder]))


def _known_divisor(node) -> np.ndarray | None:
    """The divisor's values when it is a constant of the graph (most ``// 2`` and ``% 3``)."""
    divisor = node.inputs[1]
    return divisor.node.attrs["value"] if divisor.node.op is CONST else None


def _safe_divisor(b: Builder, y: str, dtype, known) -> tuple[str, str | None, str | None]:
    """``y`` with 0 (and -1 for signed dtypes) replaced by 1, which ONNX Runtime divides by
    without failing (0) or overflowing (INT_MIN / -1); and masks of where they were (None
    when the constant divisor ``known`` holds neither)."""
    signed = np.dtype(dtype).kind == "i"
    if known is not None and np.all(known != 0) and not (signed and np.any(known == -1)):
        return y, None, None
    is_zero = b.emit("Equal", [y, b.scalar(0, dtype)])
    if not signed:
        return b.emit("Where", [is_zero, b.scalar(1, dtype), y]), is_zero, None
    is_minus_one = b.emit("Equal", [y, b.scalar(-1, dtype)])
    either = b.emit("Or", [is_zero, is_minus_one])
    return b.emit("Where", [either, b.scalar(1, dtype), y]), is_zero, is_minus_one


def _int_floordiv(b: Builder, x: str, y: str, dtype, known) -> str:
    """Python's ``//`` on integers, and NumPy's 0 for a zero divisor; ``INT_MIN // -1`` wraps
    around to INT_MIN as in NumPy."""
    zero, one = b.scalar(0, dtype), b.scalar(1, dtype)
    safe, is_zero, is_minus_one = _safe_divisor(b, y, dtype, known)
    quotient = b.emit("Div", [x, safe])
    if np.dtype(dtype).kind == "i":  # signed: truncation rounds up when the signs differ
        remainder = b.emit("Sub", [x, b.emit("Mul", [quotient, safe])])
        inexact = b.emit("Not", [b.emit("Equal", [remainder, zero])])
        signs = b.emit("Xor", [b.emit("Less", [remainder, zero]), b.emit("Less", [safe, zero])])
        quotient = b.emit("Where", [b.emit("And", [inexact, signs]),
                                    b.emit("Sub", [quotient, one]), quotient])
    if is_minus_one is not None:
        quotient = b.emit("Where", [is_minus_one, b.emit("Neg", [x]), quotient])
    if is_zero is not None:
        quotient = b.emit("Where", [is_zero, zero, quotient])
    return quotient


def _floordiv(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    x, y = _operands(b, node, ins, work)
    if work.kind == "f":
        return [b.cast(_float_divmod(b, x, y, work)[0], work, out)]
    return [b.cast(_int_floordiv(b, x, y, work, _known_divisor(node)), work, out)]


def _mod(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    x, y = _operands(b, node, ins, work)
    if work.kind == "f":
        return [b.cast(_float_divmod(b, x, y, work)[1], work, out)]
    # x % 1 is 0: NumPy's answer for the divisors 0 and -1 too
    safe = _safe_divisor(b, y, work, _known_divisor(node))[0]
    return [b.cast(b.emit("Mod", [x, safe]), work, out)]


# -- powers ---------------------------------------------------------------------------------


def _pow(b: Builder, node, ins):
    out = node.outputs[0].dtype
    if out.kind == "f":
        work = compute_dtype(out)
        return [b.cast(b.emit("Pow", _operands(b, node, ins, work)), work, out)]
    if out.kind not in "iu":
        raise ExportError(f"pow of {out.name} tensors has no ONNX equivalent.")
    work = compute_dtype(out)
    x, y = _operands(b, node, ins, work)
    exponent = node.inputs[1]
    known = exponent.node.op is CONST and exponent.shape == ()
    if known and int(exponent.node.attrs["value"]) >= 0:
        power = _power_by_squaring(b, x, int(exponent.node.attrs["value"]), work)
        return [b.cast(power, work, out)]
    result = _integer_power_loop(b, x, y, work)
    if work.kind == "i":  # NumPy refuses negative integer exponents
        negatives = b.emit("ReduceSum", [b.emit("Cast", [b.emit("Less", [y, b.scalar(0, work)])],
                                                to=TensorProto.INT64)], keepdims=0)
        ok = b.emit("Equal", [negatives, b.scalar(0, np.int64)])
        result = b.check(result, ok, "integers to negative integer powers are not allowed")
    return [b.cast(result, work, out)]


def _power_by_squaring(b: Builder, x: str, exponent: int, dtype) -> str:
    """``x ** exponent`` for a known exponent, as multiplications (which wrap around)."""
    result, base = None, x
    while exponent:
        if exponent & 1:
            result = base if result is None else b.emit("Mul", [result, base])
        exponent >>= 1
        if exponent:
            base = b.emit("Mul", [base, base])
    if result is None:  # x ** 0 is 1 everywhere, in x's shape
        return b.emit("Add", [b.emit("Mul", [x, b.scalar(0, dtype)]), b.scalar(1, dtype)])
    return result


def _integer_power_loop(b: Builder, x: str, y: str, dtype) -> str:
    """``x ** y`` elementwise by squaring: a ``Loop`` over the exponent's bits."""
    zero = b.emit("Add", [b.emit("Mul", [x, b.scalar(0, dtype)]),
                          b.emit("Mul", [y, b.scalar(0, dtype)])])  # zeros of the joint shape
    init = [b.emit("Add", [zero, b.scalar(1, dtype)]), b.emit("Add", [zero, x]),
            b.emit("Add", [zero, y])]
    bits = np.dtype(dtype).itemsize * 8
    names = [b.fresh(f"{b.prefix}/pow_loop/{n}") for n in ("i", "cond", "result", "base", "exp")]
    with b.subgraph() as body:
        result, base, exp = names[2:]
        odd = b.emit("Equal", [b.emit("Mod", [exp, b.scalar(2, dtype)]), b.scalar(1, dtype)])
        outs = [b.emit("Identity", [names[1]]),
                b.emit("Where", [odd, b.emit("Mul", [result, base]), result]),
                b.emit("Mul", [base, base]),
                b.emit("Div", [exp, b.scalar(2, dtype)])]
    graph = helper.make_graph(
        body, b.fresh(f"{b.prefix}/pow_loop"),
        [value_info(names[0], np.int64, ()), value_info(names[1], np.bool_, ())]
        + [value_info(n, dtype, None) for n in names[2:]],
        [value_info(outs[0], np.bool_, None)] + [value_info(n, dtype, None) for n in outs[1:]])
    loop = b.emit("Loop", [b.constant(np.array(bits, np.int64)), ""] + init, outputs=3, body=graph)
    return loop[0]


# -- unary ops with NumPy's edge cases ------------------------------------------------------


def _negative(b: Builder, node, ins):
    dtype = node.outputs[0].dtype
    work = compute_dtype(dtype)
    x = b.cast(ins[0], node.inputs[0].dtype, work)
    if work.kind == "u":  # wraps around: 0 - x
        return [b.cast(b.emit("Sub", [b.scalar(0, work), x]), work, dtype)]
    return [b.cast(b.emit("Neg", [x]), work, dtype)]


def _square(b: Builder, node, ins):
    dtype = node.outputs[0].dtype
    work = np.dtype(np.int32) if dtype == np.bool_ else compute_dtype(dtype)
    x = b.cast(ins[0], node.inputs[0].dtype, work)
    return [b.cast(b.emit("Mul", [x, x]), work, dtype)]


def precise_log1p(b: Builder, x: str, dtype) -> str:
    """``log(1 + x)`` to full precision near 0: ``log(u) * x / (u - 1)`` with ``u = 1 + x``
    corrects the rounding of ``u`` (exact where ``u == 1``; infinities and -1 keep ``log(u)``)."""
    one = b.scalar(1, dtype)
    u = b.emit("Add", [one, x])
    log_u = b.emit("Log", [u])
    corrected = b.emit("Div", [b.emit("Mul", [log_u, x]), b.emit("Sub", [u, one])])
    keep_log = b.emit("Or", [b.emit("IsInf", [u]), b.emit("Equal", [u, b.scalar(0, dtype)])])
    return b.emit("Where", [b.emit("Equal", [u, one]), x,
                            b.emit("Where", [keep_log, log_u, corrected])])


def _log1p(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    return [b.cast(precise_log1p(b, b.cast(ins[0], node.inputs[0].dtype, work), work), work, out)]


def _tan(b: Builder, node, ins):
    """ONNX Runtime has no float64 ``Tan``: ``sin / cos`` there (within a rounding or two)."""
    out = node.outputs[0].dtype
    if out != np.float64:
        return _unary("Tan")(b, node, ins)
    x = b.cast(ins[0], node.inputs[0].dtype, out)
    return [b.emit("Div", [b.emit("Sin", [x]), b.emit("Cos", [x])])]


def _rsqrt(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    root = b.emit("Sqrt", _operands(b, node, ins, work))
    return [b.cast(b.emit("Reciprocal", [root]), work, out)]


def _identity(b: Builder, node, ins):
    return [b.emit("Identity", [ins[0]])]


RULES = {
    m.ADD: _arithmetic("Add"),
    m.SUBTRACT: _arithmetic("Sub"),
    m.MULTIPLY: _arithmetic("Mul"),
    m.DIVIDE: _unary("Div"),
    m.FLOORDIV: _floordiv,
    m.MOD: _mod,
    m.POW: _pow,
    m.MAXIMUM: _arithmetic("Max"),
    m.MINIMUM: _arithmetic("Min"),
    m.EQUAL: _comparison("Equal"),
    m.NOT_EQUAL: _comparison("Equal"),
    m.GREATER: _comparison("Greater"),
    m.GREATER_EQUAL: _comparison("GreaterOrEqual"),
    m.LESS: _comparison("Less"),
    m.LESS_EQUAL: _comparison("LessOrEqual"),
    m.LOGICAL_AND: _logical("And"),
    m.LOGICAL_OR: _logical("Or"),
    m.LOGICAL_XOR: _logical("Xor"),
    m.LOGICAL_NOT: _logical("Not"),
    m.BITWISE_AND: _bitwise("BitwiseAnd", "And"),
    m.BITWISE_OR: _bitwise("BitwiseOr", "Or"),
    m.BITWISE_XOR: _bitwise("BitwiseXor", "Xor"),
    m.INVERT: _bitwise("BitwiseNot", "Not"),
    m.NEGATIVE: _negative,
    m.POSITIVE: _identity,
    m.ABS: _unary("Abs"),
    m.SIGN: _unary("Sign"),
    m.EXP: _unary("Exp"),
    m.LOG: _unary("Log"),
    m.LOG1P: _log1p,
    m.SQRT: _unary("Sqrt"),
    m.RSQRT: _rsqrt,
    m.RECIPROCAL: _unary("Reciprocal"),
    m.SQUARE: _square,
    m.SIN: _unary("Sin"),
    m.COS: _unary("Cos"),
    m.TAN: _tan,
    m.TANH: _unary("Tanh"),
    m.SIGMOID: _unary("Sigmoid"),
    m.FLOOR: _rounding("Floor"),
    m.CEIL: _rounding("Ceil"),
    m.ROUND: _rounding("Round"),
}
