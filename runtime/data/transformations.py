"""Element-wise and counting transformations: ``map``, ``filter``, ``take``, ``skip``,
``repeat``, ``enumerate``, ``scan``, and the no-ops ``prefetch``, ``cache`` and
``with_options``.

In a graph loop, a transformation before the first ``filter`` rewrites ``element_at`` (and
the length); after it, it becomes a ``Stage`` (see ``runtime.data.plan``).
"""

from __future__ import annotations

import contextvars
import itertools
from typing import Any, Callable, Iterator

import numpy as np

from runtime import dtypes, tracing
from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node, is_symbolic_leaf
from runtime.data.plan import (Plan, Stage, cannot_stage, derived, index, is_static,
                               length_min, length_minus, length_times, replace_state, when,
                               wrap)
from runtime.graph import Graph
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.array_ops import where
from runtime.ops.array_ops import range as range_op
from runtime.tensor import EagerTensor, Tensor, TensorSpec, format_shape

# Stands for "forever" where a length must be a tensor; small enough that batch arithmetic
# on it cannot overflow int64.
_FOREVER = 2 ** 62


def traced_call(fn: Callable, spec, describe: Callable[[Any], Any]) -> Any:
    """``describe(fn(element))`` for an element of placeholders of ``spec``, traced in a scratch
    graph (as TensorFlow finds a function's result: without computing any element). Inside a
    trace the scratch graph is a child of the traced one, so ``fn`` may use the traced
    function's tensors. ``describe`` runs in the scratch graph too (it may trace more)."""
    outer = tracing.current_graph() if tracing.is_tracing() else None
    graph = Graph("dataset_function" if outer is None else f"{outer.name}/dataset_function",
                  parent=outer)
    token = _spec_only.set(True)
    try:
        with tracing.building(graph):
            return describe(structure.call_with_element(fn, placeholder_element(graph, spec)))
    finally:
        _spec_only.reset(token)


def placeholder_element(graph: Graph, spec) -> Any:
    """An element of ``spec`` made of ``graph``'s placeholders; a ``DatasetSpec`` leaf (the
    elements of ``window``) becomes a dataset of placeholders."""
    leaves = []
    for k, leaf in enumerate(structure.flatten(spec)):
        if hasattr(leaf, "placeholder"):
            leaves.append(leaf.placeholder(graph, f"component_{k}"))
        else:
            leaves.append(graph.add_placeholder(leaf.dtype, leaf.shape, f"component_{k}"))
    return structure.pack_like(spec, leaves)


def traced_spec(fn: Callable, spec) -> Any:
    """The structure of ``fn``'s result (a spec of ``TensorSpec``s), without computing it."""
    return traced_call(fn, spec, lambda result: structure.spec_of(structure.to_tensors(result)))


# Methods whose count does not change the element spec: ``fn`` in ``flat_map(lambda x:
# D.from_tensors(x).repeat(x))`` may use the element as one, traced on a placeholder.
_SPEC_NEUTRAL = frozenset({"take", "skip", "repeat"})
_spec_only = contextvars.ContextVar("spec_only", default=False)


def count_arg(method: str, count) -> int:
    """A count as a Python int; tensors must be concrete (the dataset's length is fixed when
    it is made), but for a dataset made while ``traced_call`` finds a spec."""
    if isinstance(count, EagerTensor):
        count = count.numpy()
    if isinstance(count, np.ndarray) and count.ndim == 0:
        count = count.item()
    if isinstance(count, (int, np.integer)) and not isinstance(count, bool):
        return int(count)
    if isinstance(count, Tensor) and _spec_only.get() and method in _SPEC_NEUTRAL:
        return 1  # a stand-in: this node is made only to read its element spec
    if isinstance(count, Tensor):
        raise TypeError(f"Dataset.{method}: the count is a symbolic tensor; a dataset's counts "
                        f"must be known when it is made. Pass a Python int (or build the "
                        f"dataset outside the traced function).")
    raise TypeError(f"Dataset.{method}: the count must be an int, got {count!r}.")


class Map(Node):
    label = "map"

    def __init__(self, parent: Node, fn: Callable, parallel: bool = False):
        """``parallel``: made with ``num_parallel_calls`` (TensorFlow names it so; elements
        are computed in order all the same)."""
        self.inputs, self.fn, self.parallel = (parent,), fn, parallel

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


def predicate_truth(value, concrete: bool, method: str = "filter"):
    """The predicate's result as a Python bool (eagerly) or a bool scalar tensor; any other
    type is refused, as in TensorFlow (a number is not silently compared with 0)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, Tensor) and value.dtype == dtypes.bool_ and value.shape in ((), None):
        return bool(value.numpy()) if concrete else value
    described = (f"a {value.dtype.name} tensor of shape {format_shape(value.shape)}"
                 if isinstance(value, Tensor) else f"{type(value).__name__} {value!r}")
    raise ValueError(f"Dataset.{method}: the predicate must return a scalar bool tensor, got "
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
                "it repeats a take, skip, enumerate, shard, take_while or scan that follows a "
                "filter, or a scan (their counters or state would have to restart each "
                "repetition)",
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


class Scan(Node):
    """``scan(initial_state, scan_func)``: ``state, output = scan_func(state, element)`` for each
    element in turn; the outputs are the elements. The state keeps its structure and dtypes.

    In a graph loop the state is carried by the loop (a stage's own values), so a scan is
    staged wherever it stands."""

    label = "scan"

    def __init__(self, parent: Node, initial_state, fn: Callable):
        self.inputs, self.fn = (parent,), fn
        self.initial = structure.map_leaves(convert_to_tensor, initial_state)

    def step(self, state, element) -> tuple:
        """``(new_state, output)``, both as tensors, the state checked against the old one."""
        result = structure.to_tensors(self.fn(state, element))
        if not (type(result) is tuple and len(result) == 2):
            raise TypeError(f"Dataset.scan: scan_func must return a pair (new_state, "
                            f"output_element), got {structure.describe(result)}. Return "
                            f"`state, element`.")
        return structure.checked_state("scan", "scan_func", state, result[0]), result[1]

    def iterate(self) -> Iterator[Any]:
        state = self.initial
        for element in self.inputs[0].iterate():
            state, output = self.step(state, element)
            yield output

    def spec(self):
        state_spec = structure.spec_of(self.initial)
        return traced_call(self.step, (state_spec, self.inputs[0].spec()),
                           lambda result: structure.spec_of(result[1]))

    def holds_symbolic(self) -> bool:
        return super().holds_symbolic() or any(
            is_symbolic_leaf(leaf) for leaf in structure.flatten(self.initial))

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()

        def run(element, states, user, rest, k):
            state, output = self.step(structure.pack_like(self.initial, states[k]), element)
            return rest(output, replace_state(states, k, tuple(structure.flatten(state))))

        stage = Stage(run, tuple(structure.flatten(self.initial)))
        return derived(parent, stages=parent.stages + (stage,))


class Passthrough(Node):
    """``prefetch``, ``cache`` and other performance hints: the same elements."""

    def __init__(self, parent: Node, label: str):
        self.inputs, self.label = (parent,), label

    def iterate(self) -> Iterator[Any]:
        return self.inputs[0].iterate()

    def plan(self) -> Plan:
        return self.inputs[0].plan()
