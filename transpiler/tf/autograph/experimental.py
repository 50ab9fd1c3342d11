"""``tf.autograph.experimental``: ``do_not_convert`` and ``set_loop_options``."""

from transpiler.api import do_not_convert, set_loop_options  # noqa: F401
from transpiler.tf._names import missing as _missing

__getattr__ = _missing("tf.autograph.experimental")
