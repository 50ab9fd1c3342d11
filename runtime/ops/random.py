"""``rt.random``: random tensors and the global seed."""

from runtime.ops.random_ops import normal, set_seed, uniform

__all__ = ["normal", "set_seed", "uniform"]
