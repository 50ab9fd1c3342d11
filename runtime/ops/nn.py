"""``rt.nn``: neural-network helpers."""

from runtime.ops.nn_ops import relu, softmax

__all__ = ["relu", "softmax"]
