"""Datasets made of other datasets: ``zip``, ``concatenate``, ``flat_map``, ``interleave``
and ``choose_from_datasets``."""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator

from runtime import dtypes
from runtime.control_flow import cond
from runtime.data import structure
from runtime.data.node import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.plan import Plan, cannot_stage, index, is_static, length_min, length_sum
from runtime.data.transformations import count_arg, traced_call
from runtime.errors import InvalidArgumentError
from runtime.tensor import TensorSpec, join_shapes


class Zip(Node):
    """Elements of several datasets side by side, in the structure they were given in; ends
    with the shortest."""

    label = "zip"

    def __init__(self, layout, nodes: list[Node]):
        self.layout, self.inputs = layout, tuple(nodes)

    def iterate(self) -> Iterator[Any]:
        for elements in zip(*(node.iterate() for node in self.inputs)):
            yield structure.pack_like(self.layout, elements)

    def cardinality(self) -> int:
        result = INFINITE_CARDINALITY
        for node in self.inputs:
            card = node.cardinality()
            if card == UNKNOWN_CARDINALITY:
                return card
            if card != INFINITE_CARDINALITY and (result == INFINITE_CARDINALITY or card < result):
                result = card
        return result

    def spec(self):
        return structure.pack_like(self.layout, [node.spec() for node in self.inputs])

    def plan(self) -> Plan:
        plans = [node.plan() for node in self.inputs]
        if not all(plan.indexed for plan in plans):
            raise cannot_stage("it zips a filtered dataset (its elements' positions are not "
                               "known in advance)", "Zip first and filter the pairs.")
        length = None
        for plan in plans:
            length = length_min(length, plan.length)

        def element_at(i):
            return structure.pack_like(self.layout, [plan.element_at(i) for plan in plans])

        slice_at = None
        if all(plan.slice_at is not None for plan in plans):
            def slice_at(start, stop):
                return structure.pack_like(self.layout, [p.slice_at(start, stop) for p in plans])
        return Plan(length, element_at, slice_at=slice_at,
                    reshuffles=any(plan.reshuffles for plan in plans),
                    unbounded=all(plan.unbounded for plan in plans))


def _joined_spec(a, b, where: str):
    if not structure.same_structure(a, b):
        raise TypeError(f"{where}: the datasets' elements differ in structure: "
                        f"{structure.describe(a)} and {structure.describe(b)}.")
    leaves = []
    for x, y in zip(structure.flatten(a), structure.flatten(b)):
        if x.dtype != y.dtype:
            raise TypeError(f"{where}: the datasets' elements differ in dtype: {x.dtype.name} "
                            f"and {y.dtype.name}. Cast one of them with a map first.")
        leaves.append(TensorSpec(join_shapes(x.shape, y.shape), x.dtype))
    return structure.pack_like(a, leaves)


class Concatenate(Node):
    label = "concatenate"

    def __init__(self, first: Node, second: Node):
        self.inputs = (first, second)
        self.spec()  # checks now that the two agree in structure and dtype

    def iterate(self) -> Iterator[Any]:
        yield from self.inputs[0].iterate()
        yield from self.inputs[1].iterate()

    def cardinality(self) -> int:
        a, b = (node.cardinality() for node in self.inputs)
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        return a + b

    def spec(self):
        return _joined_spec(self.inputs[0].spec(), self.inputs[1].spec(), "Dataset.concatenate")

    def plan(self) -> Plan:
        first, second = (node.plan() for node in self.inputs)
        if not (first.indexed and second.indexed):
            raise cannot_stage("it concatenates a filtered dataset",
                               "Filter after concatenating.")
        if first.unbounded:
            return first
        n = first.length

        def element_at(i):
            if is_static(n) and n == 0:
                return second.element_at(i)
            return cond(i < n, lambda: first.element_at(i),
                        lambda: second.element_at(i - (n if is_static(n) else index(n))))

        return Plan(length_sum(n, second.length), element_at,
                    reshuffles=first.reshuffles or second.reshuffles, unbounded=second.unbounded)


class FlatMap(Node):
    """``flat_map(fn)``: ``fn`` maps each element to a dataset, whose elements follow in turn."""

    label = "flat_map"

    def __init__(self, parent: Node, fn: Callable, node_of: Callable[[Any], Node]):
        self.inputs, self.fn, self.node_of = (parent,), fn, node_of

    def made(self, element) -> Node:
        """The node of the dataset ``fn`` makes from ``element``."""
        made = structure.call_with_element(self.fn, element)
        try:
            return self.node_of(made)
        except TypeError:
            raise TypeError(f"Dataset.{self.label}: map_func must return a dataset, got "
                            f"{type(made).__name__}. Make one with "
                            f"tf.data.Dataset.from_tensors or from_tensor_slices.") from None

    def iterate(self) -> Iterator[Any]:
        for element in self.inputs[0].iterate():
            yield from self.made(element).iterate()

    def cardinality(self) -> int:
        return 0 if self.inputs[0].cardinality() == 0 else UNKNOWN_CARDINALITY

    def spec(self):
        """The spec of the dataset ``fn`` makes from placeholders (no element is computed)."""
        return traced_call(self.fn, self.inputs[0].spec(), lambda made: self.node_of(made).spec())

    def plan(self) -> Plan:
        raise cannot_stage(f"{self.label} has no graph form yet (each element's dataset may "
                           f"have another length)", "Iterate over it in Python, or use unbatch "
                           "when each element is a batch.")


def default_cycle_length() -> int:
    """``interleave``'s cycle length when none is given: as TensorFlow, the number of CPUs
    this process may run on (so the order depends on the machine, there as here)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_END = object()


class Interleave(FlatMap):
    """``interleave(fn, cycle_length, block_length)``: ``cycle_length`` of the datasets ``fn``
    makes are open at once, and ``block_length`` elements are taken from each in turn; a
    dataset that ends is replaced by the next input element's, in its slot. The order is
    TensorFlow's deterministic one (``flat_map`` is ``cycle_length=1``)."""

    label = "interleave"

    def __init__(self, parent: Node, fn: Callable, node_of: Callable[[Any], Node],
                 cycle_length, block_length):
        super().__init__(parent, fn, node_of)
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = default_cycle_length()
        self.cycle, self.block = (count_arg("interleave", cycle_length),
                                  count_arg("interleave", block_length))
        for name, value in (("cycle_length", self.cycle), ("block_length", self.block)):
            if value <= 0:
                raise InvalidArgumentError(f"Dataset.interleave: {name} must be positive, got "
                                           f"{value}.")

    def iterate(self) -> Iterator[Any]:
        inputs = self.inputs[0].iterate()
        slots: list = [None] * self.cycle  # the open datasets' iterators
        at = taken = opened = 0  # the slot, elements taken from it in this block, open slots
        ended = False
        while not ended or opened:
            if slots[at] is None and not ended:
                element = next(inputs, _END)
                ended = element is _END
                if not ended:
                    slots[at] = iter(self.made(element).iterate())
                    opened += 1
                continue
            element = _END if slots[at] is None else next(slots[at], _END)
            if element is not _END:
                taken += 1
                if taken == self.block:
                    at, taken = (at + 1) % self.cycle, 0
                yield element
                continue
            if slots[at] is not None:
                slots[at], opened = None, opened - 1
            at, taken = (at + 1) % self.cycle, 0

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY


class ChooseFromDatasets(Node):
    """``choose_from_datasets(datasets, choice_dataset)``: element ``k`` is the next element of
    ``datasets[c]``, ``c`` the ``k``-th choice; an exhausted dataset ends it
    (``stop_on_empty_dataset``) or its choices are skipped."""

    label = "choose_from_datasets"

    def __init__(self, nodes: list[Node], choices: Node, stop_on_empty_dataset: bool):
        if not nodes:
            raise ValueError("Dataset.choose_from_datasets needs at least one dataset.")
        spec = choices.spec()
        if structure.is_structure(spec) or spec.dtype != dtypes.int64 or spec.shape != ():
            raise TypeError(f"Dataset.choose_from_datasets: the elements of choice_dataset must "
                            f"be scalar int64 tensors, but are {spec}. Map them with "
                            f"tf.cast(c, tf.int64).")
        self.inputs, self.stop = tuple(nodes) + (choices,), bool(stop_on_empty_dataset)
        self.spec()  # checks now that the datasets agree in structure and dtype

    def iterate(self) -> Iterator[Any]:
        *sources, choices = self.inputs
        iterators = [iter(node.iterate()) for node in sources]
        for choice in choices.iterate():
            k = int(choice.numpy())
            if not 0 <= k < len(sources):
                raise InvalidArgumentError(
                    f"Dataset.choose_from_datasets: choice_dataset gave {k}, but there are "
                    f"{len(sources)} datasets (choices are 0 to {len(sources) - 1}).")
            element = _END if iterators[k] is None else next(iterators[k], _END)
            if element is not _END:
                yield element
                continue
            iterators[k] = None
            if self.stop or all(it is None for it in iterators):
                return

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def spec(self):
        specs = [node.spec() for node in self.inputs[:-1]]
        joined = specs[0]
        for other in specs[1:]:
            joined = _joined_spec(joined, other, "Dataset.choose_from_datasets")
        return joined

    def holds_symbolic(self) -> bool:
        return any(node.holds_symbolic() for node in self.inputs)

    def plan(self) -> Plan:
        raise cannot_stage("choose_from_datasets has no graph form yet (each dataset's "
                           "position depends on the choices before it)",
                           "Iterate over it in Python, outside the traced function.")
