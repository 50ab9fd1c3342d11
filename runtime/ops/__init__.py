"""Op definitions, one module per family, all registered in ``runtime.ops.registry``."""
