"""Runs the passes in a fixed order until none changes the graph, recording what each did;
then the rewrites that must run only once, each followed by the passes again if it changed
the graph."""

from __future__ import annotations

from dataclasses import dataclass

from runtime.graph import Graph
from runtime.passes import (constant_folding, counted_loops, cse, dead_loops, inline_cond, prune,
                            simplify)

# (name, pass): each pass changes the graph in place and returns one line per change.
PASSES = (
    ("prune", prune.run),                # first: no work on what nothing needs
    ("constant folding", constant_folding.run),
    ("simplify", simplify.run),          # identities, often exposed by folding
    ("cse", cse.run),                    # after simplify, more expressions look alike
    ("inline cond", inline_cond.run),    # predicates folded above become branches
    ("dead loops", dead_loops.run),      # conditions folded above end loops before they start
    ("prune", prune.run),                # last: what the passes above left unused
)
# What a change by each pass can give a pass something to do (a pass missing here, or one
# absent from its own set, is known to find nothing on a graph that only that pass changed
# since that pass last ran without a change). The fixed point skips such a run: it would only
# confirm. A pass not listed may enable every pass.
#   prune:  removing unused nodes changes no kept node's inputs, so nothing folds, simplifies
#           or merges that did not before; one backward walk removes all it can. Only a loop
#           condition's unused nodes matter: dead loops evaluates every node of it.
#   constant folding, simplify: one walk in program order rewrites all it can (a node's
#           inputs are rewritten before it is visited), and what they make may enable others.
#   cse:    a merged node becomes a node with the same op, inputs, attributes and values (a
#           constant of the same bytes), so every other pass sees the same things; one walk
#           merges all duplicates (inputs are merged before their users are keyed).
_ALL = frozenset(name for name, _ in PASSES)
ENABLES = {
    "prune": frozenset({"dead loops"}),
    "constant folding": _ALL - {"constant folding"},
    "simplify": _ALL - {"simplify"},
    "cse": frozenset(),
}
# Rewrites that keep what they rewrote next to their result (a loop in a cond branch, which
# would match again): run once each, after the fixed point, which then folds their guards.
ONCE = (
    ("counted loops", counted_loops.run),
)
# A fixed point comes in two or three rounds; the limit only guards against a pass that
# would undo another's work forever.
MAX_ROUNDS = 10


@dataclass(frozen=True)
class PassRecord:
    """One pass run that changed the graph: which, in which round, and each change."""

    round: int
    name: str
    changes: tuple[str, ...]

    def __str__(self) -> str:
        return f"round {self.round}, {self.name}: " + "; ".join(self.changes)


def optimize(graph: Graph, check: bool = False) -> list[PassRecord]:
    """Optimizes ``graph`` in place; returns one record per pass run that changed something.
    With ``check``, the graph is linted after every pass (for tests)."""
    records: list[PassRecord] = []
    round_number = _fixed_point(graph, records, 1, check)
    for name, run in ONCE:
        if _run_pass(graph, name, run, round_number, records, check):
            round_number = _fixed_point(graph, records, round_number + 1, check)
    return records


def _run_pass(graph: Graph, name: str, run, round_number: int, records: list[PassRecord],
              check: bool) -> bool:
    """Runs one pass, records what it changed; returns whether it changed anything."""
    changes = run(graph)
    if check:
        graph.lint()
    if changes:
        records.append(PassRecord(round_number, name, tuple(changes)))
    return bool(changes)


def _fixed_point(graph: Graph, records: list[PassRecord], first: int, check: bool) -> int:
    """Runs ``PASSES`` in rounds numbered from ``first`` until every pass has run once since
    the last change (the graph is then a fixed point: passes are deterministic); returns the
    number of that last round. Stopping there, not at the end of a round without changes,
    saves most of the round that only confirms. A pass that ``ENABLES`` says cannot find
    anything since it last ran counts as run without a change, without walking the graph
    (with ``check``, it runs, and finding something is an error)."""
    names = {name for name, _ in PASSES}
    unchanged_since: set[str] = set()  # passes run without a change since the last change
    pending = set(names)  # passes that may find something to change
    for round_number in range(first, first + MAX_ROUNDS):
        for name, run in PASSES:
            if name in unchanged_since:
                continue  # prune again at a round's start: it saw this very graph already
            if name in pending:
                changed = _run_pass(graph, name, run, round_number, records, check)
            elif check:
                changes = run(graph)
                if changes:
                    raise AssertionError(f"{name} changed a graph it was known to leave as it "
                                         f"is: {changes}")
                changed = False
            else:
                changed = False
            if changed:
                unchanged_since = set()
                pending |= ENABLES.get(name, names)
                if name not in ENABLES.get(name, names):
                    pending.discard(name)
            else:
                pending.discard(name)
                unchanged_since.add(name)
                if unchanged_since == names:
                    return round_number
    return round_number
