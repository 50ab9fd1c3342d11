"""``tf.nest``: flattening and mapping nested structures (lists, tuples, dicts, named tuples;
dicts by sorted key, as in TensorFlow)."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.nest,
        "assert_same_structure flatten is_nested map_structure pack_sequence_as=pack_like")

__getattr__ = _missing("tf.nest")
