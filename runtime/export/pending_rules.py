"""The ops neither exporter writes yet, each with the reason; ``onnx_table`` and ``jax_table``
merge this table into their ``NOT_EXPORTED`` lists, so the registry walks stay complete while
rules are added."""

from __future__ import annotations

from runtime.ops import (image_transform_ops, io_ops, matrix_structure_ops, sampling_ops,
                         special_function_ops, special_math_ops, stateless_random_ops)
from runtime.ops.registry import OpDef

_LATER = ("no export rule is written for it yet (ONNX and JAX both have a direct counterpart); "
          "export the function without it or compute it outside the exported function.")
_RANDOM = ("its draws come from NumPy's generators, whose values neither ONNX nor JAX "
           "reproduce; draw the values outside and pass them to the exported function.")
_SPECIAL = ("no export rule is written for it yet (JAX computes it in jax.scipy.special; ONNX "
            "has no such operator, so it would be composed from others); export the function "
            "without it or compute it outside the exported function.")

PENDING: dict[OpDef, str] = {
    **{op: _LATER for op in (
        matrix_structure_ops.DIAG, matrix_structure_ops.DIAG_PART,
        matrix_structure_ops.SET_DIAG, matrix_structure_ops.BAND_PART)},
    **{op: _LATER for op in (special_math_ops.ASINH, special_math_ops.ACOSH,
                             special_math_ops.ATANH, special_math_ops.RINT)},
    **{op: _SPECIAL for op in (
        special_function_ops.LGAMMA, special_function_ops.DIGAMMA,
        special_function_ops.POLYGAMMA, special_function_ops.ERFC, special_function_ops.ERFINV,
        special_function_ops.NDTRI, special_function_ops.BESSEL_I0E,
        special_function_ops.BESSEL_I1E)},
    **{op: _RANDOM for op in (
        sampling_ops.SHUFFLE, sampling_ops.CATEGORICAL, sampling_ops.TRUNCATED_NORMAL,
        sampling_ops.GAMMA, sampling_ops.POISSON, stateless_random_ops.STATELESS_UNIFORM,
        stateless_random_ops.STATELESS_NORMAL, stateless_random_ops.STATELESS_TRUNCATED_NORMAL,
        stateless_random_ops.STATELESS_CATEGORICAL, stateless_random_ops.STATELESS_POISSON,
        stateless_random_ops.STATELESS_GAMMA)},
    io_ops.TIMESTAMP: ("it reads the clock when the graph runs, an effect that a pure exported "
                       "function cannot hold; read the time outside and pass it in."),
    image_transform_ops.TRANSFORM: (
        "no export rule is written for it yet (each output pixel is gathered from the input "
        "with its interpolation and fill mode); export the function without it, or transform "
        "the images outside the exported function."),
}
