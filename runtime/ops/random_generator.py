"""``rt.random.Generator``: a seeded stream of random tensors whose state is a variable, so
a traced function that draws from it draws new values on every call, and the same seed
gives the same sequence of values eagerly and in graphs.

Each draw is a stateless draw keyed by (seed, counter) followed by an increment of the
counter (a variable write: an effect, kept in program order).
"""

from __future__ import annotations

from runtime import dtypes
from runtime.ops.array_ops import stack
from runtime.ops.stateless_random_ops import stateless_normal, stateless_uniform
from runtime.tensor import Tensor
from runtime.variables import Variable


class Generator:
    """A random stream with TensorFlow's ``Generator`` methods (``from_seed``, ``normal``,
    ``uniform``); the values are those of NumPy's Philox generator, not TensorFlow's."""

    def __init__(self, seed: int):
        self._seed = int(seed)
        self.state = Variable(0, dtype=dtypes.int64, trainable=False, name="generator_state")

    @classmethod
    def from_seed(cls, seed: int, alg=None) -> "Generator":
        """A generator whose draws are determined by ``seed`` (``alg`` is accepted and
        ignored: there is one algorithm)."""
        return cls(seed)

    def _next_seed(self) -> Tensor:
        counter = self.state.value()
        self.state.assign_add(1)
        return stack([counter * 0 + self._seed, counter])

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32) -> Tensor:
        """The next normally distributed values of the stream."""
        return stateless_normal(shape, self._next_seed(), mean, stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32) -> Tensor:
        """The next uniform values in ``[minval, maxval)`` of the stream."""
        return stateless_uniform(shape, self._next_seed(), minval, maxval, dtype)
