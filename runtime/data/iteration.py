"""Iterating a dataset in Python: ``iter(ds)``, ``next(it)``, ``ds.as_numpy_iterator()``.

An iterator made inside a function being traced gives eager tensors (it computes them
outside the trace, and the traced code sees constants: each call makes the iterator anew). An
iterator made outside and advanced with ``next()`` inside a traced function is state, as in
TensorFlow: its position becomes an int64 variable, and each call of the graph reads the
element at that position and advances it (past the end, ``OutOfRangeError``); a converted
``for`` loop over it is a graph loop from that position, which it leaves where the loop
stopped; eager ``next()`` continues from the same position. A dataset that holds symbolic tensors has no values to
iterate in Python: only a graph loop can.
"""

from __future__ import annotations

from typing import Any, Iterator as PyIterator

import numpy as np

from runtime import tracing
from runtime.data import structure
from runtime.data.graph_loop import StagedDataset
from runtime.data.node import Node
from runtime.errors import OutOfRangeError
from runtime.ops.io_ops import assert_
from runtime.variables import Variable


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
        self._made_in_trace = tracing.is_tracing()
        self._graph = tracing.current_graph()  # where it was made (None: eagerly)
        self._consumed = 0  # elements given eagerly so far
        self._position = None  # the position variable, once next() ran in a graph

    def __iter__(self) -> "Iterator":
        if self.stages_in_trace():
            raise NotImplementedError(
                "a Python for loop over an iterator whose position is state of the function "
                "being traced (made outside it, or advanced by next() in a graph loop) cannot "
                "run while tracing: convert the function (transpiler.function), whose for loop "
                "over it is a graph loop, or call next() on the iterator.")
        return self

    def __next__(self) -> Any:
        if tracing.is_tracing() and (not self._made_in_trace or self._position is not None
                                     or tracing.current_graph() is not self._graph):
            # Made outside, or advanced in a loop body or branch: a constant would be the
            # same element on every step, so the position is state of the graph.
            return self._next_in_graph()
        if self._position is not None:
            return self._next_at_position()
        with tracing.eager_scope():
            if self._elements is None:  # started on first use, as a shuffle draws its order then
                self._elements = iter(self._node.iterate())
            element = next(self._elements)
        self._consumed += 1
        return element

    def _indexed_plan(self, use: str = "next()"):
        plan = self._node.plan()
        if plan.stages:
            raise NotImplementedError(
                f"{use} inside a traced function on an iterator whose position is state of the "
                f"graph needs a dataset whose n-th element is computed directly; this one "
                f"filters, takes or skips after a filter. Loop over the dataset inside the "
                f"function instead.")
        return plan

    def stages_in_trace(self) -> bool:
        """Whether a loop over this iterator in the function being traced is a graph loop (its
        position is state of the graph: made outside, or advanced in the graph before)."""
        return tracing.is_tracing() and (not self._made_in_trace or self._position is not None)

    def staged(self) -> StagedDataset:
        """A graph loop over the rest of the elements, from the iterator's position, which the
        loop leaves where it stopped (after the element a ``break`` left on), as TensorFlow's
        for loop over an iterator does."""
        plan = self._indexed_plan("a for loop")
        position = self._position_variable()
        return StagedDataset(plan, start=position.value(), finish=position.assign)

    def _position_variable(self) -> Variable:
        if self._position is None:
            with tracing.eager_scope():
                self._position = Variable(np.int64(self._consumed), trainable=False,
                                          name="iterator_position")
            if self._made_in_trace:  # each call starts where the eager steps of the trace end
                with tracing.building(self._graph):
                    self._position.assign(np.int64(self._consumed))
        return self._position

    def _next_in_graph(self) -> Any:
        plan = self._indexed_plan()
        position = self._position_variable()
        i = position.value()
        if plan.length is not None:
            assert_(i < plan.length, "End of sequence", error="out_of_range")
        element = plan.element_at(i)
        position.assign_add(np.int64(1))
        return element

    def _next_at_position(self) -> Any:
        plan = self._indexed_plan()
        with tracing.eager_scope():
            i = int(self._position.numpy())
            if plan.length is not None and i >= int(plan.length):
                raise StopIteration
            element = plan.element_at(np.int64(i))
            self._position.assign(np.int64(i + 1))
        return element

    def get_next(self) -> Any:
        """The next element; past the end ``OutOfRangeError``, as TensorFlow raises it (the
        ``while True: try: it.get_next() except tf.errors.OutOfRangeError`` loop)."""
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence: the iterator has no more elements.") from None

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
    return tensor.numpy()
