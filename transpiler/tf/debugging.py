"""``tf.debugging``: checks that run in program order, eagerly and in graphs."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.debugging, "assert_equal assert_less check_numerics")

__getattr__ = _missing("tf.debugging")
