"""``tf.random``: random tensors, the global seed and generators on the runtime."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.random, """
    Generator categorical fold_in gamma normal poisson set_seed shuffle split
    stateless_categorical stateless_gamma stateless_normal stateless_poisson
    stateless_truncated_normal stateless_uniform truncated_normal uniform
""")

__getattr__ = _missing("tf.random")
