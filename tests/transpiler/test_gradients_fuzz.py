"""Gradients of random converted programs: a graph, the same Python run eagerly under a tape,
and central finite differences of plain Python agree.

Each example is a small program ``def f(x, n)`` drawn from a grammar of the statements models
write (``y = y * x``, ``y = y + c``, ``y = y * c + x``, ``y = y * w + x * c`` with ``w`` a
trainable ``rt.Variable``, ``z = z + y * c``, ``if``/``elif``/``else`` on ``y``, ``z`` or
``x``, ``for i in range(n)`` with a tensor or a Python bound, ``while y < c and k < L``, and
``break``, ``continue`` or ``return`` under an ``if``), written to a real file (the transpiler
reads the source) next to ``value_and_gradient(x, n)``, which takes the gradient of ``f`` with
respect to ``x`` and ``w`` under a ``GradientTape``. At a few inputs:

* ``transpiler.function(value_and_gradient)`` (one graph per program, float64) gives plain
  Python's value and the eager gradients (``value_and_gradient`` run as Python on eager
  tensors), to 1e-9 (where eagerly ``w`` is not connected, the graph gives None or zero);
* those gradients match central finite differences of plain Python on floats, at inputs where
  no branch or loop test changes its outcome within ``MARGIN`` of ``x`` (or ``w``): the
  program's twin ``f_decisions`` records every test's outcome;
* a float32 call of the same function gives a float32 gradient close to the float64 one.

The list variants also append to a list in loops (a TensorArray in the graph) and return the
sum of its elements. Deterministic (``derandomize``); ``E2G_GRAD_FUZZ_EXAMPLES=N`` runs N
programs per test, ``E2G_GRAD_FUZZ_RANDOM=1`` explores new ones.
"""

from __future__ import annotations

import inspect
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, example, given, note, settings
from hypothesis import strategies as st

import runtime as rt
import transpiler
from runtime import retracing
from tests.reference.fuzzing import load_program, unload_program

PROGRAMS = int(os.environ.get("E2G_GRAD_FUZZ_EXAMPLES", "80"))
INPUTS_PER_PROGRAM = 4
EPS = 1e-6        # finite-difference step
MARGIN = 1e-5     # no test may change its outcome within this distance of x

CONSTANTS = ("0.25", "0.5", "0.75", "1.0", "1.25", "1.5", "2.0", "3.0")
FACTORS = ("-0.5", "0.5", "0.9", "1.1", "1.5")


# --------------------------------------------------------------------------------------------
# The grammar


class _Writer:
    """Draws one function body; ``lines(record)`` renders it, with every branch and loop test
    wrapped in ``_d(...)`` when ``record`` (the twin that reports its decisions)."""

    def __init__(self, draw, appends: str | None = None):
        self.draw = draw
        self.appends = appends  # None, "anywhere", or "loop_bodies" (see programs)
        self.exits = 0
        self.counters = 0
        self.targets = 0
        self.statements = 0

    def test(self, text: str, record: bool) -> str:
        return f"_d({text})" if record else text

    def block(self, depth: int, loop: str | None) -> list:
        """A list of statements (each a function of ``record`` giving lines); ``loop`` is the
        innermost loop's target (``""`` in a while loop, None outside loops)."""
        count = self.draw(st.integers(1, 3))
        return [self.statement(depth, loop) for _ in range(count)]

    def constant(self) -> str:
        return self.draw(st.sampled_from(CONSTANTS))

    def factor(self) -> str:
        return self.draw(st.sampled_from(FACTORS))

    def statement(self, depth: int, loop: str | None):
        self.statements += 1
        kinds = ["assign"] * 4 + ["z"]
        if depth < 3 and self.statements < 9:
            kinds += ["if", "if", "for", "while"]
        if depth > 0:
            kinds += ["exit"]
        if self.appends == "anywhere" or (self.appends == "loop_bodies" and depth == 1
                                          and loop is not None and not self.exits):
            kinds += ["append"] * 2
        kind = self.draw(st.sampled_from(kinds))
        if kind == "append":
            text = f"out.append(y * {self.factor()})"
            return lambda record: [text]
        if kind == "assign":
            choices = ["y = y * x", "y = y + {c}", "y = y * {f} + x", "y = y - x * {f}",
                       "y = y + z * {f}", "y = y * w + x * {f}"]
            if loop:
                # (x * i first: an int32 counter times a Python float is float32, by design)
                choices.append(f"y = y + x * {loop} * {{f}}")
            text = self.draw(st.sampled_from(choices)).format(c=self.constant(), f=self.factor())
            return lambda record: [text]
        if kind == "z":
            text = f"z = z + y * {self.factor()}"
            return lambda record: [text]
        if kind == "if":
            tests = [f"{self.draw(st.sampled_from(['y', 'y', 'z', 'x']))} > {self.constant()}"]
            blocks = [self.block(depth + 1, loop)]
            if self.draw(st.booleans()):  # an elif
                tests.append(f"y < {self.constant()}")
                blocks.append(self.block(depth + 1, loop))
            orelse = self.block(depth + 1, loop) if self.draw(st.booleans()) else None

            def render_if(record):
                lines = []
                for keyword, test, block in zip(("if", "elif"), tests, blocks):
                    lines += [f"{keyword} {self.test(test, record)}:"] + _indent(block, record)
                if orelse is not None:
                    lines += ["else:"] + _indent(orelse, record)
                return lines
            return render_if
        if kind == "for":
            target = f"i{self.targets}"
            self.targets += 1
            bound = self.draw(st.sampled_from(["n", "n", "2"]))
            body = self.block(depth + 1, target)
            return lambda record: [f"for {target} in range({bound}):"] + _indent(body, record)
        if kind == "while":
            k = f"k{self.counters}"
            self.counters += 1
            c = self.constant()
            limit = self.draw(st.integers(1, 3))
            body = self.block(depth + 1, "")

            def render_while(record):
                head = f"while {self.test(f'y < {c}', record)} and {k} < {limit}:"
                return [f"{k} = 0", head, f"    {k} += 1"] + _indent(body, record)
            return render_while
        self.exits += 1
        c = self.constant()
        exits = ["return y + z"] if loop is None else ["break", "continue", "return y + z"]
        exit_ = self.draw(st.sampled_from(exits))
        return lambda record: [f"if {self.test(f'y > {c}', record)}:", f"    {exit_}"]


def _indent(block: list, record: bool) -> list:
    return ["    " + line for statement in block for line in statement(record)]


W_VALUE = 0.8

_TEMPLATE = '''\
import runtime as rt

w = rt.Variable({w!r}, dtype=rt.float64)


def f(x, n):
    y = x
    z = x * 0.5{start}
{body}
    return y + z{total}


def f_decisions(x, n, _d, w):
    y = x
    z = x * 0.5{start}
{recorded}
    return y + z{recorded_total}


def value_and_gradient(x, n):
    with rt.GradientTape() as tape:
        tape.watch(x)
        y = f(x, n)
    return y, tape.gradient(y, [x, w])
'''


@st.composite
def programs(draw, appends: str | None = None) -> str:
    """Module source: ``f``, its decision-recording twin, and ``value_and_gradient``.

    With ``appends``, ``f`` also appends to a list ``out`` (staged in tensor loops) and
    returns the sum of its elements too (returns inside loops do not: loops may not read
    it): ``"anywhere"``, or only ``"loop_bodies"``: directly in the body of a loop at the top
    level, before any ``break``, ``continue`` or ``return`` (which would put the append
    under an ``if``)."""
    writer = _Writer(draw, appends)
    return module_source(writer.block(0, None), appends=appends is not None)


def module_source(body: list, appends: bool) -> str:
    """The module of the statements ``body`` (functions of ``record`` giving lines)."""
    lists = {"start": "\n    out = [y]", "total": " + rt.reduce_sum(rt.stack(out)) * 0.25",
             "recorded_total": " + sum(out) * 0.25"}
    return _TEMPLATE.format(w=W_VALUE, body="\n".join(_indent(body, False)),
                            recorded="\n".join(_indent(body, True)),
                            **(lists if appends else dict.fromkeys(lists, "")))


# The smallest failing program of test_programs_appending_to_lists_anywhere (random programs
# hit it rarely: the append must run, so its if must be taken).
APPENDED_IN_AN_IF = module_source([lambda record: [
    "for i0 in range(n):",
    "    y = y * x",
    f"    if {'_d(y > 0.25)' if record else 'y > 0.25'}:",
    "        out.append(y * 0.5)"]], appends=True)


inputs = st.tuples(st.integers(30, 170).map(lambda k: k / 100 + 0.003), st.integers(0, 3))


# --------------------------------------------------------------------------------------------
# Running one program


def _python(module, x: float, n: int, w: float = W_VALUE) -> tuple[float, tuple]:
    decisions = []

    def record(outcome):
        decisions.append(bool(outcome))
        return outcome
    return module.f_decisions(x, n, record, w), tuple(decisions)


def _finite_differences(module, x: float, n: int) -> list | None:
    """Central differences of plain Python in ``x`` and ``w``, or None when a test changes
    its outcome near ``x`` (or ``w``)."""
    _, here = _python(module, x, n)
    grads = []
    for at in (lambda h: (x + h, n, W_VALUE), lambda h: (x, n, W_VALUE + h)):
        for offset in (-MARGIN, -EPS, EPS, MARGIN):
            if _python(module, *at(offset))[1] != here:
                return None
        grads.append((_python(module, *at(EPS))[0] - _python(module, *at(-EPS))[0]) / (2 * EPS))
    return grads


def _assert_same_gradient(graph, eager, rtol: float) -> None:
    """Where eagerly nothing connects (a variable read only in a loop that ran zero times), a
    graph, which decides connectivity while tracing, gives None or zeros."""
    if eager is None:
        assert graph is None or float(graph) == 0.0, graph
    else:
        assert graph is not None and graph.dtype == eager.dtype
        np.testing.assert_allclose(graph.numpy(), eager.numpy(), rtol=rtol, atol=1e-12)


def check_program(module, cases: list[tuple[float, int]]) -> None:
    graph = transpiler.function(module.value_and_gradient)
    for x, n in cases:
        note(f"x={x!r}, n={n}")
        expected, _ = _python(module, x, n)
        value, grads = graph(rt.constant(x, rt.float64), rt.constant(n))
        eager_value, eager_grads = module.value_and_gradient(rt.constant(x, rt.float64),
                                                             rt.constant(n))
        assert eager_grads[0] is not None and eager_grads[0].dtype == rt.float64
        np.testing.assert_allclose(value.numpy(), expected, rtol=1e-12)
        np.testing.assert_allclose(eager_value.numpy(), expected, rtol=1e-12)
        for grad, eager_grad in zip(grads, eager_grads):
            _assert_same_gradient(grad, eager_grad, rtol=1e-9)
        fd = _finite_differences(module, x, n)
        if fd is not None:
            for grad, expected_grad in zip(grads, fd):
                actual = 0.0 if grad is None else grad.numpy()
                np.testing.assert_allclose(actual, expected_grad, rtol=1e-6, atol=1e-7)
    if "y * w" in inspect.getsource(module.f):
        return  # float64 w would make a float32 x's computation float64
    # float32 inputs: a second trace; the gradient stays float32.
    x, n = cases[0]
    value32, grads32 = graph(rt.constant(x, rt.float32), rt.constant(n))
    assert value32.dtype == rt.float32 and grads32[0].dtype == rt.float32
    _, grads64 = graph(rt.constant(x, rt.float64), rt.constant(n))
    np.testing.assert_allclose(grads32[0].numpy(), grads64[0].numpy(), rtol=1e-3, atol=1e-3)


@pytest.fixture(scope="module")
def directory():
    with tempfile.TemporaryDirectory() as path:
        yield Path(path)


FUZZ_SETTINGS = settings(
    max_examples=PROGRAMS, derandomize=os.environ.get("E2G_GRAD_FUZZ_RANDOM") != "1",
    deadline=None, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.function_scoped_fixture])
CASES = st.lists(inputs, min_size=INPUTS_PER_PROGRAM, max_size=INPUTS_PER_PROGRAM)


def run(directory: Path, source: str, cases: list) -> None:
    note(source)
    retracing.reset()  # each program is a new function: not the retracing the warning is for
    module = load_program(source, directory)
    try:
        check_program(module, cases)
    finally:
        unload_program(module)


@FUZZ_SETTINGS
@given(source=programs(), cases=CASES)
def test_graph_eager_and_finite_differences_agree(directory, source, cases):
    run(directory, source, cases)


@FUZZ_SETTINGS
@given(source=programs(appends="loop_bodies"), cases=CASES)
def test_programs_appending_to_lists_in_loop_bodies(directory, source, cases):
    run(directory, source, cases)


@settings(FUZZ_SETTINGS, phases=[Phase.explicit, Phase.generate])  # fails fast, no shrinking
@given(source=programs(appends="anywhere"), cases=CASES)
@example(source=APPENDED_IN_AN_IF, cases=[(1.303, 2)])
def test_programs_appending_to_lists_anywhere(directory, source, cases):
    run(directory, source, cases)
