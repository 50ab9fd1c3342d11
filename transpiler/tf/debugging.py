"""``tf.debugging``: checks that run in program order, eagerly and in graphs."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.debugging, """
    assert_equal assert_greater assert_greater_equal assert_less assert_less_equal
    assert_negative assert_non_negative assert_non_positive assert_positive assert_rank
    assert_rank_at_least assert_shapes check_numerics
""", kernel_errors=False)

__getattr__ = _missing("tf.debugging")
