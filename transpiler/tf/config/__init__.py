"""``tf.config``: running ``tf.function``s eagerly, for debugging; the devices (the CPU only:
no GPU is listed) and the thread settings, accepted with no effect."""

import runtime as _rt
from transpiler.tf._names import export as _export, missing as _missing
from transpiler.tf.config import experimental, threading  # noqa: F401

_export(globals(), _rt.config, """
    functions_run_eagerly run_functions_eagerly
    experimental_functions_run_eagerly=functions_run_eagerly
    experimental_run_functions_eagerly=run_functions_eagerly
    LogicalDevice PhysicalDevice get_visible_devices list_logical_devices list_physical_devices
    set_visible_devices
""")

__getattr__ = _missing("tf.config")
