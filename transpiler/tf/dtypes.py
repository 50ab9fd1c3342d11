"""``tf.dtypes``: the dtypes (NumPy's, so ``tf.float32 == np.float32``), ``as_dtype``, ``cast``."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt, """
    DType as_dtype bool cast complex128 complex64 float16 float32 float64 int16 int32 int64
    int8 uint8 double=float64 half=float16
""")
_export(globals(), _rt.dtypes, "uint16 uint32 uint64")

__getattr__ = _missing("tf.dtypes")
