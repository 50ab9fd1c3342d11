"""``tf.config.experimental``: the device listings under their older names, and memory growth
(a GPU setting, refused for the CPU as TensorFlow refuses it)."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing

_export(globals(), _rt.config, """
    get_visible_devices list_logical_devices list_physical_devices set_memory_growth
    set_visible_devices
""")

__getattr__ = _missing("tf.config.experimental")
