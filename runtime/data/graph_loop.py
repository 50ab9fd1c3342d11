"""Iterating a dataset with a graph loop: ``for element in dataset`` inside a traced function.

``staged(dataset)`` turns the dataset's plan (``runtime.data.plan``) into the pieces of an
``rt.while_loop`` — leading loop variables (a step counter, then the counters of ``take``,
``skip`` and ``enumerate`` after a ``filter``), a test and a step — so that a caller with
its own loop machinery (the transpiler's ``for``) can run the loop; ``dataset_loop`` is that
loop for callers with a functional body, and ``Dataset.reduce`` in a graph.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from runtime import tracing
from runtime.control_flow import cond, while_loop
from runtime.data.plan import Plan, cannot_stage, index, is_static, run_stages
from runtime.errors import InvalidArgumentError
from runtime.ops.array_ops import constant
from runtime.ops.io_ops import assert_
from runtime.ops.math_ops import equal, logical_and
from runtime.tensor import Tensor

Body = Callable[[Any, tuple], tuple]


class StagedDataset:
    """One iteration of a dataset as graph-loop pieces; make it where the loop starts.

    ``counters``: the initial values of the loop's leading variables (int64 scalars), to go
    first in ``rt.while_loop``'s ``loop_vars``, followed by the caller's state.

    ``more(counters)``: a bool scalar tensor, whether the dataset has another step; the
    loop's test is ``more(counters) and <the caller's own test>``.

    ``step(counters, state, body)``: one step; returns ``(counters, state)`` for the next
    iteration. It computes the step's element and, unless a ``filter`` or ``skip`` drops it,
    calls ``body(element, state) -> state`` (``state`` a tuple of the caller's loop
    variables, returned as a tuple of the same structure) under ``rt.cond``. Call it (and
    ``more``) only inside the loop's body (and test): it adds ops to the current graph.
    """

    def __init__(self, plan: Plan, start=None, finish: Callable[[Tensor], Any] | None = None):
        """``start``: the first element's index (an int64 scalar; 0 when None). ``finish``: is
        given the step counter the loop ended with (where an iterator goes on)."""
        self.plan = plan
        self.sizes = [len(stage.initial) for stage in plan.stages]
        self.counters: tuple = (index(0) if start is None else start,) \
            + tuple(v for s in plan.stages for v in s.initial)
        self._finish = finish

    def finish(self, counters: Sequence) -> None:
        """Called with the loop's final counters, after the loop."""
        if self._finish is not None:
            self._finish(counters[0])

    def _split(self, counters: Sequence) -> tuple:
        states, at = [], 1
        for size in self.sizes:
            states.append(tuple(counters[at:at + size]))
            at += size
        return counters[0], tuple(states)

    def more(self, counters: Sequence) -> Tensor:
        i, states = self._split(counters)
        tests = [] if self.plan.length is None else [i < self.plan.length]
        tests += [stage.more(own) for stage, own in zip(self.plan.stages, states)
                  if stage.more is not None]
        if not tests:
            return constant(True)
        result = tests[0]
        for test in tests[1:]:
            result = logical_and(result, test)
        return result

    def step(self, counters: Sequence, state: tuple, body: Body) -> tuple[tuple, tuple]:
        i, states = self._split(counters)
        state = tuple(state)
        element = self.plan.element_at(i)
        states, state = run_stages(self.plan.stages, element, states, state,
                                   lambda element, user: tuple(body(element, user)))
        return (i + 1,) + tuple(v for own in states for v in own), tuple(state)


def staged(dataset) -> StagedDataset:
    """The graph-loop pieces of ``dataset`` (an ``rt.data.Dataset``).

    Raises:
        StagingError: the dataset has a transformation without a graph form; the message
            says which and what to do instead.
    """
    return StagedDataset(dataset._node.plan())


def dataset_loop(dataset, body: Callable[..., Any], state: Sequence = (),
                 extra_test: Callable[..., Any] | None = None, *,
                 names: Sequence[str] | None = None, shape_invariants=None) -> tuple:
    """``for element in dataset: if not extra_test(*state): break; state = body(element, *state)``.

    Args:
        dataset: an ``rt.data.Dataset``.
        body: ``body(element, *state)`` returns the new state: a tuple (or list) as long as
            ``state``, or the bare value when there is one variable. ``element`` is the
            dataset's element as it is (a tuple stays one argument).
        state: the loop variables' initial values (tensors or numbers, nested structures
            allowed); each keeps its dtype and structure, as in ``rt.while_loop``.
        extra_test: ``extra_test(*state)``, checked before each element (``break``,
            ``return``); ``None`` runs to the dataset's end.
        names: the state variables' names, for error messages.
        shape_invariants: as in ``rt.while_loop``, one per state variable (``None`` keeps
            the shape the variable enters with).

    Returns:
        The final state, as a tuple.

    While tracing this is one ``rt.while_loop``; eagerly it iterates the dataset in Python.
    """
    state = tuple(state)

    def call_body(element, values: tuple) -> tuple:
        result = body(element, *values)
        if len(values) == 1 and not isinstance(result, (tuple, list)):
            return (result,)
        return tuple(result)

    if not tracing.is_tracing():
        for element in dataset:
            if extra_test is not None and not bool(extra_test(*state)):
                break
            state = call_body(element, state)
        return state

    loop = staged(dataset)
    n = len(loop.counters)

    def test(*values):
        more = loop.more(values[:n])
        if extra_test is None:
            return more
        return cond(more, lambda: _as_condition(extra_test(*values[n:])), lambda: constant(False))

    def step(*values):
        counters, following = loop.step(values[:n], values[n:], call_body)
        return counters + following

    loop_names = None if names is None else (
        ["dataset_step"] + [f"dataset_counter_{k}" for k in range(1, n)] + list(names))
    invariants = None if shape_invariants is None else (None,) * n + tuple(shape_invariants)
    final = while_loop(test, step, loop.counters + state, names=loop_names,
                       shape_invariants=invariants)
    return tuple(final[n:])


def _as_condition(value):
    return value if isinstance(value, Tensor) else constant(bool(value))


def single_element(dataset) -> Any:
    """``dataset.get_single_element()`` inside a traced function: the element at index 0,
    after a check (when the graph runs, if the length is a tensor) that there is exactly one.

    Raises:
        StagingError: a filter (or another stage) decides which elements there are, which
            only a loop finds out.
    """
    plan = dataset._node.plan()
    if not plan.indexed:
        raise cannot_stage("get_single_element needs the dataset's first element directly, "
                           "but a filter, take_while, shard, or scan comes first",
                           "Use reduce, or a for loop that keeps the element.")
    if plan.unbounded or (is_static(plan.length) and plan.length != 1):
        raise InvalidArgumentError(single_element_message(
            "has more than one element" if plan.unbounded or plan.length > 1 else "is empty"))
    if not is_static(plan.length):
        assert_(equal(plan.length, 1), single_element_message("does not have one element"))
    return plan.element_at(index(0))


def single_element_message(what: str) -> str:
    return (f"Dataset.get_single_element: the dataset {what}; it must have exactly one "
            f"element. Use take(1) to keep the first, or batch to make all of them one element.")
