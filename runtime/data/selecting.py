"""Transformations that keep some of the elements as they are: ``take_while``, ``shard`` and
``unique``, and ``assert_cardinality``, which keeps them all.

``take_while`` and ``shard`` have graph forms: before a ``filter`` a shard is index
arithmetic (element ``i`` is the parent's ``i * num_shards + index``), after one it is a
counter; a ``take_while`` is a stage whose flag, once false, ends the loop. ``unique``
remembers every element it has seen, which a graph loop cannot carry.
"""

from __future__ import annotations

import itertools
from typing import Any, Callable, Iterator

from runtime import dtypes
from runtime.data import structure
from runtime.data.node import INFINITE_CARDINALITY, UNKNOWN_CARDINALITY, Node
from runtime.data.plan import (Plan, Stage, cannot_stage, derived, index, length_batches,
                               length_minus, replace_state, when)
from runtime.data.transformations import count_arg, predicate_truth
from runtime.errors import FailedPreconditionError, InvalidArgumentError
from runtime.ops.math_ops import equal, mod


class TakeWhile(Node):
    """``take_while(predicate)``: the elements up to (not including) the first for which
    ``predicate`` is False."""

    label = "take_while"

    def __init__(self, parent: Node, predicate: Callable):
        self.inputs, self.predicate = (parent,), predicate

    def keeps(self, element, concrete: bool):
        return predicate_truth(structure.call_with_element(self.predicate, element), concrete,
                               "take_while")

    def iterate(self) -> Iterator[Any]:
        for element in self.inputs[0].iterate():
            if not self.keeps(element, concrete=True):
                return
            yield element

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY  # as TensorFlow, even for an empty input

    def plan(self) -> Plan:
        parent = self.inputs[0].plan()

        def run(element, states, user, rest, k):
            return when(self.keeps(element, concrete=False), lambda: rest(element, states),
                        lambda: (replace_state(states, k, (index(0),)), user))

        # The flag is 1 while taking; the loop's test reads it, so the first False ends it.
        stage = Stage(run, (index(1),), more=lambda own: own[0] > 0)
        return derived(parent, stages=parent.stages + (stage,))


class Shard(Node):
    """``shard(num_shards, index)``: every ``num_shards``-th element from ``index`` on."""

    label = "shard"

    def __init__(self, parent: Node, num_shards, shard_index):
        self.inputs = (parent,)
        self.count, self.index = count_arg("shard", num_shards), count_arg("shard", shard_index)
        if self.count <= 0:
            raise InvalidArgumentError(f"Dataset.shard: num_shards must be positive, got "
                                       f"{self.count}.")
        if not 0 <= self.index < self.count:
            raise InvalidArgumentError(
                f"Dataset.shard: index must be between 0 and num_shards - 1 = "
                f"{self.count - 1}, got {self.index}. Shards are numbered from 0.")

    def iterate(self) -> Iterator[Any]:
        return itertools.islice(self.inputs[0].iterate(), self.index, None, self.count)

    def cardinality(self) -> int:
        card = self.inputs[0].cardinality()
        if card in (INFINITE_CARDINALITY, UNKNOWN_CARDINALITY):
            return card
        return card // self.count + (1 if self.index < card % self.count else 0)

    def plan(self) -> Plan:
        parent, count, first = self.inputs[0].plan(), self.count, self.index
        if parent.indexed:
            return derived(parent, slice_at=None,
                           length=length_batches(length_minus(parent.length, first), count,
                                                 drop_remainder=False),
                           element_at=lambda i: parent.element_at(i * count + first))

        def run(element, states, user, rest, k):
            (seen,) = states[k]
            counted = replace_state(states, k, (seen + 1,))
            return when(equal(mod(seen, count), first), lambda: rest(element, counted),
                        lambda: (counted, user))

        return derived(parent, stages=parent.stages + (Stage(run, (index(0),)),))


class Unique(Node):
    """``unique()``: each distinct element once, at its first occurrence (elements of one
    int32 or int64 component, of any shape, as TensorFlow allows)."""

    label = "unique"

    def __init__(self, parent: Node):
        self.inputs = (parent,)
        spec = parent.spec()
        if structure.is_structure(spec):
            raise TypeError(f"Dataset.unique: the elements must be single tensors, got elements "
                            f"of structure {structure.describe(spec)}. Map them to one tensor "
                            f"first.")
        if spec.dtype not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"Dataset.unique supports int32 and int64 elements, got "
                            f"{spec.dtype.name}. Cast them first (with a map), or compare "
                            f"another way.")

    def iterate(self) -> Iterator[Any]:
        seen = set()
        for element in self.inputs[0].iterate():
            value = element.numpy()
            key = (value.shape, value.tobytes())
            if key not in seen:
                seen.add(key)
                yield element

    def cardinality(self) -> int:
        return UNKNOWN_CARDINALITY

    def plan(self) -> Plan:
        raise cannot_stage("unique remembers every element it has seen, a set that grows as "
                           "the loop runs", "Iterate over it in Python, or make the dataset from "
                           "unique values (tf.unique on a tensor) before the traced function.")


class AssertCardinality(Node):
    """``tf.data.experimental.assert_cardinality(n)``: the elements as they are, in a dataset
    whose cardinality is ``n`` (``INFINITE_CARDINALITY`` too), so that what needs a known
    length (Keras' progress bar) has one. Iterating raises ``FailedPreconditionError`` as soon
    as the elements turn out more or fewer."""

    label = "assert_cardinality"

    def __init__(self, parent: Node, expected):
        self.inputs = (parent,)
        self.expected = count_arg("assert_cardinality", expected)
        if self.expected < 0 and self.expected != INFINITE_CARDINALITY:
            raise InvalidArgumentError(
                f"assert_cardinality: the cardinality must be a count or "
                f"tf.data.INFINITE_CARDINALITY, got {self.expected}.")

    def iterate(self) -> Iterator[Any]:
        infinite = self.expected == INFINITE_CARDINALITY
        seen = 0
        for element in self.inputs[0].iterate():
            seen += 1
            if not infinite and seen > self.expected:
                raise self._mismatch(f"at least {seen}")
            yield element
        if infinite or seen < self.expected:
            raise self._mismatch(f"only {seen}")

    def cardinality(self) -> int:
        return self.expected

    def plan(self) -> Plan:
        actual = self.inputs[0].cardinality()
        if actual == UNKNOWN_CARDINALITY:
            raise cannot_stage("assert_cardinality would count the elements of a dataset whose "
                               "length is unknown", "Iterate over it in Python, or leave the "
                               "assertion out of the dataset the traced function loops over.")
        if actual != self.expected:
            raise self._mismatch("an infinite number of" if actual == INFINITE_CARDINALITY
                                 else f"only {actual}" if actual < self.expected
                                 else f"{actual}")
        return self.inputs[0].plan()

    def _mismatch(self, found: str) -> FailedPreconditionError:
        expected = ("an infinite number of elements" if self.expected == INFINITE_CARDINALITY
                    else f"{self.expected} elements")
        return FailedPreconditionError(
            None, None, f"assert_cardinality: the dataset was expected to hold {expected}, "
                        f"but it holds {found} elements. Fix the number given, or the dataset.")
