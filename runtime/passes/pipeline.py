"""Runs the passes in a fixed order until none changes the graph, recording what each did."""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.graph import Graph
from runtime.passes import constant_folding, cse, dead_loops, inline_cond, prune, simplify

# (name, pass): each pass changes the graph in place and returns one line per change.
PASSES = (
    ("prune", prune.run),                # first: no work on what nothing needs
    ("constant folding", constant_folding.run),
    ("simplify", simplify.run),          # identities, often exposed by folding
    ("cse", cse.run),                    # after simplify, more expressions look alike
    ("inline cond", inline_cond.run),    # predicates folded above become branches
    ("dead loops", dead_loops.run),
)
MAX_ROUNDS = 4


@dataclass(frozen=True)
class PassRecord:
    round: int
    name: str
    changes: int
    details: tuple[str, ...] = field(default=(), compare=False)

    def __str__(self) -> str:
        return f"round {self.round}, {self.name}: {self.changes} change(s)"


def optimize(graph: Graph) -> list[PassRecord]:
    """Optimizes ``graph`` in place; returns one record per pass run that changed something."""
    records: list[PassRecord] = []
    for round_number in range(1, MAX_ROUNDS + 1):
        changed = False
        for name, run in PASSES:
            details = run(graph)
            if details:
                records.append(PassRecord(round_number, name, len(details), tuple(details)))
                changed = True
        if not changed:
            break
    return records
