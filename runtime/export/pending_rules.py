"""The linear-algebra, convolution, pooling and sampling ops that neither exporter writes
yet, each with the reason; ``onnx_table`` and ``jax_table`` merge this table
into their ``NOT_EXPORTED`` lists, so the registry walks stay complete while rules are added."""

from __future__ import annotations

from runtime.ops import (conv_ops, decompositions_ops, einsum_ops, matrix_structure_ops,
                         pool_ops, sampling_ops, stateless_random_ops)
from runtime.ops.registry import OpDef

_LATER = ("no export rule is written for it yet (ONNX and JAX both have a direct counterpart); "
          "export the function without it or compute it outside the exported function.")
_RANDOM = ("its draws come from NumPy's generators, whose values neither ONNX nor JAX "
           "reproduce; draw the values outside and pass them to the exported function.")

PENDING: dict[OpDef, str] = {
    **{op: _LATER for op in (
        decompositions_ops.INV, decompositions_ops.DET, decompositions_ops.SLOGDET,
        decompositions_ops.SOLVE, decompositions_ops.CHOLESKY, decompositions_ops.QR,
        decompositions_ops.SVD, decompositions_ops.SINGULAR_VALUES, decompositions_ops.EIGH,
        einsum_ops.EINSUM, matrix_structure_ops.DIAG, matrix_structure_ops.DIAG_PART,
        matrix_structure_ops.BAND_PART, conv_ops.CONV2D, conv_ops.CONV2D_BACKPROP_INPUT,
        conv_ops.CONV2D_BACKPROP_FILTER, pool_ops.MAX_POOL, pool_ops.AVG_POOL,
        pool_ops.MAX_POOL_GRAD, pool_ops.AVG_POOL_GRAD)},
    **{op: _RANDOM for op in (
        sampling_ops.SHUFFLE, sampling_ops.CATEGORICAL, sampling_ops.TRUNCATED_NORMAL,
        stateless_random_ops.STATELESS_UNIFORM, stateless_random_ops.STATELESS_NORMAL)},
}
