"""The ops neither exporter writes yet, each with the reason; ``onnx_table`` and ``jax_table``
merge this table into their ``NOT_EXPORTED`` lists, so the registry walks stay complete while
rules are added."""

from __future__ import annotations

from runtime.ops import matrix_structure_ops, sampling_ops, stateless_random_ops
from runtime.ops.registry import OpDef

_LATER = ("no export rule is written for it yet (ONNX and JAX both have a direct counterpart); "
          "export the function without it or compute it outside the exported function.")
_RANDOM = ("its draws come from NumPy's generators, whose values neither ONNX nor JAX "
           "reproduce; draw the values outside and pass them to the exported function.")

PENDING: dict[OpDef, str] = {
    **{op: _LATER for op in (
        matrix_structure_ops.DIAG, matrix_structure_ops.DIAG_PART,
        matrix_structure_ops.SET_DIAG, matrix_structure_ops.BAND_PART)},
    **{op: _RANDOM for op in (
        sampling_ops.SHUFFLE, sampling_ops.CATEGORICAL, sampling_ops.TRUNCATED_NORMAL,
        stateless_random_ops.STATELESS_UNIFORM, stateless_random_ops.STATELESS_NORMAL)},
}
