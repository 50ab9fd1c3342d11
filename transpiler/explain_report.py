"""The report ``transpiler.explain`` returns: the user's source, line by line, with what each
line became when the function was traced. ``str(report)`` is the listing; the fields are for
programs (and tests) that want the facts."""

from __future__ import annotations

import ast
import os
import textwrap
from collections import Counter
from dataclasses import dataclass, field

from runtime.graph import Node
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP
from runtime.source_location import Location
from transpiler.trace_events import Event, PythonBranch, PythonLoop, TracePrint

MARKERS = {"graph": "graph", "python": "python", "skipped": "skipped"}
LEGEND = ("graph: in the graph, runs on every call; python: ran once, while tracing, and "
          "not again; skipped: did not run while tracing")
WIDTH = 100  # the listing's notes wrap at this column
FOLDED = "folded to constants"  # how the report words constant folding's removals
_MAX_KINDS = 5  # op kinds named in a line's note; the rest are counted as "others"


@dataclass(frozen=True)
class Source:
    """The explained function's source lines, the first at ``first_line`` of ``filename``."""

    filename: str
    first_line: int
    lines: list[str]

    @property
    def last_line(self) -> int:
        return self.first_line + len(self.lines) - 1

    def contains(self, location: Location) -> bool:
        return (self.first_line <= location.lineno <= self.last_line
                and _same_file(location.filename, self.filename))


@dataclass(frozen=True)
class NodeFact:
    """One traced node: the function's line running when it was made, its nesting in graph
    control flow, and whether the optimized graph kept it (else why not)."""

    node: Node
    line: int | None
    enclosing: str | None  # "cond" or "while_loop" for a node in a branch or loop body
    kept: bool
    removed_because: str | None
    added: bool = False  # made by a pass (a folded constant, a rewritten loop), not traced


@dataclass
class LineReport:
    """What one source line became."""

    lineno: int
    text: str
    ran: bool = False
    marker: str = ""
    ops: Counter = field(default_factory=Counter)          # op name -> traced nodes
    kept_ops: int = 0
    removed: Counter = field(default_factory=Counter)      # reason -> nodes
    constants: int = 0
    kept_constants: int = 0
    in_staged_code: bool = False  # ran while tracing a graph branch or loop body
    control_flow: list[NodeFact] = field(default_factory=list)
    effects: Counter = field(default_factory=Counter)      # op name -> kept effect nodes
    enclosing: Counter = field(default_factory=Counter)    # "cond"/"while_loop" -> ops inside
    made_elsewhere: Counter = field(default_factory=Counter)  # "helper (file.py:3)" -> nodes
    added_ops: Counter = field(default_factory=Counter)     # op name -> nodes a pass made
    events: list[Event] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class ExplainReport:
    """Per-line facts of one trace, and their readable listing (``str``)."""

    def __init__(self, name: str, signature: str, source: Source, facts: list[NodeFact],
                 events: list[Event], lines_run: set[int], lines_staged: set[int]):
        self.name = name
        self.signature = signature
        self.source = source
        self.facts = facts
        self.events = events
        structure = _Structure(source)
        self.lines = [LineReport(source.first_line + index, text)
                      for index, text in enumerate(source.lines)]
        by_number = {line.lineno: line for line in self.lines}
        for fact in facts:
            line = by_number.get(fact.line)
            if line is not None:
                _add_fact(line, fact, source)
        for event in events:
            line = by_number.get(event.location.lineno)
            if line is not None and source.contains(event.location) \
                    and structure.shows(event, line.lineno):
                line.events.append(event)
        for line in self.lines:
            line.ran = line.lineno in lines_run
            line.in_staged_code = line.lineno in lines_staged
            if any(fact.node.op is WHILE_LOOP for fact in line.control_flow):
                # A while loop that reached the graph: its Python iterations (before its
                # condition became a tensor) are told with the graph loop's note.
                line.events = [event for event in line.events
                               if not isinstance(event, PythonLoop) or event.iterations]
            line.notes = _notes(line, structure)
            line.marker = _marker(line, structure)

    # -- totals ---------------------------------------------------------------------------

    def _op_facts(self) -> list[NodeFact]:
        return [f for f in self.facts if f.node.op not in (PLACEHOLDER, CONST, COND, WHILE_LOOP)]

    @property
    def ops_traced(self) -> int:
        return sum(not f.added for f in self._op_facts())

    @property
    def ops_kept(self) -> int:
        """Ops of the optimized graph: traced ones kept, and those the passes made."""
        return sum(f.kept for f in self._op_facts())

    @property
    def ops_added(self) -> int:
        return sum(f.added for f in self._op_facts())

    @property
    def removed(self) -> Counter:
        return Counter(f.removed_because for f in self._op_facts() if not f.kept)

    def control_flow(self, op) -> tuple[int, int]:
        """(traced, kept) nodes of a control-flow op (``COND`` or ``WHILE_LOOP``)."""
        nodes = [f for f in self.facts if f.node.op is op and not f.added]
        return len(nodes), sum(f.kept for f in nodes)

    def line(self, lineno: int) -> LineReport:
        """The report of one line, by its number in the user's file."""
        for line in self.lines:
            if line.lineno == lineno:
                return line
        raise KeyError(f"line {lineno} is not part of {self.name} "
                       f"({self.source.first_line}-{self.source.last_line}).")

    # -- listing --------------------------------------------------------------------------

    def summary(self) -> list[str]:
        traced, kept = self.ops_traced, self.ops_kept
        text = f"graph: {_count(traced, 'op')} traced, {kept} run on each call"
        details = [_reasons(self.removed)] if self.removed else []
        if self.ops_added:
            details.append(f"{self.ops_added} made by the optimizer")
        if details:
            text += f" ({'; '.join(details)})"
        flow = [f"{_count(n, kind)}" + (f" ({n - k} optimized away)" if k < n else "")
                for kind, op in (("cond", COND), ("while_loop", WHILE_LOOP))
                for n, k in [self.control_flow(op)] if n]
        summary = [text + ("; " + ", ".join(flow) if flow else "")]
        python = _python_summary([event for line in self.lines for event in line.events])
        if python:
            summary.append("Python while tracing: " + python)
        return summary

    def __str__(self) -> str:
        where = f"{self.source.filename}:{self.source.first_line}-{self.source.last_line}"
        out = [f"explain {self.name}{self.signature}   {where}"]
        for text in self.summary() + [LEGEND]:
            out += textwrap.wrap(text, WIDTH, initial_indent="  ", subsequent_indent="    ")
        out.append("")
        width = len(str(self.source.last_line))
        for line in self.lines:
            out.append(f"{line.marker:>7} {line.lineno:>{width}} | {line.text}".rstrip())
            gutter = f"{'':>7} {'':>{width}} | " + " " * (len(line.text) - len(line.text.lstrip()))
            for note in line.notes:
                out += textwrap.wrap(note, max(WIDTH, len(gutter) + 40),
                                     initial_indent=gutter + "  ^ ",
                                     subsequent_indent=gutter + "    ")
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"<ExplainReport {self.name}{self.signature}: {self.ops_traced} ops traced>"


def _same_file(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))


def _add_fact(line: LineReport, fact: NodeFact, source: Source) -> None:
    node = fact.node
    if node.op is PLACEHOLDER or (fact.added and node.op is CONST):
        return  # parameters; constants the passes folded are told as "folded"
    if fact.added:
        line.added_ops[node.op.name] += 1
        line.kept_ops += 1
        return
    if node.op is CONST:
        line.constants += 1
        line.kept_constants += fact.kept
        return
    if node.op is COND or node.op is WHILE_LOOP:
        line.control_flow.append(fact)
        return
    line.ops[node.op.name] += 1
    if fact.kept:
        line.kept_ops += 1
        if node.effect:
            line.effects[node.op.name] += 1
    else:
        line.removed[fact.removed_because] += 1
    if fact.enclosing:
        line.enclosing[fact.enclosing] += 1
    location = node.location
    if location is not None and not source.contains(location):
        line.made_elsewhere[f"{location.function_name or 'a function'} ({location})"] += 1


# -- the words of each line --------------------------------------------------------------------


def _notes(line: LineReport, structure: "_Structure") -> list[str]:
    notes = [_loop_note(line.events)] if _of(line.events, PythonLoop) else []
    notes += [_branch_note(kind, events) for kind, events in _branches(line.events)]
    notes += _control_flow_notes(line.control_flow, structure.writes_condition(line.lineno))
    if line.ops:
        notes.append(_ops_note(line))
    elif line.added_ops:
        notes.append(f"graph: the optimizer made {_count(sum(line.added_ops.values()), 'op')} "
                     f"here ({_kinds(line.added_ops)})")
    elif line.kept_constants:
        notes.append(f"graph: {_count(line.kept_constants, 'constant')}, its value fixed "
                     f"while tracing")
    if line.effects:
        names = ", ".join(sorted(line.effects))
        notes.append(f"effect kept: {names} runs on every call, in program order, even though "
                     f"no output depends on it")
    prints = _of(line.events, TracePrint)
    if prints:
        times = f" ({len(prints)} times)" if len(prints) > 1 else ""
        notes.append(f"print ran in Python while tracing{times} and printed {prints[0].text!r}; "
                     f"later calls run the graph and print nothing. Use rt.print(...) to print "
                     f"on every call")
    return notes


def _of(events: list[Event], kind: type) -> list:
    return [event for event in events if isinstance(event, kind)]


def _loop_note(events: list[Event]) -> str:
    loops = _of(events, PythonLoop)
    construct = loops[0].construct
    iterations = sum(loop.iterations for loop in loops)
    nodes = sum(loop.nodes_added for loop in loops)
    runs = f" over {len(loops)} runs of the loop" if len(loops) > 1 else ""
    if iterations == 0:
        return (f"Python {construct}: ran 0 times while tracing{runs}, so nothing of its body "
                f"is in the graph")
    fix = ("iterate over a tensor or rt.range(n)" if construct == "for loop"
           else "make its condition a tensor")
    return (f"Python {construct}: unrolled while tracing, {_count(iterations, 'iteration')}"
            f"{runs}, adding {_count(nodes, 'graph node')}; every call runs this unrolled graph "
            f"({fix} for one graph loop instead)")


def _branches(events: list[Event]) -> list[tuple[str, list[PythonBranch]]]:
    branches = _of(events, PythonBranch)
    kinds = list(dict.fromkeys(branch.construct for branch in branches))
    return [(kind, [b for b in branches if b.construct == kind]) for kind in kinds]


def _branch_note(construct: str, branches: list[PythonBranch]) -> str:
    taken = Counter(branch.taken for branch in branches)
    name = "if" if construct == "if statement" else "conditional expression"
    if len(taken) == 2:
        return (f"Python {name}: the condition was a Python value, True {_count(taken[True], 'time')}"
                f" and False {_count(taken[False], 'time')} while tracing; each time, only the "
                f"branch taken is in the graph")
    value = branches[0].taken
    if len(branches) > 1:
        value = f"{value} all {len(branches)} times"
    if construct == "if statement":
        part = "its body" if branches[0].taken else "its else branch (if any)"
    else:
        part = "the value before `if`" if branches[0].taken else "the value after `else`"
    return (f"Python {name}: the condition was {value} while tracing, so only {part} is in the "
            f"graph; a Python condition is decided once per trace")


def _control_flow_notes(facts: list[NodeFact], written_here: bool) -> list[str]:
    """One note per kind of graph control flow at a line; a cond on a line without an `if`,
    a ternary or `and`/`or` comes from a break, continue or return the line contains."""
    groups = Counter((fact.node.op.name, fact.removed_because) for fact in facts)
    notes = []
    for (kind, removed), n in groups.items():
        if kind == COND.name:
            text = ("graph cond: both branches are in the graph, and the condition picks one "
                    "on every call")
            if not written_here:
                text = (f"{_count(n, 'graph cond')} carrying the break, continue or return "
                        f"inside: the condition picks a branch on every call")
            elif n > 1:
                text = f"{n} " + text.replace("graph cond", "graph conds", 1)
        else:
            text = ("graph while_loop: the body is in the graph once, and runs while the "
                    "condition holds, on every call")
        notes.append(text + (f" (then {removed})" if removed else ""))
    return notes


def _ops_note(line: LineReport) -> str:
    text = f"graph: {_count(sum(line.ops.values()), 'op')} ({_kinds(line.ops)})"
    places = {"cond": "a cond branch", "while_loop": "a loop body"}
    partly_enclosed = 0 < sum(line.enclosing.values()) < sum(line.ops.values())
    if partly_enclosed:
        text += ", " + ", ".join(f"{n} of them in {places[e]}"
                                 for e, n in sorted(line.enclosing.items())) + ","
    if line.constants:
        text += f" and {_count(line.constants, 'constant')}"
    if line.enclosing and not partly_enclosed:
        text += " in " + " and ".join(places[e] for e in sorted(line.enclosing))
    if line.made_elsewhere:
        text += "; made in " + ", ".join(
            f"{where}: {n}" for where, n in line.made_elsewhere.most_common())
    if line.removed:
        kept = line.kept_ops - sum(line.added_ops.values())
        prefix = "none run" if not kept else f"{kept} run"
        text += f"; after optimization {prefix}: {_reasons(line.removed)}"
    if line.added_ops:
        text += f"; the optimizer made {_count(sum(line.added_ops.values()), 'op')} in their " \
                f"place ({_kinds(line.added_ops)})"
    return text


def _kinds(ops: Counter) -> str:
    kinds = ops.most_common()
    named = ", ".join(f"{n} {op}" for op, n in kinds[:_MAX_KINDS])
    if len(kinds) > _MAX_KINDS:
        named += f", {sum(n for _, n in kinds[_MAX_KINDS:])} others"
    return named


def _reasons(removed: Counter) -> str:
    return ", ".join(f"{n} {reason}" for reason, n in removed.most_common())


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _python_summary(mine: list[Event]) -> str:
    loops = _of(mine, PythonLoop)
    parts = []
    if loops:
        iterations = sum(loop.iterations for loop in loops)
        parts.append(f"{_count(len(loops), 'loop run')} unrolled "
                     f"({_count(iterations, 'iteration')})")
    branches = _of(mine, PythonBranch)
    if branches:
        parts.append(f"{_count(len(branches), 'condition')} decided")
    prints = _of(mine, TracePrint)
    if prints:
        parts.append(f"{_count(len(prints), 'print')} printed once")
    return ", ".join(parts)


def _marker(line: LineReport, structure: "_Structure") -> str:
    # A folded op's value stays in the graph as a constant; a pruned op is gone.
    if line.kept_ops or line.kept_constants or line.in_staged_code \
            or line.removed[FOLDED] or any(fact.kept for fact in line.control_flow):
        return MARKERS["graph"]
    if line.ran and structure.is_statement(line.lineno) and line.lineno not in structure.plumbing:
        return MARKERS["python"]
    if not line.ran and structure.is_known_statement(line.lineno):
        return MARKERS["skipped"]
    return ""


_PLUMBING = (ast.Return, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal)


class _Structure:
    """Which lines start statements, and which hold an ``if`` or a conditional expression:
    converted code also decides Python conditions of its own (the guards that ``break`` and
    ``return`` become), which share the line of the statement around them."""

    def __init__(self, source: Source):
        self.statements: set[int] = set()
        self.ifs: set[int] = set()
        self.if_expressions: set[int] = set()
        self.bool_operations: set[int] = set()
        # statements that only pass values along: `return x` ran in Python, yet its value is
        # the graph's output, so "python" would mislead
        self.plumbing: set[int] = set()
        try:
            tree = ast.parse(textwrap.dedent("\n".join(source.lines)))
        except SyntaxError:  # a lambda cut out of a larger expression: no structure known
            self.parsed = False
            return
        self.parsed = True
        offset = source.first_line - 1
        for node in ast.walk(tree):
            if isinstance(node, ast.stmt) and not (
                    node in tree.body and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))):
                # the function's own def line is not a statement it runs
                self.statements.add(node.lineno + offset)
                if isinstance(node, _PLUMBING):
                    self.plumbing.add(node.lineno + offset)
            if isinstance(node, ast.If):
                self.ifs.add(node.lineno + offset)
            elif isinstance(node, ast.IfExp):
                self.if_expressions.add(node.lineno + offset)
            elif isinstance(node, ast.BoolOp):
                self.bool_operations.add(node.lineno + offset)

    def is_statement(self, lineno: int) -> bool:
        return not self.parsed or lineno in self.statements

    def is_known_statement(self, lineno: int) -> bool:
        return self.parsed and lineno in self.statements

    def writes_condition(self, lineno: int) -> bool:
        """Whether the line holds an ``if``, a ternary or ``and``/``or`` (or is unknown)."""
        return not self.parsed or lineno in self.ifs | self.if_expressions | self.bool_operations

    def shows(self, event: Event, lineno: int) -> bool:
        if not isinstance(event, PythonBranch) or not self.parsed:
            return True
        lines = self.ifs if event.construct == "if statement" else self.if_expressions
        return lineno in lines
