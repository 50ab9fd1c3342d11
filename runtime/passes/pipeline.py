"""Runs the passes in a fixed order until none changes the graph, recording what each did."""

from __future__ import annotations

from dataclasses import dataclass

from runtime.graph import Graph
from runtime.passes import prune

# (name, pass): each pass takes a graph, changes it in place, returns how many nodes it changed.
PASSES = (("prune", prune.run),)
MAX_ROUNDS = 4


@dataclass(frozen=True)
class PassRecord:
    round: int
    name: str
    changes: int


def optimize(graph: Graph) -> list[PassRecord]:
    """Optimizes ``graph`` in place; returns one record per pass run that changed something."""
    records: list[PassRecord] = []
    for round_number in range(1, MAX_ROUNDS + 1):
        changed = False
        for name, run in PASSES:
            changes = run(graph)
            if changes:
                records.append(PassRecord(round_number, name, changes))
                changed = True
        if not changed:
            break
    return records
