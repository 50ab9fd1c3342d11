"""Neighbouring regions merged into one kernel: one call instead of several, and the values
they pass each other stay inside it.

Regions are cut at every matmul, loop and branch so that repeated layers make identical
kernels (compiled once, rolled into loops). Once the chains are rolled, the regions left
next to each other are joined where the later one needs nothing made on the NumPy plan
after the earlier one starts. A training step's forward pass, gradient and update then run
as one or two kernels. A merged kernel joins at most ``MAX_MERGED_PARTS`` regions, so a long
run of identical layers becomes a few identical kernels, compiled once. Merged kernels that
differ compile each on its own: the nodes merged per graph are bounded
(``MERGED_NODES_BUDGET``), and beyond that regions stay the per-layer kernels that identical
layers share, so compile cost stays bounded by the kinds of work, not the graph's size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.backends.jit.codegen import KernelWriter
from runtime.backends.jit.regions import MAX_REGION_NODES, Region, region_interface
from runtime.graph import Graph
from runtime.ops.registry import CONST

# Nodes in merged kernels per compiled function (a merged kernel of 256 nodes with ten
# matmuls compiles in about 3 s, 10 s on a busy machine).
MERGED_NODES_BUDGET = 512
# Regions per merged kernel. Each is a loop nest or a matmul, and Numba's compile time grows
# faster than their number (a Keras model of 101 Dense layers merged into one kernel compiled
# for 10 minutes; in kernels of 8 layers, most of them identical, in 12 s).
# W8's whole training step is 8.
MAX_MERGED_PARTS = 8


@dataclass
class Budget:
    """How many more nodes may go into merged kernels."""

    nodes_left: int = field(default_factory=lambda: MERGED_NODES_BUDGET)


def merge_neighbours(graph: Graph, items: list, budget: Budget) -> list:
    """``items`` (regions of ``graph`` in program order with their sources, and rolled
    chains) with runs of neighbouring regions merged where that is valid and in budget. Each
    run's kernel is written once, when the run is complete."""
    position = {id(node): index for index, node in enumerate(graph.nodes)}
    runs: list[list] = []
    for item in items:
        run = runs[-1] if runs else None
        if isinstance(item, tuple) and run is not None and isinstance(run[0], tuple) \
                and _joins(run, item[0], position, budget):
            run.append(item)
        else:
            runs.append([item])
    return [item for run in runs for item in _merged(graph, run)]


def _joins(run: list, second: Region, position: dict, budget: Budget) -> bool:
    """Whether ``second`` may join the regions of ``run`` (and takes its nodes from the
    budget if so)."""
    regions = [region for region, _ in run]
    size = sum(len(region.nodes) for region in regions) + len(second.nodes)
    parts = sum(region.parts for region in regions) + second.parts
    first = Region([node for region in regions for node in region.nodes])
    if size > MAX_REGION_NODES or parts > MAX_MERGED_PARTS \
            or not _available_at_start(first, second, position):
        return False
    cost = len(second.nodes) + (len(regions[0].nodes) if len(regions) == 1 else 0)
    if cost > budget.nodes_left:
        return False
    budget.nodes_left -= cost
    return True


def _merged(graph: Graph, run: list) -> list:
    """The run as one region with its kernel (the run as it is when it is one item, or when
    the writer fails on the whole: a defect of the writer, the kernels stay apart)."""
    if len(run) == 1:
        return run
    regions = [region for region, _ in run]
    region = Region([node for part in regions for node in part.nodes], merged=True,
                    parts=sum(part.parts for part in regions))
    region_interface(graph, region)
    try:
        source = KernelWriter(region.nodes, region.inputs, region.outputs).write()
    except Exception:  # noqa: BLE001 - see above
        return run
    return [(region, source)]


def _available_at_start(first: Region, second: Region, position: dict) -> bool:
    """Whether everything ``second`` reads exists where ``first`` starts (made before it,
    or by ``first``), so the merged kernel can run there."""
    start = position[id(first.nodes[0])]
    made = {id(v) for node in first.nodes + second.nodes for v in node.outputs}
    return all(id(value) in made or value.node.op is CONST
               or position.get(id(value.node), -1) < start  # graph inputs are not nodes
               for value in second.inputs)
