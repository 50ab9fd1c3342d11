"""ONNX for Einstein summation and determinants, and why the other linear-algebra ops do not
export: ONNX has ``Einsum`` and ``Det`` and no factorization, solve or inverse.

``Einsum`` computes in a dtype ONNX Runtime has a kernel for (int32, int64, float32,
float64): narrower integers widen and wrap back (sums of products modulo 2**bits commute with
the final cast), bools count their true products and test the count (NumPy's bool einsum is
an or of ands). ONNX Runtime's ``Det`` has a float32 kernel only. A rule is
``rule(builder, node, inputs) -> output names``, as in ``onnx_rules_math``.
"""

from __future__ import annotations

import numpy as np

from runtime.errors import ExportError
from runtime.export.onnx_builder import Builder, compute_dtype
from runtime.ops import decompositions_ops as d
from runtime.ops import einsum_ops

_EINSUM_DTYPES = {np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)}


def _einsum(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = np.dtype(np.int32) if out == np.bool_ else compute_dtype(out)
    if work not in _EINSUM_DTYPES:
        raise ExportError(f"ONNX Runtime's Einsum has no kernel for {out.name} (only int32, "
                          f"int64, float32 and float64); cast the operands to export it.")
    result = b.emit("Einsum", [b.cast(name, value.dtype, work)
                               for name, value in zip(ins, node.inputs)],
                    equation=node.attrs["equation"])
    return [b.cast(result, work, out)]  # a count cast to bool is "any product true"


def _det(b: Builder, node, ins):
    out = node.outputs[0].dtype
    work = compute_dtype(out)
    if work != np.float32:
        raise ExportError(f"determinant in {out.name}: ONNX Runtime's Det computes float32 "
                          f"only, and ONNX has no LU factorization to compose it from; cast "
                          f"the matrices to float32 to export it.")
    return [b.cast(b.emit("Det", [b.cast(ins[0], out, work)]), work, out)]


RULES = {
    einsum_ops.EINSUM: _einsum,
    d.DET: _det,
}

_ELSEWHERE = "compute it outside the model, or export the function with rt.export.jax"
_NO_FACTORIZATION = ("the standard ONNX operators include no matrix factorization (LU, "
                     "Cholesky, QR, eigen- or singular value decomposition) to compute it with")

NOT_EXPORTED = {
    d.INV: (f"the standard ONNX operators include no matrix inverse (onnxruntime's Inverse is a "
            f"com.microsoft extension) and no LU factorization to compose one from; "
            f"{_ELSEWHERE}"),
    d.SOLVE: (f"the standard ONNX operators include no linear solve and no LU factorization to "
              f"compose one from; {_ELSEWHERE}"),
    d.SLOGDET: (f"the standard ONNX operators include only Det, whose value overflows or "
                f"underflows exactly where slogdet's does not, and no LU factorization whose "
                f"pivots' logarithms would give it; use det if its range is enough, or "
                f"{_ELSEWHERE}"),
    **{op: f"{_NO_FACTORIZATION}; {_ELSEWHERE}"
       for op in (d.CHOLESKY, d.QR, d.SVD, d.SINGULAR_VALUES, d.EIGH)},
}
