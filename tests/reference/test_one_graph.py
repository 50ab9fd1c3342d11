"""One traced graph, several inputs: what a graph decides must be decided when it runs.

The reference cases trace a fresh function for every input. Here one function is traced on a
first input and then called with others of the same dtype and shape (no retrace): a loop that
ran zero times must raise at run time (issue 9 items 9 and 11), not at the first trace, and a
state refusal or a value must not depend on the input the graph was traced with.
"""

from __future__ import annotations

import pytest

import runtime as rt
from transpiler import function

from . import harness
from . import samples_semantics as sem
from . import samples_wide as wide


# The reference cases traced these sample functions already (a fresh function per input), and
# the runtime's retrace detector remembers traces across function objects of one Python
# function; each test here makes a single function and checks its tracing_count instead.
pytestmark = pytest.mark.filterwarnings("ignore::runtime.errors.RetracingWarning")


def t(value, dtype=None):
    return rt.constant(value, dtype)


@pytest.mark.parametrize("fn, traced_with", [
    (sem.last_index, (3,)), (sem.last_in_while, (2,)), (sem.last_value_times_x, (5, 2)),
], ids=["for", "while", "for_with_x"])
def test_zero_trips_raise_when_the_graph_runs(fn, traced_with):
    """``for i in range(n): last = ...`` / ``return last``: right for n >= 1; n == 0 raises
    InvalidArgumentError naming the variable from the graph traced with n >= 1."""
    graph = function(fn)
    assert graph(*map(t, traced_with)).numpy() == fn(*traced_with)
    zero = traced_with[:-1] + (0,)
    with pytest.raises(rt.errors.InvalidArgumentError, match=r"\blast\b"):
        graph(*map(t, zero))
    assert graph(*map(t, traced_with)).numpy() == fn(*traced_with)
    assert graph.tracing_count == 1


def test_a_dict_key_set_only_in_a_loop_body_is_missing_after_zero_trips():
    graph = function(sem.dict_key_in_loop_body)
    assert graph(t(4)).numpy() == sem.dict_key_in_loop_body(4)
    with pytest.raises((KeyError, rt.errors.InvalidArgumentError), match="last"):
        graph(t(0))
    assert graph.tracing_count == 1


def _int64(*values):
    return tuple(t(v, rt.int64) for v in values)


def _int32(*values):
    return tuple(t(v) for v in values)


@pytest.mark.parametrize("fn, inputs, to_args, traces", [
    (wide.wide_branch, [(wide.BIG,), (3,), (-wide.BIG - 3,), (2**35 + 1,)], _int64, 1),
    (wide.wide_while, [(wide.BIG,), (3,), (2**33,)], _int64, 1),
    (sem.last_index, [(1,), (5,), (2,)], _int32, 1),
    # the Python flag is part of the cache key: one trace per flag
    (sem.try_return_in_loop, [(0, True), (4, True), (4, False)],
     lambda n, flag: (t(n), flag), 2),
], ids=["int64_branch", "int64_while", "last_index", "try_return_in_loop"])
def test_one_graph_answers_every_input(fn, inputs, to_args, traces):
    """The graph traced on the first input gives Python's answer on every other one."""
    graph = function(fn)
    for args in inputs:
        differences = harness.numeric_differences(fn(*args), graph(*to_args(*args)))
        assert differences == [], (args, differences)
    assert graph.tracing_count == traces
