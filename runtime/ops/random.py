"""``rt.random``: random tensors and the global seed."""

from runtime.ops.random_generator import Generator
from runtime.ops.random_ops import normal, set_seed, uniform
from runtime.ops.sampling_ops import categorical, gamma, poisson, shuffle, truncated_normal
from runtime.ops.stateless_random_ops import (fold_in, split, stateless_categorical,
                                              stateless_gamma, stateless_normal,
                                              stateless_poisson, stateless_truncated_normal,
                                              stateless_uniform)

__all__ = ["Generator", "categorical", "fold_in", "gamma", "normal", "poisson", "set_seed",
           "shuffle", "split", "stateless_categorical", "stateless_gamma", "stateless_normal",
           "stateless_poisson", "stateless_truncated_normal", "stateless_uniform",
           "truncated_normal", "uniform"]
