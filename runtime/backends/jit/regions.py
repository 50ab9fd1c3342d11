"""Finding the parts of a graph the compiled tier runs, and replacing each by one node.

A region is a run of nodes in program order that the tier can compile (``codegen.why_not``) and
whose operands all exist when the run starts, so the ``compiled_region`` node that replaces it
can stand where its first node stood. Loops, branches and matmuls start new regions, and
regions are short, so a kernel is one kind of work that repeats (a layer) rather than the whole
graph. A region is kept only where a kernel call pays off: it holds a loop or an integer
matmul, or at least two ops on arrays (a single elementwise op or float matmul is one NumPy
call either way). Control flow the tier cannot compile as a whole is searched for regions
inside its branches and bodies. Everything else stays on the NumPy plan, and each refused node
keeps its reason for the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runtime.backends.jit.codegen import why_not
from runtime.graph import Graph, Node
from runtime.ops.linalg_ops import MATMUL
from runtime.ops.registry import COND, CONST, NOT_DIFFERENTIABLE, WHILE_LOOP, OpDef, register


# Longer runs are split. Up to this size, bigger kernels cost less to compile in all than
# the pieces they replace, and run faster (W7's elementwise physics: 7 kernels of 32 nodes
# compiled in 7.9 s and ran in 68 us; 1 kernel in 5.2 s and 27 us).
MAX_REGION_NODES = 256


def _bind_region(attrs, input_types):
    return attrs["kernel"].run


# A region of the graph run by one compiled kernel (only in graphs the compiled tier made for
# itself: never traced, saved or differentiated).
COMPILED_REGION = register(OpDef("compiled_region", None, None, bind=_bind_region,
                                 gradient=NOT_DIFFERENTIABLE))


@dataclass
class Region:
    nodes: list[Node] = field(default_factory=list)
    inputs: list = field(default_factory=list)    # the values the kernel's arguments stand for
    outputs: list = field(default_factory=list)
    # What the region's node passes for ``inputs``, in its own graph (a constant array inside
    # a branch or loop body gets a copy there); None: ``inputs`` themselves.
    operands: list | None = None
    merged: bool = False  # made by joining neighbouring regions (see ``merging``)
    parts: int = 1  # the regions joined into this one


@dataclass
class Partition:
    """The regions found in a graph and every node left on the NumPy plan, with why."""

    regions: list[tuple[Graph, Region]] = field(default_factory=list)
    refused: list[tuple[Node, str]] = field(default_factory=list)


def partition(graph: Graph, exact: bool = False, found: Partition | None = None) -> Partition:
    """The regions of ``graph`` and of the subgraphs of the control flow left out of them
    (``exact``: see ``why_not``)."""
    found = found or Partition()
    made_before: set[int] = {id(v) for v in graph.inputs}
    current: Region | None = None
    available: set[int] = set()  # values that existed when ``current`` started
    made_in_current: set[int] = set()
    for node in graph.nodes:
        if node.op is CONST:
            continue  # constants are hoisted to the top of the rewritten graph
        reason = why_not(node, exact)
        if reason is None:
            operands = {id(v) for v in node.inputs if v.node.op is not CONST}
            if current is None or not operands <= (available | made_in_current) \
                    or _starts_region(node) or len(current.nodes) >= MAX_REGION_NODES:
                _close(graph, current, found)
                current, available, made_in_current = Region(), set(made_before), set()
            current.nodes.append(node)
            made_in_current.update(id(v) for v in node.outputs)
        else:
            found.refused.append((node, reason))
            for sub in node.subgraphs.values():
                partition(sub, exact, found)
        made_before.update(id(v) for v in node.outputs)
    _close(graph, current, found)
    return found


def _starts_region(node: Node) -> bool:
    """Loops, branches and matmuls each begin a region (a matmul's elementwise epilogue
    joins it): the layers of an unrolled model then make many small identical kernels,
    compiled once, instead of one kernel as long as the model."""
    return node.op is MATMUL or node.op is WHILE_LOOP or node.op is COND


def _close(graph: Graph, region: Region | None, found: Partition) -> None:
    if region is None:
        return
    if not _pays_off(region.nodes):
        found.refused.extend((node, "too little work to pay for a kernel call")
                             for node in region.nodes)
        return
    found.regions.append((graph, region))


def _pays_off(nodes: list[Node]) -> bool:
    array_ops = 0
    for node in nodes:
        if node.op is WHILE_LOOP or (node.op is MATMUL and node.outputs[0].dtype.kind != "f"):
            return True  # a float matmul alone is one BLAS call either way
        if node.op is COND:
            if any(_pays_off(sub.nodes) for sub in node.subgraphs.values()):
                return True
        elif node.op is not CONST and any(v.shape != () for v in node.inputs + node.outputs):
            array_ops += 1
    return array_ops >= 2


def _walk(nodes: list[Node]):
    for node in nodes:
        yield node
        for sub in node.subgraphs.values():
            yield from _walk(sub.nodes)


def region_interface(graph: Graph, region: Region) -> None:
    """Fills in what ``region`` reads from outside (array constants anywhere inside it
    included: kernels receive them as arguments) and which of its values are read after it."""
    inside = {id(v) for node in region.nodes for v in node.outputs}
    members = {id(node) for node in region.nodes}
    inputs: dict[int, object] = {}
    for node in _walk(region.nodes):
        # A branch or loop body may also return a constant array as it is.
        returned = [v for sub in node.subgraphs.values() for v in sub.outputs]
        for value in node.inputs + returned:
            is_array_constant = value.node.op is CONST and value.shape != ()
            outer = id(value) not in inside and value.node.graph is graph \
                and value.node.op is not CONST
            if is_array_constant or outer:
                inputs.setdefault(id(value), value)
    region.inputs = list(inputs.values())
    region.operands = [value if value.node.graph is graph else _copied_constant(graph, value)
                       for value in region.inputs]
    read_later = {id(v) for node in graph.nodes if id(node) not in members for v in node.inputs}
    read_later |= {id(v) for v in graph.outputs}
    region.outputs = [v for node in region.nodes for v in node.outputs if id(v) in read_later]


def _copied_constant(graph: Graph, value):
    constant = graph.make_constant(value.node.attrs["value"], value.node.location)
    graph.nodes.insert(0, constant)
    return constant.outputs[0]


def replace_region(graph: Graph, region: Region, kernel, replaced: dict) -> Node:
    """Puts one ``compiled_region`` node running ``kernel`` where the region's first node
    was, and makes every later reader use its outputs. ``replaced`` maps the values of
    regions replaced before to their new values (it is updated)."""
    operands = region.inputs if region.operands is None else region.operands
    inputs = [replaced.get(id(v), v) for v in operands]
    node = Node(graph, COMPILED_REGION, inputs, {"kernel": kernel},
                [(v.dtype, v.shape) for v in region.outputs], None, region.nodes[0].location)
    members = {id(n) for n in region.nodes}
    replaced.update({id(old): new for old, new in zip(region.outputs, node.outputs)})
    position = graph.nodes.index(region.nodes[0])
    graph.nodes = [n for n in graph.nodes[:position] if id(n) not in members] + [node] + \
                  [n for n in graph.nodes[position:] if id(n) not in members]
    for reader in graph.nodes:
        reader.inputs = [replaced.get(id(v), v) for v in reader.inputs]
        for sub in reader.subgraphs.values():
            sub.captures = [(replaced.get(id(outer), outer), inner) for outer, inner in sub.captures]
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    return node


def hoist_constants(graph: Graph) -> None:
    """Constants first: a region node may stand before a constant it reads."""
    graph.nodes = [n for n in graph.nodes if n.op is CONST] + \
                  [n for n in graph.nodes if n.op is not CONST]
