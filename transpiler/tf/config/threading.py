"""``tf.config.threading``: thread counts, accepted and remembered with no effect (NumPy's
BLAS picks its own threads)."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.config, """
    get_inter_op_parallelism_threads get_intra_op_parallelism_threads
    set_inter_op_parallelism_threads set_intra_op_parallelism_threads
""")

__getattr__ = _missing("tf.config.threading")
