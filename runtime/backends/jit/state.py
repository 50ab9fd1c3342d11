"""Variable reads and writes rearranged so that the arithmetic around them fuses into kernels.

Kernels hold no state: reads and assignments stay on the NumPy plan (where each assignment
is atomic), and every read cuts the elementwise work around it into separate regions. An
optimizer's update reads a slot right after assigning it (Adam's ``m.assign_add(...)`` then
``m / ...``), so without these rewrites one update of one variable becomes three kernels and
three plan steps. Both rewrites keep what every read returns, so results are unchanged.
"""

from __future__ import annotations

from collections import Counter

from runtime.graph import Graph, Node
from runtime.ops.math_ops import ADD, SUBTRACT
from runtime.plan_writes import STORE_UPDATE
from runtime.variables import ASSIGN, READ

# ``assign_add`` and ``assign_sub`` store ``value + delta``/``value - delta`` (same dtype).
_UPDATE_OPS = {"add": ADD, "sub": SUBTRACT}


def forward_assigned_values(graph: Graph) -> None:
    """A read of a variable that this graph assigned before (nothing in between may assign
    it) becomes the assigned value itself; ``assign_add``/``assign_sub`` becomes an explicit
    ``add``/``subtract`` of the value read before and the delta, which kernels compute, and a
    ``store_update`` of its result, which stores it when the variable still holds the value
    read: each update is still atomic on the plan (another thread's update between the two
    is kept, see ``runtime.plan_writes``; the forwarded read then misses it, as a read made a
    moment earlier would). Only where the assigned value has exactly the variable's dtype
    and (known) shape. Each branch and loop body is rewritten on its own, knowing nothing at
    its start."""
    held: dict[int, tuple] = {}  # id(variable) -> (variable, the value it holds now)
    replaced: dict[int, object] = {}  # id(removed read's output) -> the value it stands for
    removed: dict[int, list[Node]] = {}  # id(removed read) -> its control inputs
    placed: list[Node] = []
    added: list[Node] = []  # the updates and reads made here, dropped if nothing reads them
    for node in graph.nodes:
        _redirect(node, replaced, removed)
        for sub in node.subgraphs.values():
            forward_assigned_values(sub)
        if node.subgraphs:
            held = {key: entry for key, entry in held.items() if not _may_assign(node, entry[0])}
        variable = node.attrs.get("variable")
        if node.op is READ and id(variable) in held:
            replaced[id(node.outputs[0])] = held[id(variable)][1]
            removed[id(node)] = node.control_inputs
            continue
        if node.op is READ:
            held[id(variable)] = (variable, node.outputs[0])
        elif node.op is ASSIGN:
            made = _explicit_update(graph, node, held)
            placed += made
            added += made
            value = _stored_value(node, made)
            if made:  # the update is computed (by a kernel), the write only stores it
                old, delta = made[-1].inputs
                node.op, node.inputs = STORE_UPDATE, [value, old, delta]
            if value is not None and _holds_exactly(variable, value):
                held[id(variable)] = (variable, value)
            else:
                held.pop(id(variable), None)
        placed.append(node)
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    graph.nodes = _without_unread(placed, added, graph.outputs)


def _stored_value(assign: Node, made: list[Node]):
    """The value ``assign`` stores, as a value of the graph: the explicit update made for
    it, the assigned value itself, or None (an update without an explicit form)."""
    if made:
        return made[-1].outputs[0]
    return assign.inputs[0] if assign.attrs["mode"] == "assign" else None


def _without_unread(nodes: list[Node], candidates: list[Node], outputs: list) -> list[Node]:
    """``nodes`` without the ``candidates`` whose results nothing reads (an update no later
    read needed, then a read only it needed)."""
    readers = Counter(id(v) for n in nodes for v in n.inputs)
    readers.update(id(outer) for n in nodes for sub in n.subgraphs.values()
                   for outer, _ in sub.captures)
    readers.update(id(v) for v in outputs)
    dropped: set[int] = set()
    for candidate in reversed(candidates):  # an update before the read it alone needed
        if not any(readers[id(v)] for v in candidate.outputs):
            dropped.add(id(candidate))
            readers.subtract(id(v) for v in candidate.inputs)
    return [n for n in nodes if id(n) not in dropped]


def _redirect(node: Node, replaced: dict, removed: dict) -> None:
    node.inputs = [replaced.get(id(v), v) for v in node.inputs]
    for sub in node.subgraphs.values():
        sub.captures = [(replaced.get(id(outer), outer), inner) for outer, inner in sub.captures]
    if any(id(c) in removed for c in node.control_inputs):
        node.control_inputs = list({id(n): n for c in node.control_inputs
                                    for n in removed.get(id(c), [c])}.values())


def _explicit_update(graph: Graph, assign: Node, held: dict) -> list[Node]:
    """For ``assign_add``/``assign_sub`` of a value of the variable's own type: the nodes
    that compute the value it stores, placed before ``assign`` (a read of the old value
    unless ``held`` knows it, then the update, last)."""
    variable, delta = assign.attrs["variable"], assign.inputs[0]
    op = _UPDATE_OPS.get(assign.attrs["mode"])
    if op is None or not _holds_exactly(variable, delta):
        return []
    made = []
    old = held[id(variable)][1] if id(variable) in held else None
    if old is None:
        read = Node(graph, READ, [], {"variable": variable}, [(variable.dtype, variable.shape)],
                    None, assign.location)
        read.control_inputs = list(assign.control_inputs)
        made.append(read)
        old = read.outputs[0]
    try:
        result_type = op.infer(old, delta)
    except Exception:  # noqa: BLE001 - the op refuses these dtypes (bool subtract): leave it
        return []
    if tuple(result_type) != (variable.dtype, variable.shape):
        return []
    return made + [Node(graph, op, [old, delta], {}, [result_type], None, assign.location)]


def _holds_exactly(variable, value) -> bool:
    return value.dtype == variable.dtype and value.shape == variable.shape


def hoist_variable_reads(graph: Graph) -> None:
    """Each read of a variable moves up to just after the last node before it that may
    assign that variable: it reads the same value there, and the elementwise work that
    uses it (an optimizer's update of many variables) is no longer cut into a region per
    read. Reads inside branches and loops stay where they are."""
    placed: list[Node] = []
    for node in graph.nodes:
        variable = node.attrs.get("variable") if node.op.reads_variable else None
        if variable is None:
            placed.append(node)
            continue
        position = len(placed)
        while position > 0 and not _may_assign(placed[position - 1], variable):
            position -= 1
        placed.insert(position, node)
        # Its order is now explicit in the node list: keep only control inputs before it.
        before = {id(n) for n in placed[:position]}
        node.control_inputs = [c for c in node.control_inputs if id(c) in before]
    graph.nodes = placed


def _may_assign(node: Node, variable) -> bool:
    candidates = [node] + [inner for sub in node.subgraphs.values() for inner in sub.walk()]
    return any(n.effect and n.attrs.get("variable") is variable and not n.op.reads_variable
               for n in candidates)
