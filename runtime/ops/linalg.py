"""``rt.linalg``: matrix products and decompositions."""

from runtime.ops.decompositions_ops import (cholesky, det, eigh, inv, qr, slogdet, solve,
                                            svd)
from runtime.ops.einsum_ops import einsum, tensordot
from runtime.ops.linalg_composites import (eigvalsh, expm, logdet, lstsq, normalize, pinv,
                                           triangular_solve)
from runtime.ops.linalg_ops import cross, matmul, matrix_transpose, matvec
from runtime.ops.matrix_structure_ops import band_part, diag, diag_part, set_diag, trace
from runtime.ops.norm_ops import global_norm, norm

adjoint = matrix_transpose  # equal for the real dtypes these ops take

__all__ = [name for name in dir() if not name.startswith("_")]
