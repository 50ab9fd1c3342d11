"""Helpers for pass and executor tests: trace a function, run one pass, run a graph, and build
random programs (for the property tests)."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from typing import Callable

import numpy as np
from hypothesis import strategies as st

import runtime as rt
from runtime.executor import Plan
from runtime.graph import Graph
from runtime.ops.array_ops import CAST
from runtime.ops.dispatch import apply_op


def traced(fn, *args):
    """The ConcreteFunction of ``rt.function(fn)`` for these arguments (passes applied)."""
    return rt.function(fn).get_concrete_function(*args)


def traced_graph(fn, *args) -> Graph:
    """The graph of ``fn`` as traced, before any pass (a copy: passes may change it)."""
    return traced(fn, *args).unoptimized_graph.copy()


def apply(run: Callable[[Graph], list[str]], graph: Graph) -> list[str]:
    """Runs one pass on ``graph``, checks that the result is well formed, returns its changes."""
    changes = run(graph)
    graph.lint()
    return changes


def ops(graph: Graph) -> list[str]:
    """The ops ``graph`` computes, in order (constants left out)."""
    return [node.op.name for node in graph.nodes if node.op.name != "const"]


def all_ops(graph: Graph) -> list[str]:
    """The same, subgraphs included."""
    return [node.op.name for node in graph.walk() if node.op.name != "const"]


def run_graph(graph: Graph, *arrays) -> list[np.ndarray]:
    """The outputs of ``graph`` computed by a compiled plan."""
    return [np.asarray(v) for v in Plan(graph, graph.name).run(*arrays)]


def assert_identical(actual: list, expected: list) -> None:
    """Same dtypes, shapes and values, NaN where NaN, and the same signs (-0.0 is not 0.0)."""
    assert len(actual) == len(expected)
    for a, b in zip(actual, expected):
        a, b = np.asarray(a), np.asarray(b)
        assert (a.dtype, a.shape) == (b.dtype, b.shape), ((a.dtype, a.shape), (b.dtype, b.shape))
        np.testing.assert_array_equal(a, b)
        if a.dtype.kind == "f":
            np.testing.assert_array_equal(np.signbit(a), np.signbit(b))


def assert_same_behaviour(actual: tuple, expected: tuple) -> None:
    """The same outputs, printed text and final variable value (see ``Program.observe``)."""
    (outputs, printed, state), (expected_outputs, expected_printed, expected_state) = actual, expected
    assert_identical(outputs, expected_outputs)
    assert printed == expected_printed
    assert_identical([state], [expected_state])


# -- random programs -----------------------------------------------------------------------
#
# A program is a list of steps, each appending a value to a pool that starts with the
# function's argument. The steps cover what the passes rewrite (constant subexpressions,
# identities, duplicates, conds on constants, loops that never run), what they must leave
# alone (prints, random draws, variable writes and reads, also inside branches and loops) and
# what the executor must get right (branches and loops that pass values through, views,
# nested control flow).

INPUTS = {
    "float32": [np.array([-1.5, -0.0, 2.25], np.float32),
                np.array([0.0, np.nan, np.inf], np.float32),
                np.array([-np.inf, 1e-40, -3e38], np.float32)],
    "int32": [np.array([-7, 0, 5], np.int32),
              np.array([2**31 - 1, -2**31, -1], np.int32)],
}

_UNARY: dict[str, Callable] = {
    "neg": lambda a, one: -a,
    "abs": lambda a, one: rt.abs(a),
    "square": lambda a, one: rt.square(a),
    "sign": lambda a, one: rt.sign(a),
    "relu": lambda a, one: rt.maximum(a, one * 0),
    "identity": lambda a, one: rt.identity(a),
    "times_one": lambda a, one: a * one,
    "one_times": lambda a, one: one * a,
    "minus_zero": lambda a, one: a - one * 0,
    "zero_minus": lambda a, one: one * 0 - a,
    "plus_zero": lambda a, one: a + one * 0,
    "times_zero": lambda a, one: a * (one * 0),
    "divide_by_one": lambda a, one: a / one if isinstance(one, float) else a // one,
    "pow_one": lambda a, one: a ** one,
    "pow_two": lambda a, one: a ** (one * 2),
    "double_neg": lambda a, one: -(-a),
    "cast_same": lambda a, one: apply_op(CAST, [a], {"dtype": a.dtype}),  # rt.cast returns a
    "reshape_same": lambda a, one: rt.reshape(a, [3]),
    "reshape_back": lambda a, one: rt.reshape(rt.reshape(a, [3, 1]), [3]),
    "transpose": lambda a, one: rt.transpose(a),
    "reverse": lambda a, one: a[::-1],
    "gather": lambda a, one: rt.gather(a, [2, 0, 1]),
}
_BINARY: dict[str, Callable] = {
    "add": rt.add, "sub": rt.subtract, "mul": rt.multiply, "max": rt.maximum,
    "min": rt.minimum, "where": lambda a, b: rt.where(a > b, a, b),
}

_INDEX = st.integers(0, 40)
STEP = st.one_of(
    st.tuples(st.just("unary"), st.sampled_from(sorted(_UNARY)), _INDEX),
    st.tuples(st.just("binary"), st.sampled_from(sorted(_BINARY)), _INDEX, _INDEX),
    st.tuples(st.just("constant"), st.integers(-4, 4), _INDEX),
    st.tuples(st.just("cond"), st.sampled_from(["true", "false", "data"]), _INDEX, _INDEX,
              st.booleans()),
    st.tuples(st.just("loop"), st.sampled_from([0, 1, 3, "n"]), _INDEX, _INDEX, st.booleans()),
    st.tuples(st.just("nested"), st.sampled_from([0, 2, "n"]), _INDEX, _INDEX),
    st.tuples(st.just("duplicate"), _INDEX),
    st.tuples(st.just("print"), _INDEX),
    st.tuples(st.just("random"), st.sampled_from([None, 1, 2]), _INDEX),
    st.tuples(st.just("variable"), _INDEX),
)
PROGRAMS = st.tuples(st.sampled_from(sorted(INPUTS)), st.lists(STEP, min_size=1, max_size=12))


@dataclass
class Program:
    """A random program: ``fn(x: dtype[3], n: int32[])`` and the variable it updates."""

    fn: Callable
    dtype: np.dtype
    state: rt.Variable

    def trace(self):
        return traced(self.fn, rt.TensorSpec([3], self.dtype), rt.TensorSpec([], rt.int32))

    def observe(self, run: Callable, x: np.ndarray, n: int) -> tuple[list, str, np.ndarray]:
        """What ``run(x, n)`` shows: its outputs as arrays, what it printed, and the
        variable's final value. Random draws and the variable start from the same state."""
        rt.random.set_seed(0)
        self.state.assign(np.zeros(3, self.dtype))
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed), np.errstate(all="ignore"):
                results = [np.asarray(r) for r in run(x, np.int32(n))]
        finally:
            rt.random.set_seed(None)
        return results, printed.getvalue(), self.state.numpy()


def random_program(dtype_name: str, steps: list) -> Program:
    """A program applying ``steps``; it returns every other value of the pool (the others
    are left for pruning unless a later step reads them), the last value and its sum."""
    dtype = np.dtype(dtype_name)
    one = 1.0 if dtype.kind == "f" else 1  # weak Python scalars take the tensors' dtype
    state = rt.Variable(np.zeros(3, dtype))

    def fn(x, n):
        pool = [x]

        def pick(i):
            return pool[i % len(pool)]
        context = _Context(pick, one, dtype, n, state)
        for step in steps:
            pool.append(_STEPS[step[0]](context, *step[1:]))
        return tuple(pool[::2]) + (pool[-1], rt.reduce_sum(pool[-1]))
    return Program(fn, dtype, state)


@dataclass(frozen=True)
class _Context:
    pick: Callable
    one: float | int
    dtype: np.dtype
    n: object
    state: rt.Variable


def _constant_step(c: _Context, value, i):
    constant = rt.identity(rt.constant(np.array(value, c.dtype))) * 2 + 1  # only constants
    return c.pick(i) + constant


def _cond_step(c: _Context, kind, i, j, loud):
    a, b = c.pick(i), c.pick(j)
    pred = rt.reduce_sum(a) > 0 if kind == "data" else rt.identity(rt.constant(kind == "true"))

    def then():
        if loud:
            rt.print("then", a)
        return a  # passes a value through
    return rt.cond(pred, then, lambda: b * 2 - c.one)


def _limit(limit, n):
    return n if limit == "n" else rt.identity(rt.constant(np.int32(limit)))


def _loop_step(c: _Context, limit, i, j, loud):
    a, b = c.pick(i), c.pick(j)
    bound = _limit(limit, c.n)

    def body(k, v, same):
        if loud:
            rt.print("iteration", k)
        return k + 1, v * 2 - a, same  # same passes through
    _, v, same = rt.while_loop(lambda k, v, same: k < bound, body,
                               (rt.constant(np.int32(0)), a, b))
    return v + same


def _nested_step(c: _Context, limit, i, j):
    a, b = c.pick(i), c.pick(j)
    bound = _limit(limit, c.n)

    def body(k, v):
        return k + 1, rt.cond(rt.reduce_sum(v) > 0, lambda: v - b, lambda: v + c.one)
    return rt.while_loop(lambda k, v: k < bound, body, (rt.constant(np.int32(0)), a))[1]


def _duplicate_step(c: _Context, i):
    return rt.abs(c.pick(i) * 3 - c.one) + rt.abs(c.pick(i) * 3 - c.one)  # the same twice


def _print_step(c: _Context, i):
    rt.print("value", c.pick(i))
    return c.pick(i)


def _random_step(c: _Context, seed, i):
    draw = rt.random.uniform([3], 0, 4, seed=seed)
    return c.pick(i) + rt.cast(draw, c.dtype)


def _variable_step(c: _Context, i):
    before = c.state.value()
    c.state.assign_add(c.pick(i))
    return c.state.value() - before


_STEPS: dict[str, Callable] = {
    "unary": lambda c, name, i: _UNARY[name](c.pick(i), c.one),
    "binary": lambda c, name, i, j: _BINARY[name](c.pick(i), c.pick(j)),
    "constant": _constant_step,
    "cond": _cond_step,
    "loop": _loop_step,
    "nested": _nested_step,
    "duplicate": _duplicate_step,
    "print": _print_step,
    "random": _random_step,
    "variable": _variable_step,
}
