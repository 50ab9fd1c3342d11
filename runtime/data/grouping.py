"""``group_by_window`` and ``bucket_by_sequence_length``: elements gathered by a key into
windows, each window turned into a dataset by the user's function.

An element goes to the window of its key (``key_func``, a scalar integer). A window that holds
``window_size`` elements (``window_size_func(key)`` when the size depends on the key) is given
at once to ``reduce_func(key, window)``, whose dataset's elements follow; when the input ends,
the windows not yet full are given in the order of their keys, smallest first, as TensorFlow
does. ``bucket_by_sequence_length`` keys each element by the bucket its length falls in and
pads each bucket's windows into batches.

Like ``window``, this has no graph form: a window is a dataset, which a graph loop cannot carry.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import numpy as np

from runtime import dtypes
from runtime.data import structure
from runtime.data.node import UNKNOWN_CARDINALITY, Node
from runtime.data.plan import Plan, cannot_stage
from runtime.data.transformations import traced_call
from runtime.data.windowing import DatasetSpec, Elements
from runtime.errors import InvalidArgumentError
from runtime.tensor import TensorSpec


class GroupByWindow(Node):
    label = "group_by_window"

    def __init__(self, parent: Node, key_func: Callable, reduce_func: Callable,
                 window_size_func: Callable[[int], int], wrap: Callable[[Node], Any],
                 node_of: Callable[[Any], Node]):
        self.inputs = (parent,)
        self.key_func, self.reduce_func = key_func, reduce_func
        self.window_size_func, self.wrap, self.node_of = window_size_func, wrap, node_of

    def iterate(self) -> Iterator[Any]:
        windows: dict[int, list] = {}
        for element in self.inputs[0].iterate():
            key = self._key(element)
            window = windows.setdefault(key, [])
            window.append(element)
            if len(window) >= self._size(key):
                yield from self._reduced(key, windows.pop(key))
        for key in sorted(windows):
            yield from self._reduced(key, windows[key])

    def _key(self, element) -> int:
        key = np.asarray(structure.call_with_element(self.key_func, element))
        if key.shape != () or key.dtype.kind not in "iu":
            raise InvalidArgumentError(
                f"Dataset.group_by_window: key_func must return a scalar integer tensor, got "
                f"one of dtype {key.dtype.name} and shape {key.shape}.")
        return int(key)

    def _size(self, key: int) -> int:
        size = int(np.asarray(self.window_size_func(np.int64(key))))
        if size <= 0:
            raise InvalidArgumentError(f"Dataset.group_by_window: the window size of key {key} "
                                       f"must be positive, got {size}.")
        return size

    def _reduced(self, key: int, elements: list) -> Iterator[Any]:
        window = self.wrap(Elements(elements, self.inputs[0].spec()))
        made = self.reduce_func(np.int64(key), window)
        try:
            node = self.node_of(made)
        except TypeError:
            raise TypeError(f"Dataset.group_by_window: reduce_func must return a dataset, got "
                            f"{type(made).__name__}.") from None
        yield from node.iterate()

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def spec(self):
        """The spec of the dataset ``reduce_func`` makes from placeholders."""
        key_and_window = (TensorSpec((), dtypes.int64), DatasetSpec(self.inputs[0].spec(), self.wrap))
        return traced_call(self.reduce_func, key_and_window,
                           lambda made: self.node_of(made).spec())

    def plan(self) -> Plan:
        raise cannot_stage("group_by_window gives windows that are datasets, which a graph "
                           "loop cannot carry", "Iterate over it in Python, outside the traced "
                           "function.")


def bucket_key(boundaries: list[int]) -> Callable[[int], int]:
    """The bucket of a length: the number of boundaries at or below it (buckets are
    ``[0, b0)``, ``[b0, b1)``, ..., ``[b_last, inf)``)."""
    return lambda length: int(np.searchsorted(np.asarray(boundaries), length, side="right"))
