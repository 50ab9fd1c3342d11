"""Datasets made of other datasets: ``zip``, ``concatenate`` and ``flat_map``."""

from __future__ import annotations

from typing import Any, Callable, Iterator

from runtime import tracing
from runtime.control_flow import cond
from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.plan import Plan, cannot_stage, index, is_static, length_min, length_sum
from runtime.graph import Graph
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

    def iterate(self) -> Iterator[Any]:
        for element in self.inputs[0].iterate():
            yield from self.node_of(structure.call_with_element(self.fn, element)).iterate()

    def cardinality(self) -> int:
        return 0 if self.inputs[0].cardinality() == 0 else UNKNOWN_CARDINALITY

    def spec(self):
        """The spec of the dataset ``fn`` makes from placeholders (no element is computed)."""
        spec = self.inputs[0].spec()
        graph = Graph("flat_map_function")
        placeholders = [graph.add_placeholder(s.dtype, s.shape, f"component_{i}")
                        for i, s in enumerate(structure.flatten(spec))]
        with tracing.building(graph):
            made = structure.call_with_element(self.fn, structure.pack_like(spec, placeholders))
            return self.node_of(made).spec()

    def plan(self) -> Plan:
        raise cannot_stage("flat_map has no graph form yet (each element's dataset may have "
                           "another length)", "Iterate over it in Python, or use unbatch when "
                           "each element is a batch.")
