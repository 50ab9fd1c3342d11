"""Iterating a dataset in Python: ``iter(ds)``, ``next(it)``, ``ds.as_numpy_iterator()``.

Elements are eager tensors even while a function is being traced (the iterator computes
them outside the trace; the traced code then sees constants). A dataset that holds symbolic
tensors has no values to iterate in Python: only a graph loop can.
"""

from __future__ import annotations

from typing import Any, Iterator as PyIterator

from runtime import tracing
from runtime.data import structure
from runtime.data.node import Node


class Iterator:
    """A Python iterator over a dataset's elements (TensorFlow's ``OwnedIterator``)."""

    def __init__(self, node: Node):
        if node.holds_symbolic():
            raise TypeError(
                "This dataset holds symbolic tensors (it was made inside a traced function from "
                "values of the trace), so Python cannot iterate over it. Iterate it in a "
                "for loop of a converted function (transpiler.function), which becomes a graph "
                "loop, or with rt.data.dataset_loop; or make the dataset outside the function.")
        self._node = node
        self._elements: PyIterator[Any] | None = None

    def __iter__(self) -> "Iterator":
        return self

    def __next__(self) -> Any:
        with tracing.eager_scope():
            if self._elements is None:  # started on first use, as a shuffle draws its order then
                self._elements = iter(self._node.iterate())
            return next(self._elements)

    def get_next(self) -> Any:
        return next(self)

    @property
    def element_spec(self) -> Any:
        return self._node.spec()


class NumpyIterator:
    """``as_numpy_iterator()``: the same elements as NumPy values (scalars as NumPy scalars,
    as in TensorFlow)."""

    def __init__(self, node: Node):
        self._tensors = Iterator(node)

    def __iter__(self) -> "NumpyIterator":
        return self

    def __next__(self) -> Any:
        return structure.map_leaves(_to_numpy, next(self._tensors))


def _to_numpy(tensor):
    value = tensor.numpy()
    return value[()] if value.ndim == 0 else value
