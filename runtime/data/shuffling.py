"""``shuffle(buffer_size, seed, reshuffle_each_iteration)``: TensorFlow's buffer semantics.

A buffer holds the next ``buffer_size`` elements; each step emits one drawn uniformly from
it and puts the next input element in its place (at the end, the last one). A buffer as
large as the dataset gives a uniform permutation; a buffer of 1 keeps the order.

Orders are reproducible, not TensorFlow's (its random streams are not exposed): draw ``k`` of
an iteration is a stateless draw keyed by the iteration's seed pair and ``k``, so an eager
iteration and a graph loop given the same pair emit the same order. The pair's first half
comes from ``seed`` (or, without one, from the global generator when the dataset is made)
and ``rt.random.set_seed``; its second half is 0 with ``reshuffle_each_iteration=False``, and
otherwise a fresh draw for each iteration, from this dataset's own generator seeded by the
first half: two datasets made alike give the same orders, iteration by iteration, as in
TensorFlow.
"""

from __future__ import annotations

import itertools
import weakref
from typing import Any, Iterator

import numpy as np

from runtime import dtypes, tracing
from runtime.control_flow import while_loop
from runtime.data.node import Node
from runtime.data.plan import Plan, cannot_stage, derived, index, length_min
from runtime.data.transformations import count_arg
from runtime.ops import random_ops
from runtime.ops.array_ops import constant, gather, reshape, stack, where
from runtime.ops.array_ops import range as range_op
from runtime.ops.scatter_ops import tensor_scatter_nd_update
from runtime.ops.stateless_random_ops import generator_for_seed, stateless_uniform, uniform_values
from runtime.tensor_array import TensorArray

_SEED_RANGE = 2 ** 62
_streams = itertools.count()


class Shuffle(Node):
    label = "shuffle"

    def __init__(self, parent: Node, buffer_size, seed, reshuffle_each_iteration: bool):
        self.inputs = (parent,)
        self.buffer_size = count_arg("shuffle", buffer_size)
        if self.buffer_size <= 0:
            raise ValueError(f"Dataset.shuffle: buffer_size must be positive, got "
                             f"{self.buffer_size}.")
        self.reshuffle = bool(reshuffle_each_iteration)
        if seed is None:
            with tracing.eager_scope():
                self.key = int(random_ops._generator_for(None).integers(_SEED_RANGE))
        else:
            global_seed = random_ops._global_seed or 0
            self.key = int(np.random.default_rng([count_arg("shuffle", seed) & (2 ** 63 - 1),
                                                  global_seed & (2 ** 63 - 1)])
                           .integers(_SEED_RANGE))
        # This dataset's stream of second halves (random_ops keeps its generator meanwhile).
        self.stream = (self.key, next(_streams))
        weakref.finalize(self, random_ops.forget_stream, self.stream)

    def _second_half(self):
        """The second half of this iteration's seed pair (an int64 scalar tensor: drawn by
        an effect op when staged, so every run of a graph reshuffles)."""
        if not self.reshuffle:
            return index(0)
        return random_ops.uniform((), np.int64(0), np.int64(_SEED_RANGE), dtype=dtypes.int64,
                                  seed=self.stream)

    def iterate(self) -> Iterator[Any]:
        with tracing.eager_scope():
            second = int(self._second_half().numpy())
        elements = self.inputs[0].iterate()
        buffer = []
        for element in elements:
            buffer.append(element)
            if len(buffer) == self.buffer_size:
                break
        k = 0
        while buffer:
            j = _draw(self.key, second, k, len(buffer))
            k += 1
            out = buffer[j]
            following = next(elements, None)
            if following is not None:
                buffer[j] = following
            else:
                buffer[j] = buffer[-1]
                buffer.pop()
            yield out

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()
        if not parent.indexed or parent.unbounded:
            raise cannot_stage(
                "shuffle needs the number of elements before it (it is unbounded, or follows "
                "a filter)", "Shuffle before filter and repeat(), or iterate in Python.")
        order = _permutation(parent.length, self.buffer_size, self.key, self._second_half())
        return derived(parent, element_at=lambda i: parent.element_at(gather(order, i)),
                       slice_at=None, reshuffles=self.reshuffle or parent.reshuffles)


def _draw(first: int, second: int, k: int, size: int) -> int:
    """Draw ``k``: uniform in ``[0, size)``, as ``stateless_uniform`` computes it."""
    seed = np.array([first, second + k], dtype=np.int64)
    return int(uniform_values(generator_for_seed(seed), np.int64(0), np.int64(size), (),
                              np.dtype(np.int64)))


def _permutation(n, buffer_size: int, first: int, second):
    """The order in which the buffer emits indices ``0..n-1``: the eager algorithm above, run
    on indices by a graph loop before the dataset's loop."""
    n = index(n)
    filled = length_min(index(buffer_size), n)
    order = TensorArray(dtypes.int64, size=n, element_shape=())
    first_t = constant(np.int64(first))

    def body(k, buffer, size, following, order):
        seed = stack([first_t, second + k])
        j = stateless_uniform((), seed, 0, size, dtype=dtypes.int64)
        order = order.write(k, gather(buffer, j))
        at = reshape(j, (1, 1))
        more = following < n  # else the buffer's last element fills the hole, and it shrinks
        replacement = where(more, following, gather(buffer, size - 1))
        buffer = tensor_scatter_nd_update(buffer, at, reshape(replacement, (1,)))
        return (k + 1, buffer, where(more, size, size - 1), where(more, following + 1, following),
                order)

    start = (index(0), range_op(0, filled, dtype=dtypes.int64), filled, filled, order)
    *_, order = while_loop(lambda k, *rest: k < n, body, start)
    return order.stack()
