"""``rt.random``: random tensors and the global seed."""

from runtime.ops.random_generator import Generator
from runtime.ops.random_ops import normal, set_seed, uniform
from runtime.ops.sampling_ops import categorical, shuffle, truncated_normal
from runtime.ops.stateless_random_ops import stateless_normal, stateless_uniform

__all__ = ["Generator", "categorical", "normal", "set_seed", "shuffle", "stateless_normal",
           "stateless_uniform", "truncated_normal", "uniform"]
