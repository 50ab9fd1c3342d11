"""``tf.config``: running ``tf.function``s eagerly, for debugging."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.config, """
    functions_run_eagerly run_functions_eagerly
    experimental_functions_run_eagerly=functions_run_eagerly
    experimental_run_functions_eagerly=run_functions_eagerly
""")

__getattr__ = _missing("tf.config")
