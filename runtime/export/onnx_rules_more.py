"""ONNX for the special functions, scans and paddings that have a direct ONNX counterpart: the
inverse trigonometric and hyperbolic functions, ``erf``, the float classifications,
``cumsum`` (ONNX's ``CumSum`` has TensorFlow's ``exclusive`` and ``reverse``) and the constant
``pad``. A rule is ``rule(builder, node, inputs) -> output names``, as in ``onnx_rules_math``."""

from __future__ import annotations

import numpy as np

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder, compute_dtype
from runtime.ops import pad_ops, scan_ops
from runtime.ops import special_math_ops as s


def _float_function(onnx_op: str):
    """ONNX Runtime has float32 kernels only for these: float64 (which integers compute in)
    is refused rather than computed with less precision than the graph."""
    def rule(b: Builder, node, ins):
        out = node.outputs[0].dtype
        work = compute_dtype(out)
        if work != np.float32:
            raise ExportError(f"{node.op.name} in {out.name}: ONNX Runtime's {onnx_op} computes "
                              f"float32 only; cast the input to float32 to export it.")
        result = b.emit(onnx_op, [b.cast(ins[0], node.inputs[0].dtype, work)])
        return [b.cast(result, work, out)]
    return rule


def _classification(test):
    """An integer is never NaN nor infinite: its answer is the same for every element
    (``Equal(x, x)`` is true everywhere, negated where the answer is false)."""
    def rule(b: Builder, node, ins):
        if node.inputs[0].dtype.kind != "f":
            everywhere = b.emit("Equal", [ins[0], ins[0]])
            return [everywhere if node.op is s.IS_FINITE else b.emit("Not", [everywhere])]
        return [test(b, ins[0])]
    return rule


def _finite(b: Builder, value: str) -> str:
    return b.emit("Not", [b.emit("Or", [b.emit("IsNaN", [value]), b.emit("IsInf", [value])])])


def _cumsum(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    result = b.emit("CumSum", [b.cast(ins[0], out, work), b.scalar(node.attrs["axis"], np.int64)],
                    exclusive=int(node.attrs["exclusive"]), reverse=int(node.attrs["reverse"]))
    return [b.cast(result, work, out)]


def _pad(b: Builder, node, ins):
    pairs = node.attrs["paddings"]
    pads = b.int64s([before for before, _ in pairs] + [after for _, after in pairs])
    return [b.emit("Pad", [ins[0], pads, ins[1]], mode="constant")]


RULES = {
    s.ASIN: _float_function("Asin"),
    s.ACOS: _float_function("Acos"),
    s.ATAN: _float_function("Atan"),
    s.SINH: _float_function("Sinh"),
    s.COSH: _float_function("Cosh"),
    s.ERF: _float_function("Erf"),
    s.IS_NAN: _classification(lambda b, value: b.emit("IsNaN", [value])),
    s.IS_INF: _classification(lambda b, value: b.emit("IsInf", [value])),
    s.IS_FINITE: _classification(_finite),
    scan_ops.CUMSUM: _cumsum,
    pad_ops.PAD: _pad,
}
