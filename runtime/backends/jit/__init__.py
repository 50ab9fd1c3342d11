"""The compiled tier: regions of a graph compiled to machine code by the machine's C compiler
or by Numba (an optional extra, ``pip install "eager2graph[jit]"``; see ``kernels``), the
rest on the NumPy plan.

``JIT.compile(graph, name)`` copies the optimized graph, replaces each region the tier can
run (see ``regions``) by a ``compiled_region`` node calling its kernel, and builds the NumPy
plan of the result. ``JIT_EXACT`` compiles only what gives the plan's bits exactly (C kernels
call NumPy's own loops for exp, log, sin and the like; without C these stay on the plan):
the background tier of ``jit_compile=None`` uses it, so a function's results never depend on
when, or whether, the tier took over. Compile cost grows with the kinds of work, not the
graph's size: kernels are keyed by their source, which identical layers share, and cached on
disk.
"""

from __future__ import annotations

import importlib.util
import warnings

from runtime.backends.jit.codegen import KernelWriter
from runtime.backends.jit.counted import prefer_loops
from runtime.backends.jit.decompositions import decompose
from runtime.backends.jit.c_build import builds_with_c
from runtime.backends.jit.kernels import NotTaken, compile_kernels
from runtime.backends.jit.merging import Budget, merge_neighbours
from runtime.backends.jit.rolling import Chain, chain_region, group_chains, rolled_source
from runtime.backends.jit.regions import (COMPILED_REGION, hoist_constants, partition,
                                          region_interface, replace_region)
from runtime.backends.jit.state import forward_assigned_values, hoist_variable_reads
from runtime.errors import CompileWarning
from runtime.executor import Plan
from runtime.graph import Graph

INSTALL_HINT = 'pip install "eager2graph[jit]"'


def available() -> bool:
    """Whether kernels can be compiled: by Numba (found without importing it) or by the
    machine's C compiler."""
    return importlib.util.find_spec("numba") is not None or builds_with_c()


class CompiledPlan:
    """The NumPy plan of a graph whose compilable regions run as compiled kernels."""

    def __init__(self, graph: Graph, name: str, exact: bool = False, numba: bool = True,
                 build: bool = True, quick: bool = False):
        """``numba``: False leaves the kernels the C compiler does not take on the plan;
        ``build``: False raises ``NotBuilt`` where a C module is not on disk yet; ``quick``:
        C builds at the optimization of builds a running program waits for."""
        if not available():
            raise ImportError(f"jit_compile=True needs a compiler for its kernels: Numba "
                              f"(install it with {INSTALL_HINT}) or a C compiler with Python's "
                              f"headers; or pass jit_compile=None to compile only when one is "
                              f"there.")
        self.exact = exact
        self.graph = graph.copy()
        prefer_loops(self.graph, exact)
        forward_assigned_values(self.graph)
        hoist_variable_reads(self.graph)
        decompose(self.graph, exact)
        found = partition(self.graph, exact)
        self.kernels = []
        replaced: dict = {}
        budget = Budget()
        planned = []
        for owner, items in _by_graph(found.regions, found.refused):
            for item in merge_neighbours(owner, group_chains(owner, items), budget):
                if isinstance(item, Chain):
                    planned.append((owner, chain_region(owner, item), rolled_source(item)))
                else:
                    planned.append((owner, *item))
        outcomes = compile_kernels([source for _, _, source in planned], numba, exact,
                                   build, quick)
        for (owner, region, _), outcome in zip(planned, outcomes):
            if isinstance(outcome, PermissionError):
                raise outcome  # the cache directory: the user has to act
            if isinstance(outcome, NotTaken):
                found.refused.extend((node, str(outcome)) for node in region.nodes)
            elif isinstance(outcome, Exception):  # the region stays on the plan
                _give_up(region, outcome, found.refused)
            else:
                replace_region(owner, region, outcome, replaced)
                self.kernels.append((region, outcome))
        for node in self.graph.walk():
            for sub in node.subgraphs.values():
                hoist_constants(sub)
        hoist_constants(self.graph)
        self.refused = found.refused
        self.plan = Plan(self.graph, name)
        self.run = self.plan.run
        self.translate_error = self.plan.translate_error
        kernel_sources = {repr(k): k.source.text for _, k in self.kernels}
        self.source = self.plan.source + "".join(
            f"\n# {name}\n{text}" for name, text in kernel_sources.items())

    @property
    def report(self) -> str:
        """Which parts of the graph run compiled, which stay on NumPy, and why."""
        distinct = {repr(k) for _, k in self.kernels}
        lines = [f"compiled tier: {_count(len(self.kernels), 'region')}, "
                 f"{_count(len(distinct), 'distinct kernel')}"
                 + (" (exact: the plan's bits)" if self.exact else "")]
        for region, kernel in self.kernels:
            first = region.nodes[0]
            ops = sorted({n.op.name for n in region.nodes})
            built_by = "C" if kernel.compiler == "c" else "Numba"
            lines.append(f"  {kernel!r}: {len(region.nodes)} nodes ({', '.join(ops)}) "
                         f"from {first.location_text()}, built by {built_by}")
        if self.refused:
            lines.append("left on the NumPy plan:")
            lines += [f"  {node.op.name} {node.reference()} at {node.location_text()}: {reason}"
                      for node, reason in self.refused]
        return "\n".join(lines)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" + ("" if number == 1 else "s")


def _by_graph(regions, refused: list) -> list:
    """The regions of each graph in program order, with their interfaces and kernels (a
    region whose kernel cannot be written stays on the plan)."""
    grouped: dict[int, tuple] = {}
    for owner, region in regions:
        region_interface(owner, region)
        try:
            source = KernelWriter(region.nodes, region.inputs, region.outputs).write()
        except Exception as error:  # noqa: BLE001 - the region stays on the plan
            _give_up(region, error, refused)
            continue
        grouped.setdefault(id(owner), (owner, []))[1].append((region, source))
    return list(grouped.values())


def _give_up(region, error: Exception, refused: list) -> None:
    """A region the tier chose but could not compile: a defect of the tier, never of the
    user's program, so its nodes run on the NumPy plan with the same results, and a warning
    names where they came from."""
    reason = f"its kernel failed to compile ({type(error).__name__}: {str(error).splitlines()[0]})"
    refused.extend((node, reason) for node in region.nodes)
    warnings.warn(f"the compiled tier could not compile the ops from "
                  f"{region.nodes[0].location_text()} ({reason}); they run on the NumPy plan "
                  f"with the same results. Please report this with the function.",
                  CompileWarning, stacklevel=2)


class CompiledTierBackend:
    """Compiles graphs into ``CompiledPlan``s (``exact``: see ``JIT_EXACT``)."""

    def __init__(self, exact: bool):
        self.exact = exact
        self.name = "jit-exact" if exact else "jit"

    def compile(self, graph: Graph, name: str, numba: bool = True, build: bool = True,
                quick: bool = False) -> CompiledPlan:
        return CompiledPlan(graph, name, self.exact, numba, build, quick)


JIT = CompiledTierBackend(exact=False)
JIT_EXACT = CompiledTierBackend(exact=True)

__all__ = ["JIT", "JIT_EXACT", "COMPILED_REGION", "CompiledPlan", "available", "INSTALL_HINT"]
