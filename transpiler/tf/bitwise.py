"""``tf.bitwise``: and, or, xor, invert and shifts of integers on the runtime."""

from runtime.ops import bitwise_ops as _bitwise_ops
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _bitwise_ops, "bitwise_and bitwise_or bitwise_xor invert left_shift right_shift")

__getattr__ = _missing("tf.bitwise")
