"""Runs the passes in a fixed order until none changes the graph, recording what each did."""

from __future__ import annotations

from dataclasses import dataclass

from runtime.graph import Graph
from runtime.passes import constant_folding, cse, dead_loops, inline_cond, prune, simplify

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
    for round_number in range(1, MAX_ROUNDS + 1):
        changed = False
        for name, run in PASSES:
            changes = run(graph)
            if check:
                graph.lint()
            if changes:
                records.append(PassRecord(round_number, name, tuple(changes)))
                changed = True
        if not changed:
            break
    return records
