"""``for element in dataset`` inside a traced function: one graph loop, as TensorFlow makes.

An ``rt.data.Dataset`` iterated while tracing is staged whatever its elements are (a Python
loop would run the pipeline once, at trace time, and bake its elements into the graph). The
loop's leading variables are the dataset's own counters (``rt.data.staged``); the user's loop
variables follow, carried as in any converted loop, with ``break``, ``continue`` and
``return`` lowered to the ``extra_test`` and flags the converters made.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import runtime as rt
from runtime import nest, tracing
from transpiler.operators.control_flow import (_ONCE_PER_TRACE, GetState, SetState, _as_condition,
                                               _GraphLoop, _refuse_graph_values_outside,
                                               _reject_mutations, _staged_lists, _state_before,
                                               naming_construct)


def graph_dataset_for_stmt(dataset, extra_test: Callable | None, body: Callable[[Any], None],
                           get_state: GetState, set_state: SetState, names: Sequence[str],
                           opts: dict, *, mutates: Sequence[str], outer: Sequence[str],
                           staged: Sequence[str]) -> None:
    """The runtime backend's ``for`` over an ``rt.data.Dataset`` (or an iterator whose position
    is state of the graph: the loop goes on from it and leaves it where it stopped):
    ``rt.while_loop``."""
    # a StagingError says which transformation has no graph form
    loop = dataset.staged() if isinstance(dataset, rt.data.Iterator) else rt.data.staged(dataset)
    count = len(loop.counters)
    _reject_mutations(mutates, "a for loop", _ONCE_PER_TRACE)
    with naming_construct("for loop"):
        before = _state_before(get_state, names)
        spec = dataset.element_spec
        first_iteration = lambda: body(_placeholders(spec))  # noqa: E731 - types of new variables
        entering = _staged_lists(before, names, staged, (first_iteration,), get_state, set_state)
        graph_loop = _GraphLoop(entering, first_iteration, get_state, set_state, names,
                                "for loop", opts)

        def loop_test(*values):
            set_state(values[count:])
            more = loop.more(values[:count])
            if extra_test is None:
                return more
            return rt.cond(more, lambda: _as_condition(extra_test()), lambda: rt.constant(False))

        def run_body(element, state: tuple) -> tuple:
            set_state(state)
            body(element)
            return tuple(get_state())

        def loop_body(*values):
            counters, state = loop.step(values[:count], values[count:], run_body)
            return tuple(counters) + tuple(state)

        final = graph_loop.run(loop_test, loop_body, tuple(loop.counters), opts)
        _refuse_graph_values_outside(outer, names, final, get_state, set_state, before,
                                     "a for loop")
        loop.finish(graph_loop.final_leading)
        set_state(final)


def _placeholders(spec):
    """Stand-ins of the dataset's elements, for the probe of the first iteration."""
    graph = tracing.current_graph()
    return nest.map_structure(lambda s: graph.add_placeholder(s.dtype, s.shape, "element"), spec)
