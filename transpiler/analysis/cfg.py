"""Control-flow graph of one function, and a fixed-point dataflow solver.

Nodes are statement-level. A simple statement is one node. A compound
statement gets an ``ENTER`` node before it and a ``LEAVE`` node that all its
normal exits join, plus nodes for its headers (the ``if``/``while`` test, the
``for`` iterable, head and target, each ``with`` item, each ``except``
clause). So "state just before / right after statement S" is the state
before ``graph.entries_of(S)`` / after ``graph.exits_of(S)``, even for
loops: ``ENTER`` of a loop is outside the back edge, its ``LEAVE`` collects
normal exit and ``break``.

Modelled: break/continue/return (through any ``finally`` on the way), raise,
try/except/else/finally (every node of a ``try`` body may raise, so handlers
are reached from the state before and after each of them), loop ``else``
blocks (run only on normal exit), ``while True`` (left only by break), match
statements. A ``finally`` clause is built twice: once for a propagating
exception (it re-raises after it), once for normal completion and jumps, so
that a failed ``try`` does not make its variables look maybe-undefined after
the statement. Nested functions and classes are single opaque statements.
Calls are not assumed to raise outside ``try`` bodies.
"""

from __future__ import annotations

import enum
from typing import Callable, Generic, Iterable, TypeVar

import gast

S = TypeVar("S")


class Kind(enum.Enum):
    """What a CFG node stands for; ``Node.ast_node`` is given per kind."""

    ENTRY = "Function entry (ast_node: the function)."
    ARGS = "Binding of the parameters (ast_node: the function's arguments)."
    STATEMENT = "A simple statement, or a nested def/class (ast_node: the statement)."
    EXPRESSION = "An expression evaluated for its value, e.g. a lambda body (ast_node: it)."
    ENTER = "Start of a compound statement, before its loop head (ast_node: the statement)."
    LEAVE = "Join point of a compound statement's normal exits (ast_node: the statement)."
    TEST = "If/While test or match guard (ast_node: the test expression)."
    ITER = "Evaluation of a For's iterable, once (ast_node: For.iter)."
    FOR_HEAD = "Loop head of a For: fetch the next item or exit (ast_node: the For)."
    TARGET = "Assignment of a For's target (ast_node: For.target)."
    WITH_ITEM = "Entering one context manager (ast_node: the withitem)."
    HANDLER = "Matching an except clause and binding its name (ast_node: ExceptHandler)."
    HANDLER_END = "Implicit `del name` at the end of `except ... as name` (ast_node: handler)."
    PATTERN = "Matching a case pattern and binding its captures (ast_node: match_case)."
    EXIT = "Function exit (ast_node: the function)."


class Node:
    """A CFG node; ``prev``/``next`` list its neighbours without duplicates."""

    __slots__ = ("kind", "ast_node", "prev", "next")

    def __init__(self, kind: Kind, ast_node: gast.AST):
        self.kind = kind
        self.ast_node = ast_node
        self.prev: list[Node] = []
        self.next: list[Node] = []

    def __repr__(self) -> str:
        line = getattr(self.ast_node, "lineno", None)
        where = f" line {line}" if line is not None else ""
        return f"<{self.kind.name} {type(self.ast_node).__name__}{where}>"


class Graph:
    """The CFG of one function.

    Attributes:
      entry, exit: the unique entry and exit nodes.
      nodes: all nodes in creation order (roughly program order).
    """

    def __init__(self, fn_node: gast.AST):
        self.fn_node = fn_node
        self.entry = Node(Kind.ENTRY, fn_node)
        self.exit = Node(Kind.EXIT, fn_node)
        self.nodes: list[Node] = [self.entry]
        self._copies: dict[gast.AST, list[tuple[Node, Node]]] = {}

    def entries_of(self, stmt: gast.stmt) -> list[Node]:
        """The nodes where ``stmt`` starts (its ENTER node if compound).

        One per copy of the statement: statements in a ``finally`` clause are
        built twice (exception being propagated, and everything else).
        """
        return [first for first, _ in self._copies[stmt]]

    def exits_of(self, stmt: gast.stmt) -> list[Node]:
        """The nodes where ``stmt`` completes normally (its LEAVE node if compound)."""
        return [last for _, last in self._copies[stmt]]

    def _record(self, stmt: gast.stmt, first: Node, last: Node) -> None:
        self._copies.setdefault(stmt, []).append((first, last))

    def statements(self) -> Iterable[gast.stmt]:
        """The statements of the function's own scope that have nodes."""
        return self._copies.keys()


_EVALUATES_AST_NODE = (Kind.STATEMENT, Kind.EXPRESSION, Kind.TEST, Kind.ITER, Kind.TARGET,
                       Kind.WITH_ITEM)


def evaluated_parts(node: Node) -> list[gast.AST]:
    """The AST pieces a node evaluates in the function's scope (e.g. an except's type and name).

    ``ast_node`` is not enough for some kinds: a HANDLER's ExceptHandler also
    holds the handler body, which has nodes of its own. ARGS, HANDLER_END and
    the markers evaluate nothing.
    """
    if node.kind in _EVALUATES_AST_NODE:
        return [node.ast_node]
    if node.kind is Kind.HANDLER:
        return [n for n in (node.ast_node.type, node.ast_node.name) if n is not None]
    if node.kind is Kind.PATTERN:
        return [node.ast_node.pattern]
    return []


def build(fn_node: gast.AST) -> Graph:
    """Build the CFG of a FunctionDef or Lambda (its own scope only)."""
    return _Builder(fn_node).graph


# Builder -------------------------------------------------------------------


class _Loop:
    def __init__(self, head: Node):
        self.head = head
        self.breaks: list[Node] = []


class _Finally:
    """A try's finally clause, while its try/except/else parts are being built."""

    def __init__(self):
        self.jumps: list[Node] = []  # break/continue/return nodes routed into the finally.
        self.pending: list[str] = []  # Which jump kinds continue after the finally.


class _Region:
    """Nodes that may raise into the same place (handlers or a finally clause)."""

    def __init__(self, sources: list[Node]):
        self.sources = list(sources)  # State before the first node may reach the handler too.


class _Builder:
    def __init__(self, fn_node: gast.AST):
        self.graph = Graph(fn_node)
        self.tails: list[Node] = [self.graph.entry]
        self.frames: list[object] = []  # _Loop and _Finally, innermost last.
        self.regions: list[_Region] = []
        self.add(Kind.ARGS, fn_node.args)
        if isinstance(fn_node, gast.Lambda):
            self.add(Kind.EXPRESSION, fn_node.body)
        else:
            self.block(fn_node.body)
        for tail in self.tails:
            _connect(tail, self.graph.exit)
        self.graph.nodes.append(self.graph.exit)

    def add(self, kind: Kind, ast_node: gast.AST) -> Node:
        node = Node(kind, ast_node)
        self.graph.nodes.append(node)
        for tail in self.tails:
            _connect(tail, node)
        self.tails = [node]
        if self.regions:
            self.regions[-1].sources.append(node)
        return node

    def block(self, stmts: list[gast.stmt]) -> None:
        for stmt in stmts:
            self.statement(stmt)

    def statement(self, stmt: gast.stmt) -> None:
        visit = getattr(self, "visit_" + type(stmt).__name__, None)
        if visit is None:  # Simple statement, nested def or class: one node.
            node = self.add(Kind.STATEMENT, stmt)
            self.graph._record(stmt, node, node)
            if isinstance(stmt, gast.Raise):
                self.tails = []  # add() made it a source of the innermost region, if any.
                if not self.regions:
                    _connect(node, self.graph.exit)
            elif type(stmt) in _JUMPS:
                self.tails = []
                self.jump([node], _JUMPS[type(stmt)])
            return
        enter = self.add(Kind.ENTER, stmt)
        visit(stmt)
        self.graph._record(stmt, enter, self.add(Kind.LEAVE, stmt))

    # Jumps --------------------------------------------------------------

    def jump(self, sources: list[Node], kind: str) -> None:
        """Route a break/continue/return (or a finally's continuation of one)."""
        for frame in reversed(self.frames):
            if isinstance(frame, _Finally):
                frame.jumps.extend(sources)
                if kind not in frame.pending:
                    frame.pending.append(kind)
                return
            if kind == "break":
                frame.breaks.extend(sources)
                return
            if kind == "continue":
                for source in sources:
                    _connect(source, frame.head)
                return
        for source in sources:  # A return (or a stray break) leaves the function.
            _connect(source, self.graph.exit)

    # Compound statements --------------------------------------------------

    def visit_If(self, stmt: gast.If) -> None:
        test = self.add(Kind.TEST, stmt.test)
        self.block(stmt.body)
        body_tails = self.tails
        self.tails = [test]
        self.block(stmt.orelse)
        self.tails = body_tails + self.tails

    def visit_While(self, stmt: gast.While) -> None:
        head = self.add(Kind.TEST, stmt.test)
        forever = isinstance(stmt.test, gast.Constant) and bool(stmt.test.value)
        self.loop(head, stmt, exits=not forever)  # `while True:` leaves only by break.

    def visit_For(self, stmt: gast.For) -> None:
        self.add(Kind.ITER, stmt.iter)
        head = self.add(Kind.FOR_HEAD, stmt)
        self.add(Kind.TARGET, stmt.target)
        self.loop(head, stmt)

    visit_AsyncFor = visit_For

    def loop(self, head: Node, stmt: gast.stmt, exits: bool = True) -> None:
        frame = _Loop(head)
        self.frames.append(frame)
        self.block(stmt.body)
        self.frames.pop()
        for tail in self.tails:
            _connect(tail, head)
        self.tails = [head] if exits else []
        self.block(stmt.orelse)
        self.tails = self.tails + frame.breaks

    def visit_With(self, stmt: gast.With) -> None:
        for item in stmt.items:
            self.add(Kind.WITH_ITEM, item)
        self.block(stmt.body)

    visit_AsyncWith = visit_With

    def visit_Match(self, stmt: gast.Match) -> None:
        subject = self.add(Kind.EXPRESSION, stmt.subject)
        no_match = [subject]  # Where control is when the previous case failed.
        exits: list[Node] = []
        for case in stmt.cases:
            self.tails = no_match
            pattern = self.add(Kind.PATTERN, case)
            failed = list(pattern.prev)  # A failed match may bind partially: use the state before.
            if case.guard is not None:
                failed.append(self.add(Kind.TEST, case.guard))
            self.block(case.body)
            exits.extend(self.tails)
            catch_all = isinstance(case.pattern, gast.MatchAs) and case.pattern.pattern is None
            no_match = [] if catch_all and case.guard is None else failed
        self.tails = exits + no_match

    def visit_Try(self, stmt: gast.Try) -> None:
        fin = None
        if stmt.finalbody:
            fin = _Finally()
            self.frames.append(fin)
            self.regions.append(_Region(self.tails))
        if stmt.handlers:
            self.regions.append(_Region(self.tails))
        self.block(stmt.body)
        normal: list[Node] = []
        if stmt.handlers:
            raising = self.regions.pop()
            if self.regions:  # The exception may match no handler: it goes further out.
                self.regions[-1].sources.extend(raising.sources)
        self.block(stmt.orelse)
        normal.extend(self.tails)
        for handler in stmt.handlers:
            self.tails = list(raising.sources)
            self.add(Kind.HANDLER, handler)
            self.block(handler.body)
            if handler.name is not None:
                self.add(Kind.HANDLER_END, handler)
            normal.extend(self.tails)
        self.tails = normal
        if fin is not None:
            self.frames.pop()
            raised = self.regions.pop()
            # The finally is built twice, so that the state of an exception being
            # propagated does not leak into the code after the try statement.
            self.tails = _unique(raised.sources)  # Exceptional copy: runs, then re-raises.
            self.block(stmt.finalbody)
            if not self.regions:  # The re-raise leaves the function.
                for tail in self.tails:
                    _connect(tail, self.graph.exit)
            self.tails = _unique(normal + fin.jumps)
            if self.tails:  # Normal copy: completion, return/break/continue.
                self.block(stmt.finalbody)
                for kind in fin.pending:
                    self.jump(self.tails, kind)
                self.tails = self.tails if normal else []

    visit_TryStar = visit_Try


_JUMPS = {gast.Return: "return", gast.Break: "break", gast.Continue: "continue"}


def _connect(src: Node, dst: Node) -> None:
    if dst not in src.next:
        src.next.append(dst)
        dst.prev.append(src)


def _unique(nodes: list[Node]) -> list[Node]:
    return list(dict.fromkeys(nodes))


# Dataflow solver -----------------------------------------------------------


class Dataflow(Generic[S]):
    """Result of :func:`solve`: the state before and after every node, in program order."""

    def __init__(self, before: dict[Node, S], after: dict[Node, S]):
        self.before = before
        self.after = after


def solve(graph: Graph, *, forward: bool, transfer: Callable[[Node, S], S],
          join: Callable[[list[S]], S], initial: S, boundary: S) -> Dataflow[S]:
    """Iterate ``transfer`` to a fixed point over ``graph``.

    Forward: ``before[n] = join(after[p] for p in n.prev)`` (``boundary`` at the
    entry), ``after[n] = transfer(n, before[n])``. Backward: the mirror image,
    ``after[n] = join(before[s] for s in n.next)`` (``boundary`` at the exit),
    ``before[n] = transfer(n, after[n])``. Every state starts as ``initial``;
    nodes without neighbours on the incoming side get ``join([])``.
    States must compare with ``==``; transfer and join must be monotone.
    """
    before = {n: initial for n in graph.nodes}
    after = dict(before)
    inputs, outputs = (before, after) if forward else (after, before)
    start = graph.entry if forward else graph.exit
    order = graph.nodes if forward else graph.nodes[::-1]
    work = list(reversed(order))  # A stack: pop() yields nodes in `order` first.
    queued = set(work)
    while work:
        node = work.pop()
        queued.discard(node)
        sources = node.prev if forward else node.next
        inputs[node] = boundary if node is start else join([outputs[s] for s in sources])
        out = transfer(node, inputs[node])
        if out == outputs[node]:
            continue  # Every node runs once anyway, so an unchanged output needs no rework.
        outputs[node] = out
        for succ in (node.next if forward else node.prev):
            if succ not in queued:
                queued.add(succ)
                work.append(succ)
    return Dataflow(before, after)
