"""``rt.linalg``: matrix products and decompositions."""

from runtime.ops.linalg_ops import matmul

__all__ = [name for name in dir() if not name.startswith("_")]
