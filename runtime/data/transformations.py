"""Element-wise and counting transformations: ``map``, ``filter``, ``take``, ``skip``,
``repeat``, ``enumerate``, and the no-ops ``prefetch`` and ``cache``.

In a graph loop, a transformation before the first ``filter`` rewrites ``element_at`` (and
the length); after it, it becomes a ``Stage`` (see ``runtime.data.plan``).
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator

import numpy as np

from runtime import dtypes, tracing
from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.plan import (Plan, Stage, cannot_stage, derived, index, is_static,
                               length_min, length_minus, length_times, replace_state, when,
                               wrap)
from runtime.graph import Graph
from runtime.ops.array_ops import where
from runtime.ops.array_ops import range as range_op
from runtime.tensor import EagerTensor, Tensor, TensorSpec, format_shape

# Stands for "forever" where a length must be a tensor; small enough that batch arithmetic
# on it cannot overflow int64.
_FOREVER = 2 ** 62


def traced_spec(fn: Callable, spec) -> Any:
    """The structure of ``fn``'s result, traced on placeholders of ``spec`` in a scratch
    graph (as TensorFlow finds it: without computing any element). Inside a trace the scratch
    graph is a child of the traced one, so ``fn`` may use the traced function's tensors."""
    outer = tracing.current_graph() if tracing.is_tracing() else None
    graph = Graph("dataset_function" if outer is None else f"{outer.name}/dataset_function",
                  parent=outer)
    placeholders = [graph.add_placeholder(s.dtype, s.shape, f"component_{i}")
                    for i, s in enumerate(structure.flatten(spec))]
    with tracing.building(graph):
        result = structure.to_tensors(
            structure.call_with_element(fn, structure.pack_like(spec, placeholders)))
    return structure.spec_of(result)


def count_arg(method: str, count) -> int:
    """A count as a Python int; tensors must be concrete (the dataset's length is fixed when
    it is made)."""
    if isinstance(count, EagerTensor):
        count = count.numpy()
    if isinstance(count, np.ndarray) and count.ndim == 0:
        count = count.item()
    if isinstance(count, (int, np.integer)) and not isinstance(count, bool):
        return int(count)
    if isinstance(count, Tensor):
        raise TypeError(f"Dataset.{method}: the count is a symbolic tensor; a dataset's counts "
                        f"must be known when it is made. Pass a Python int (or build the "
                        f"dataset outside the traced function).")
    raise TypeError(f"Dataset.{method}: the count must be an int, got {count!r}.")


class Map(Node):
    label = "map"

    def __init__(self, parent: Node, fn: Callable):
        self.inputs, self.fn = (parent,), fn

    def apply(self, element):
        return structure.to_tensors(structure.call_with_element(self.fn, element))

    def iterate(self) -> Iterator[Any]:
        for element in self.inputs[0].iterate():
            yield self.apply(element)

    def spec(self):
        return traced_spec(self.fn, self.inputs[0].spec())

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()
        if parent.indexed:
            return derived(parent, element_at=lambda i: self.apply(parent.element_at(i)),
                           slice_at=None)
        stage = Stage(lambda element, states, user, rest, k: rest(self.apply(element), states))
        return derived(parent, stages=parent.stages + (stage,))


def predicate_truth(value, concrete: bool):
    """The predicate's result as a Python bool (eagerly) or a bool scalar tensor; any other
    type is refused, as in TensorFlow (a number is not silently compared with 0)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor) and value.dtype == dtypes.bool_ and value.shape in ((), None):
        return bool(value.numpy()) if concrete else value
    described = (f"a {value.dtype.name} tensor of shape {format_shape(value.shape)}"
                 if isinstance(value, Tensor) else f"{type(value).__name__} {value!r}")
    raise ValueError(f"Dataset.filter: the predicate must return a scalar bool tensor, got "
                    f"{described}. Compare explicitly, e.g. `x > 0`, or reduce with "
                    f"rt.reduce_all.")


class Filter(Node):
    label = "filter"

    def __init__(self, parent: Node, predicate: Callable):
        self.inputs, self.predicate = (parent,), predicate

    def keeps(self, element, concrete: bool):
        return predicate_truth(structure.call_with_element(self.predicate, element), concrete)

    def iterate(self) -> Iterator[Any]:
        for element in self.inputs[0].iterate():
            if self.keeps(element, concrete=True):
                yield element

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        return card if card == 0 else UNKNOWN_CARDINALITY

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()

        def run(element, states, user, rest, k):
            return when(self.keeps(element, concrete=False), lambda: rest(element, states),
                        lambda: (states, user))

        return derived(parent, stages=parent.stages + (Stage(run),))


class Take(Node):
    label = "take"

    def __init__(self, parent: Node, count):
        self.inputs, self.count = (parent,), count_arg("take", count)

    def iterate(self) -> Iterator[Any]:
        elements = self.inputs[0].iterate()
        return elements if self.count < 0 else itertools.islice(elements, self.count)

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if card == UNKNOWN_CARDINALITY:
            return card
        if card == INFINITE_CARDINALITY:
            return self.count
        return card if self.count < 0 else min(card, self.count)

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()
        if self.count < 0:
            return parent
        if parent.indexed:
            return derived(parent, length=length_min(parent.length, self.count), unbounded=False)
        count = self.count

        def run(element, states, user, rest, k):
            (taken,) = states[k]
            return when(taken < count,
                        lambda: rest(element, replace_state(states, k, (taken + 1,))),
                        lambda: (states, user))

        stage = Stage(run, (index(0),), more=lambda own: own[0] < count)
        return derived(parent, stages=parent.stages + (stage,))


class Skip(Node):
    label = "skip"

    def __init__(self, parent: Node, count):
        self.inputs, self.count = (parent,), count_arg("skip", count)

    def iterate(self) -> Iterator[Any]:
        elements = self.inputs[0].iterate()
        if self.count < 0:
            for _ in elements:  # skip(-1) skips everything, reading the input to its end
                pass
            return iter(())
        return itertools.islice(elements, self.count, None)

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if card in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return card
        return 0 if self.count < 0 else max(card - self.count, 0)

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()
        count = self.count if self.count >= 0 else _FOREVER
        if parent.indexed:
            if parent.unbounded and self.count < 0:
                raise cannot_stage("skip(-1) of an unbounded dataset never ends",
                                   "Take a finite part of it first.")
            length = 0 if self.count < 0 else length_minus(parent.length, count)
            slice_at = None if parent.slice_at is None else (
                lambda start, stop: parent.slice_at(start + count, stop + count))
            return derived(parent, length=length,
                           element_at=lambda i: parent.element_at(i + count), slice_at=slice_at)

        def run(element, states, user, rest, k):
            (seen,) = states[k]
            return when(seen < count, lambda: (replace_state(states, k, (seen + 1,)), user),
                        lambda: rest(element, states))

        return derived(parent, stages=parent.stages + (Stage(run, (index(0),)),))


class Repeat(Node):
    label = "repeat"

    def __init__(self, parent: Node, count):
        self.inputs = (parent,)
        self.count = -1 if count is None else count_arg("repeat", count)

    def iterate(self) -> Iterator[Any]:
        epoch = 0
        while self.count < 0 or epoch < self.count:
            produced = False
            for element in self.inputs[0].iterate():
                produced = True
                yield element
            if not produced and self.count < 0:
                return  # repeating an empty dataset forever gives nothing, and ends
            epoch += 1

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if self.count < 0:
            return 0 if card == 0 else INFINITE_CARDINALITY
        if self.count == 0:
            return 0
        if card in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return card
        return card * self.count

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()
        if self.count == 0:
            return Plan(0, parent.element_at, parent.stages)
        if self.count == 1 or parent.unbounded:
            return parent
        if parent.reshuffles:
            raise cannot_stage(
                "it repeats a shuffle that draws a new order each repetition",
                "Shuffle after repeat (ds.repeat(n).shuffle(...)), or pass "
                "reshuffle_each_iteration=False, or run the epochs as an outer Python loop.")
        if any(stage.initial for stage in parent.stages):
            raise cannot_stage(
                "it repeats a take, skip or enumerate that follows a filter (their counters "
                "would have to restart each repetition)",
                "Move repeat before the filter, or iterate the repetitions in an outer loop.")
        n = parent.length
        if self.count > 0:
            length = length_times(n, self.count)
        elif is_static(n):
            length = None if n > 0 else 0
        else:
            length = where(index(n) > 0, index(_FOREVER), index(0))
        return Plan(length, lambda i: parent.element_at(wrap(i, n)), parent.stages,
                    unbounded=self.count < 0)


class Enumerate(Node):
    label = "enumerate"

    def __init__(self, parent: Node, start):
        self.inputs, self.start = (parent,), count_arg("enumerate", start)

    def iterate(self) -> Iterator[Any]:
        for k, element in enumerate(self.inputs[0].iterate(), self.start):
            yield (EagerTensor(np.asarray(k, dtype=np.int64)), element)

    def spec(self):
        return (TensorSpec((), dtypes.int64), self.inputs[0].spec())

    def plan(self) -> Plan:
        parent, start = self.inputs[0].plan(), self.start
        if parent.indexed:
            slice_at = None if parent.slice_at is None else (
                lambda a, b: (range_op(a, b, dtype=dtypes.int64) + start, parent.slice_at(a, b)))
            return derived(parent, element_at=lambda i: (i + start, parent.element_at(i)),
                           slice_at=slice_at)

        def run(element, states, user, rest, k):
            (counter,) = states[k]
            return rest((counter + start, element), replace_state(states, k, (counter + 1,)))

        return derived(parent, stages=parent.stages + (Stage(run, (index(0),)),))


class Passthrough(Node):
    """``prefetch``, ``cache`` and other performance hints: the same elements."""

    def __init__(self, parent: Node, label: str):
        self.inputs, self.label = (parent,), label

    def iterate(self) -> Iterator[Any]:
        return self.inputs[0].iterate()

    def plan(self) -> Plan:
        return self.inputs[0].plan()
