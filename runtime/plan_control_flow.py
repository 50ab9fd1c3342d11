"""How a plan writes control flow: a ``cond`` as ``if``/``else`` and a ``while_loop`` as
``while`` around their inlined subgraphs, and the loop limits of graphs loaded from files.

A branch or loop nested 10 levels deep in one generated function becomes a module-level
function of the values it reads (CPython allows 20 nested loops and 100 levels of indentation
per function). A plan may be given a ``LoopLimit`` (graphs from untrusted files): every loop
iteration then counts against a budget shared by all loops of the call and checks a deadline,
so a loop that never ends stops with ``LoopLimitError`` in any thread. Without one, no check
is emitted.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np

from runtime.errors import LoopLimitError
from runtime.graph import Graph, Node
from runtime.ops.registry import COND

# Branches and loops nested deeper than this in one generated function go to a function of
# their own.
_MAX_NESTING = 10
# A plan with a time limit reads the clock every this many loop iterations (reading it costs
# more than a cheap iteration).
_CLOCK_EVERY = 64


@dataclass(frozen=True)
class LoopLimit:
    """How long one call may loop: ``max_iterations`` loop iterations (all loops together) and
    ``seconds`` of time; None leaves that bound off."""

    max_iterations: int | None = None
    seconds: float | None = None

    def stopped(self, node: Node, bound: str) -> LoopLimitError:
        """The error of the loop ``node`` reaching ``bound`` ("iterations" or "seconds")."""
        where = node.location.describe() if node.location else "an unknown location"
        if bound == "iterations":
            option, value = "max_loop_iterations", self.max_iterations
            spent = f"ran {value} loop iterations"
        else:
            option, value = "loop_time_limit", self.seconds
            spent = f"ran for {value} seconds"
        return LoopLimitError(
            f"the while_loop {node.reference()} was stopped: this call {spent}, the limit it was "
            f"loaded with ({option}={value} of rt.load), and the loop may never end. If the "
            f"graph needs more, load it with a larger {option}.\n  The loop was created at {where}")


class ControlFlowEmission:
    """The part of ``runtime.plan_emitter.Emitter`` that writes control flow (it uses the
    emitter's lines, names and ``block``)."""

    def loop_limit_prologue(self) -> None:
        """The counters a loop limit checks, set at the start of the plan's function."""
        limit = self.loop_limit
        if limit is not None and limit.max_iterations is not None:
            self.lines.append(f"    budget = {int(limit.max_iterations)}")
        if limit is not None and limit.seconds is not None:
            self.globals.update(clock=time.monotonic, seconds=limit.seconds)
            self.lines.append("    deadline, tick = clock() + seconds, 0")

    def too_deep(self, indent: str) -> bool:
        """Whether a branch or loop at ``indent`` would nest past what one Python function
        allows (20 nested loops, 100 levels of indentation). Plans with a loop limit keep
        their counters in locals, so loaded graphs are refused that deep instead."""
        return self.loop_limit is None and len(indent) // 4 >= _MAX_NESTING

    def part(self, node: Node, indent: str) -> None:
        """``node`` (a cond or while_loop) as a module-level function of the values it reads,
        called here: its nesting starts again at the top of that function."""
        name = f"part_{self.number(node)}"
        params = list(dict.fromkeys(self.names[id(v)] for v in node.inputs))
        outer = self.lines, self.line_nodes
        self.lines, self.line_nodes = [f"def {name}({', '.join(params)}):"], {}
        (self.cond if node.op is COND else self.while_loop)(node, "    ")
        results = "".join(self.names[id(v)] + ", " for v in node.outputs)
        self.lines.append(f"    return ({results})")
        self.parts.append((self.lines, self.line_nodes))
        self.lines, self.line_nodes = outer
        call = f"{name}({', '.join(params)})"
        self.emit(f"{indent}{results}= {call}" if results else f"{indent}{call}", node)

    def bind_params(self, sub: Graph, expressions: list[str]) -> None:
        for placeholder, expression in zip(sub.inputs, expressions):
            self.names[id(placeholder)] = expression

    def cond(self, node: Node, indent: str) -> None:
        pred, *inputs = [self.names[id(v)] for v in node.inputs]
        targets = self.define(node)
        self.emit(f"{indent}if {pred}:", node)
        for key in ("then", "else"):
            if key == "else":
                self.emit(f"{indent}else:", node)
            sub = node.subgraphs[key]
            self.bind_params(sub, inputs)
            self.block(sub, indent + "    ", keep=sub.outputs)
            if targets:
                results = ", ".join(self.output_expr(v) for v in sub.outputs)
                self.emit(f"{indent}    {targets} = {results}")

    def while_loop(self, node: Node, indent: str) -> None:
        if self.in_loop:
            self.loop_statement(node, indent)
            return
        # Loops run integer arithmetic on NumPy scalars too (see runtime.plan_emitter), silencing the
        # wrap-around warnings that array arithmetic would not give.
        self.globals["errstate"] = np.errstate
        self.emit(f'{indent}with errstate(over="ignore"):', node)
        self.in_loop = True
        try:
            self.loop_statement(node, indent + "    ")
        finally:
            self.in_loop = False

    def loop_statement(self, node: Node, indent: str) -> None:
        num_vars = node.attrs["num_vars"]
        names = [self.names[id(v)] for v in node.inputs]
        rest = names[num_vars:]
        limit = node.attrs["maximum_iterations"]
        if limit == "input":
            limit, rest = rest[0], rest[1:]
        carried = [f"w{self.number(node)}_{i}" for i in range(num_vars)]
        for name, value in zip(carried, node.outputs):
            self.names[id(value)] = name
        inner = indent + "    "
        if carried:
            initial = ", ".join(self.output_expr(v) for v in node.inputs[:num_vars])
            self.emit(f"{indent}{', '.join(carried)} = {initial}", node)
        counter = f"n{self.number(node)}"
        if limit is not None:
            self.emit(f"{indent}{counter} = 0")
        self.emit(f"{indent}while True:", node)
        if limit is not None:
            self.emit(f"{inner}if {counter} >= {limit}:")
            self.emit(f"{inner}    break")
            self.emit(f"{inner}{counter} += 1")
        cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]
        self.bind_params(cond_graph, carried + rest)
        self.block(cond_graph, inner, keep=cond_graph.outputs)
        self.emit(f"{inner}if not {self.names[id(cond_graph.outputs[0])]}:", node)
        self.emit(f"{inner}    break")
        if self.loop_limit is not None:
            self.limit_check(node, inner)
        self.bind_params(body_graph, carried + rest)
        self.block(body_graph, inner, keep=body_graph.outputs)
        if carried:
            results = ", ".join(self.output_expr(v) for v in body_graph.outputs)
            self.emit(f"{inner}{', '.join(carried)} = {results}")

    def limit_check(self, node: Node, indent: str) -> None:
        """Counts the iteration against the call's budget and checks its deadline."""
        stop = f"stop{self.number(node)}"
        self.globals[stop] = functools.partial(self.loop_limit.stopped, node)
        if self.loop_limit.max_iterations is not None:
            self.emit(f"{indent}budget -= 1")
            self.emit(f"{indent}if budget < 0:")
            self.emit(f'{indent}    raise {stop}("iterations")', node)
        if self.loop_limit.seconds is not None:  # the clock is read every _CLOCK_EVERY iterations
            self.emit(f"{indent}tick -= 1")
            self.emit(f"{indent}if tick < 0:")
            self.emit(f"{indent}    tick = {_CLOCK_EVERY - 1}")
            self.emit(f"{indent}    if clock() > deadline:")
            self.emit(f'{indent}        raise {stop}("seconds")', node)
