"""The default backend: the graph as generated straight-line Python on NumPy kernels (see
``runtime.executor``), the reference for exact results."""

from __future__ import annotations

from runtime.executor import Plan
from runtime.graph import Graph


class NumpyPlanBackend:
    """Compiles a graph into a ``Plan``; its ``source`` is the generated Python."""

    name = "numpy"

    def compile(self, graph: Graph, name: str) -> Plan:
        return Plan(graph, name)


NUMPY = NumpyPlanBackend()
