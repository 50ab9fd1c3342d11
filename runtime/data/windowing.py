"""``window(size, shift, stride, drop_remainder)``: elements that are datasets.

Window ``k`` holds the parent's elements ``k*shift + j*stride`` for ``j < size`` (those that
exist); windows start at every ``shift``-th element, and with ``drop_remainder`` only full
ones are kept. Each window is the element's structure with one dataset per component (a
tuple of two datasets for ``(x, y)`` elements), as in TensorFlow; the usual next step is
``flat_map(lambda w: w.batch(size))``.

A window has no graph form: its elements are datasets, which a graph loop cannot carry, and
``flat_map``, which consumes them, has none yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.plan import Plan, cannot_stage
from runtime.data.sources import TensorSlices
from runtime.data.transformations import count_arg
from runtime.errors import InvalidArgumentError
from runtime.graph import Graph


@dataclass(frozen=True)
class DatasetSpec:
    """The spec of an element that is a dataset (TensorFlow's ``tf.data.DatasetSpec``)."""

    element_spec: Any
    # Makes the user-facing Dataset of a node (nodes do not know the Dataset class).
    wrap: Callable[[Node], Any] = field(compare=False, repr=False)

    def placeholder(self, graph: Graph, name: str) -> Any:
        """A dataset of ``graph``'s placeholders with this element spec, to trace a function
        that takes windows (``flat_map``) without computing one."""
        leaves = [graph.add_placeholder(s.dtype, None if s.shape is None else (None,) + s.shape,
                                        f"{name}_{k}")
                  for k, s in enumerate(structure.flatten(self.element_spec))]
        return self.wrap(TensorSlices(structure.pack_like(self.element_spec, leaves)))


class Elements(Node):
    """A dataset of elements already computed (one component of a window)."""

    label = "window"

    def __init__(self, elements: list, spec):
        self.elements, self.element_spec = elements, spec

    def iterate(self) -> Iterator[Any]:
        return iter(self.elements)

    def cardinality(self) -> int:
        return len(self.elements)

    def spec(self):
        return self.element_spec


def _positive(name: str, value) -> int:
    value = count_arg("window", value)
    if value <= 0:
        raise InvalidArgumentError(f"Dataset.window: {name} must be positive, got {value}.")
    return value


class Window(Node):
    label = "window"

    def __init__(self, parent: Node, size, shift, stride, drop_remainder: bool,
                 wrap: Callable[[Node], Any]):
        self.inputs, self.wrap = (parent,), wrap
        self.size = _positive("size", size)
        self.shift = self.size if shift is None else _positive("shift", shift)
        self.stride = _positive("stride", stride)
        self.drop_remainder = bool(drop_remainder)

    @property
    def span(self) -> int:
        """How many consecutive parent elements a full window covers."""
        return (self.size - 1) * self.stride + 1

    def _windows(self) -> Iterator[list]:
        """The parent's elements of each window, as lists; reads only as far as it needs (the
        parent may be infinite)."""
        buffer, first = [], 0  # buffer[j] is the parent's element first + j
        for position, element in enumerate(self.inputs[0].iterate()):
            if position >= first:
                buffer.append(element)
            if len(buffer) == self.span:
                yield buffer[::self.stride]
                del buffer[:self.shift]
                first += self.shift
        while buffer and not self.drop_remainder:
            yield buffer[::self.stride]
            del buffer[:self.shift]

    def _component_specs(self) -> list:
        return structure.flatten(self.inputs[0].spec())

    def iterate(self) -> Iterator[Any]:
        parent_spec, specs = self.inputs[0].spec(), self._component_specs()
        for window in self._windows():
            columns = zip(*(structure.flatten(e) for e in window))
            datasets = [self.wrap(Elements(list(column), spec))
                        for column, spec in zip(columns, specs)]
            yield structure.pack_like(parent_spec, datasets)

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if card in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return card
        if self.drop_remainder:
            rest = card - self.span
            return 0 if rest < 0 else rest // self.shift + 1
        return -(-card // self.shift)

    def spec(self):
        return structure.map_leaves(lambda s: DatasetSpec(s, self.wrap), self.inputs[0].spec())

    def plan(self) -> Plan:
        advice = "Iterate over it in Python, outside the traced function"
        if self.shift == self.size and self.stride == 1:
            advice += (", or use batch(size), which gives what "
                       "window(size).flat_map(lambda w: w.batch(size)) gives")
        raise cannot_stage("window makes elements that are datasets, which a graph loop "
                           "cannot carry (and flat_map has no graph form yet)", advice + ".")

