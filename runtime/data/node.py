"""A step of a dataset pipeline: a source or a transformation, eager and staged side by side.

Each node answers four questions, kept together so that the eager and the graph meaning of a
transformation are written next to each other and cannot drift apart:

* ``iterate()``: its elements, one by one, as eager tensors (Python iteration);
* ``plan()``: the same elements as arithmetic on a loop counter (``runtime.data.plan``), for
  a graph loop; nodes that have none raise a ``StagingError`` saying why and what to do;
* ``cardinality()``: the number of elements if known without iterating, else
  ``INFINITE_CARDINALITY`` or ``UNKNOWN_CARDINALITY`` (TensorFlow's rules);
* ``spec()``: the element's structure of ``TensorSpec`` (``element_spec``).

Nodes know nothing of the user-facing ``Dataset``, which wraps one (``runtime.data.dataset``).
"""

from __future__ import annotations

from typing import Any, Iterator

from runtime.data.plan import Plan, cannot_stage
from runtime.tensor import SymbolicTensor

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


class Node:
    inputs: tuple["Node", ...] = ()
    label = "dataset"  # the method that made it, for messages

    def iterate(self) -> Iterator[Any]:
        raise NotImplementedError

    def plan(self) -> Plan:
        raise cannot_stage(f"{self.label} has no graph form",
                           "Iterate over it in Python, outside the traced function.")

    def cardinality(self) -> int:
        return self.inputs[0].cardinality()

    def spec(self) -> Any:
        return self.inputs[0].spec()

    def holds_symbolic(self) -> bool:
        """Whether a source holds values of a graph being traced (then only a graph loop can
        iterate the dataset)."""
        return any(node.holds_symbolic() for node in self.inputs)


def is_symbolic_leaf(value) -> bool:
    return type(value) is SymbolicTensor
