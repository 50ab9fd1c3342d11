"""``tf.linalg``: matrix products, structure and decompositions on the runtime."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.linalg, """
    adjoint band_part cholesky cross det diag diag_part eigh eigvalsh einsum expm global_norm inv
    logdet lstsq matmul matrix_transpose matvec norm normalize pinv qr set_diag slogdet solve svd
    tensordot trace triangular_solve
""")
_export(globals(), _rt, "eye")
_export(globals(), _rt.nn, "l2_normalize")

__getattr__ = _missing("tf.linalg")
