"""Lanes: the same elementwise update of many variables, computed once on their concatenation.

An optimizer updates every variable with the same ops: Adam's ``m.assign_add((g - m) * c)``
is two ufunc calls and a write per variable, and on the small arrays of a training step the
calls cost more than the arithmetic. This rewrite of a plan's block finds such updates and
runs each op once over all variables (superword-level parallelism, on the graph):

1. Seeds: writes (``assign``, ``assign_add``, ``assign_sub``) of a value of exactly the
   variable's dtype and shape.
2. A seed's tree: the elementwise ops its value is computed by, as far as their results serve
   that write alone, over arrays of the variable's shape and over scalars. Its leaves are
   variable reads and other arrays (a gradient from a matmul).
3. Seeds of the same mode and dtype whose trees are the same (ops, scalars, which leaves are
   used twice) and that write distinct variables are the lanes of a group: each op of the tree
   runs once on the lanes' flat concatenation, reads of the lanes' variables become one read
   of their group, other leaves one ``concatenate``, and the writes one write of the group
   (see ``runtime.plan_groups``, which makes repeated reads and writes of a group cheap).
4. The block is scheduled again: the group's nodes where its last lane's were, every other
   node in its order, a variable's reads and writes in their order, and other effects (prints,
   asserts, control flow that reads variables) where they were relative to all of them. A
   group that cannot be placed so (one lane needs another's write) is left as it was.

Only ufuncs that compute each element alone and exactly (``+ - * /``, ``sqrt``, ``square``,
comparisons, ...) are grouped: their bits do not depend on how many elements one call
processes, so the results are the plan's bits. A group is made only where it saves calls:
at least one op, and more calls saved than concatenations added.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from runtime import plan_lowering
from runtime.graph import Node
from runtime.ops.registry import CONST
from runtime.plan_groups import GATHER_LANES, READ_LANES, WRITE_LANES, VariableGroup
from runtime.variables import ASSIGN, READ

# Ufuncs whose every element is computed from that element alone and rounded exactly.
_EXACT = frozenset({np.add, np.subtract, np.multiply, np.true_divide, np.sqrt, np.square,
                    np.negative, np.positive, np.absolute, np.maximum, np.minimum, np.fmax,
                    np.fmin, np.less, np.less_equal, np.greater, np.greater_equal, np.equal,
                    np.not_equal, np.logical_and, np.logical_or, np.logical_not, np.floor,
                    np.ceil, np.trunc, np.rint, np.copysign, np.sign})
_MODES = ("assign", "add", "sub")


def schedule(nodes: list, keep) -> list:
    """``nodes`` (a block of a plan, ``keep``: its results) with the groups of lanes found in
    it computed once each; ``nodes`` itself when there are none."""
    seeds = [node for node in nodes if node.op is ASSIGN and _is_seed(node)]
    kinds: dict = {}
    for seed in seeds:
        kind = (seed.attrs["mode"], seed.attrs["variable"].dtype)
        kinds[kind] = kinds.get(kind, 0) + 1
    seeds = [seed for seed in seeds
             if kinds[seed.attrs["mode"], seed.attrs["variable"].dtype] > 1]
    if not seeds:
        return nodes
    block = _Block(nodes, keep)
    groups = _groups([_Lane.of(seed, block) for seed in seeds])
    if not groups:
        return nodes
    scheduled = _Rewrite(block, groups).scheduled()
    if scheduled is not None:
        return scheduled
    accepted: list = []  # some group needs another's lane first: keep those that fit
    for group in groups:
        if _Rewrite(block, [*accepted, group]).scheduled() is not None:
            accepted.append(group)
    return _Rewrite(block, accepted).scheduled() if accepted else nodes


def _is_seed(node: Node) -> bool:
    """A write of exactly the variable's type, real or integer (a complex product is not one
    rounding: its SIMD loops need not give the bits of a loop over fewer elements)."""
    variable, value = node.attrs["variable"], node.inputs[0]
    shape = value._shape
    return node.attrs["mode"] in _MODES and value.dtype == variable.dtype \
        and variable.dtype.kind in "fiu" \
        and shape is not None and len(shape) > 0 and None not in shape \
        and tuple(shape) == tuple(variable.shape)


class _Block:
    """The facts about a block the rewrite asks for: positions, consumers, exact ops."""

    def __init__(self, nodes: list, keep):
        self.nodes = nodes
        self.position = {id(node): i for i, node in enumerate(nodes)}
        self.consumers: dict[int, list] = {id(v): [None] for v in keep}  # None: the block's result
        for node in nodes:
            for value in node.inputs:
                self.consumers.setdefault(id(value), []).append(node)
        self._exact: dict[int, bool] = {}

    def liftable(self, node: Node, shape: tuple) -> bool:
        """Whether ``node`` is an exact elementwise op of this block over arrays of ``shape``
        (its result too) and scalars."""
        exact = self._exact.get(id(node))
        if exact is None:
            exact = self._exact[id(node)] = id(node) in self.position \
                and _exact_ufunc(node) is not None
        return exact and tuple(node.outputs[0]._shape) == shape and all(
            v._shape is not None and (len(v._shape) == 0 or tuple(v._shape) == shape)
            for v in node.inputs)


def _exact_ufunc(node: Node):
    """The exact ufunc the plan would call for ``node``, or None."""
    if node.attrs or node.subgraphs or node.stateful or len(node.outputs) != 1 \
            or node.outputs[0]._shape is None:
        return None
    lowered = plan_lowering.lower(node)
    if isinstance(lowered, plan_lowering.UfuncCall):
        kernel = lowered.ufunc
    elif lowered is None and node.op.kernel is not None:
        kernel = node.op.bound_kernel(node.attrs, [(v.dtype, v._shape) for v in node.inputs])
    else:
        return None
    return kernel if isinstance(kernel, np.ufunc) and kernel in _EXACT else None


class _Lane:
    """One seed and its tree, in a canonical form: ``keys`` (one per value of the tree, inputs
    first) and ``values`` (the seed's value for each key)."""

    def __init__(self, seed: Node, keys: tuple, values: list, internal: list):
        self.seed = seed
        self.variable = seed.attrs["variable"]
        self.signature = (seed.attrs["mode"], seed.attrs["variable"].dtype, keys)
        self.values = values
        self.internal = internal  # the tree's op nodes

    @classmethod
    def of(cls, seed: Node, block: _Block) -> "_Lane":
        internal = _tree(seed, tuple(seed.attrs["variable"].shape), block)
        keys: list = []
        values: list = []
        numbers: dict[int, int] = {}

        def key_of(value):
            if value._shape is not None and len(value._shape) == 0:
                node = value.node
                if node.op is CONST:
                    array = node.attrs["value"]
                    return ("const", array.dtype.str, array.tobytes())
                return ("scalar", id(value))
            number = numbers.get(id(value))
            if number is not None:
                return number
            node = value.node
            if id(node) in internal:
                key = ("op", node.op, value.dtype.str, tuple(key_of(v) for v in node.inputs))
            elif node.op is READ:
                key = ("read", value.dtype.str)
            else:
                key = ("leaf", value.dtype.str, node.op is CONST)
            numbers[id(value)] = len(keys)
            keys.append(key)
            values.append(value)
            return numbers[id(value)]

        key_of(seed.inputs[0])
        return cls(seed, tuple(keys), values, list(internal.values()))


def _tree(seed: Node, shape: tuple, block: _Block) -> dict[int, Node]:
    """The exact elementwise ops over arrays of ``shape`` and scalars that compute ``seed``'s
    value and nothing else: id -> node. Looked at from the last node back, so that every
    consumer of a node is decided before the node is."""
    internal: dict[int, Node] = {}
    position, nodes, consumers = block.position, block.nodes, block.consumers
    root = position.get(id(seed.inputs[0].node))
    pending = [-root] if root is not None else []
    queued = set(pending)
    while pending:
        node = nodes[-heapq.heappop(pending)]
        if not block.liftable(node, shape) or not all(
                user is seed or (user is not None and id(user) in internal)
                for user in consumers[id(node.outputs[0])]):
            continue
        internal[id(node)] = node
        for value in node.inputs:
            at = position.get(id(value.node))
            if at is not None and len(value._shape) > 0 and -at not in queued:
                queued.add(-at)
                heapq.heappush(pending, -at)
    return internal


def _groups(lanes: list) -> list[list[_Lane]]:
    """Lanes of the same signature writing distinct variables, where grouping pays."""
    by_signature: dict = {}
    for lane in lanes:
        groups = by_signature.setdefault(lane.signature, [])
        for group in groups:
            if all(other.variable is not lane.variable for other in group):
                group.append(lane)
                break
        else:
            groups.append([lane])
    found = []
    for groups in by_signature.values():
        for group in groups:
            keys = group[0].signature[2]
            ops = sum(1 for key in keys if key[0] == "op")
            gathers = sum(1 for key in keys if key[0] == "leaf" and not key[2])
            if len(group) > 1 and ops > 0 and (len(group) - 1) * (ops + 1) > 2 * gathers:
                found.append(group)
    return found


class _Rewrite:
    """The nodes of some groups, and the block scheduled with them."""

    def __init__(self, block: _Block, groups: list[list[_Lane]]):
        self.block = block
        self.new: list[Node] = []
        self.priority: dict[int, int] = {}  # id(new node) -> where its lanes' last node was
        self.stands_for: dict[int, list[Node]] = {}  # id(original access) -> new nodes doing it
        self.removed: set[int] = set()
        self._made: dict[tuple, object] = {}  # see _once
        for group in groups:
            self.add(group)
        self._remove_unread()

    def add(self, lanes: list[_Lane]) -> None:
        size = sum(math.prod(lane.variable.shape) for lane in lanes)
        flat: list = []
        first = lanes[0]
        for index, key in enumerate(first.signature[2]):
            column = [lane.values[index] for lane in lanes]
            if key[0] == "op":
                node = column[0].node
                inputs = [flat[k] if isinstance(k, int) else value
                          for k, value in zip(key[3], node.inputs)]
                value = self._node(node.op, inputs, {}, [(column[0].dtype, (size,))],
                                   node.location, [v.node for v in column])
            elif key[0] == "read":
                value = self._read(column, size)
            else:
                value = self._gather(column, size)
            flat.append(value)
        for lane in lanes:
            self.removed.update(id(node) for node in lane.internal)
            self.removed.add(id(lane.seed))
        write = self._node(WRITE_LANES, [flat[-1]],
                           {"group": self._group([lane.variable for lane in lanes]),
                            "mode": first.seed.attrs["mode"]},
                           [], first.seed.location, [lane.seed for lane in lanes], node_only=True)
        for lane in lanes:
            self.stands_for.setdefault(id(lane.seed), []).append(write)

    def _node(self, op, inputs, attrs, out_types, location, lanes, node_only=False):
        node = Node(lanes[0].graph, op, inputs, attrs, out_types, None, location)
        self.new.append(node)
        self.priority[id(node)] = max(self.block.position.get(id(n), -1) for n in lanes)
        return node if node_only else node.outputs[0]

    def _once(self, kind: str, items: list, make):
        """``make()``, made once per kind and items (by identity)."""
        key = (kind, *map(id, items))
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = make()
        return made

    def _group(self, variables: list) -> VariableGroup:
        return self._once("group", variables, lambda: VariableGroup(variables))

    def _read(self, column: list, size: int):
        return self._once("read", column, lambda: self._new_read(column, size))

    def _new_read(self, column: list, size: int):
        reads = [v.node for v in column]
        group = self._group([node.attrs["variable"] for node in reads])
        value = self._node(READ_LANES, [], {"group": group}, [(column[0].dtype, (size,))],
                           reads[0].location, reads)
        for node in reads:
            self.stands_for.setdefault(id(node), []).append(value.node)
        return value

    def _gather(self, column: list, size: int):
        return self._once("gather", column, lambda: self._new_gather(column, size))

    def _new_gather(self, column: list, size: int):
        nodes = [v.node for v in column]
        if not all(node.op is CONST for node in nodes):
            return self._node(GATHER_LANES, column, {}, [(column[0].dtype, (size,))],
                              nodes[0].location, nodes)
        array = np.concatenate([node.attrs["value"] for node in nodes], None)
        constant = nodes[0].graph.make_constant(array, nodes[0].location)
        self.new.append(constant)
        self.priority[id(constant)] = -1
        return constant.outputs[0]

    def _remove_unread(self) -> None:
        """Reads and constants whose every use was grouped are not run any more."""
        removed = self.removed
        used = {id(v) for node in self.new for v in node.inputs}
        for node in self.block.nodes:
            if (node.op is READ or node.op is CONST) and id(node) not in removed \
                    and id(node.outputs[0]) not in used:
                users = self.block.consumers.get(id(node.outputs[0]), [None])
                if all(user is not None and id(user) in removed for user in users):
                    removed.add(id(node))

    def scheduled(self) -> list[Node] | None:
        """The block's kept nodes and the new ones in an order that keeps every dependence,
        as close to the original order as it can; None when there is none (a cycle)."""
        block, removed = self.block, self.removed
        kept = [node for node in block.nodes if id(node) not in removed]
        priority = {id(node): block.position[id(node)] for node in kept}
        priority.update(self.priority)
        # Each new node where its lanes' last node was: its inputs come before it (a lane's
        # inputs come before the lane), and kept nodes read only kept nodes' values.
        order = sorted(kept + self.new, key=lambda node: priority[id(node)])
        at = {id(node): i for i, node in enumerate(order)}
        if all(at[id(before)] < at[id(after)] for before, after in self._access_order()):
            return order
        return self._reordered(kept, priority)

    def _reordered(self, kept: list, priority: dict) -> list[Node] | None:
        """The nodes ordered by their dependences, data and accesses (a variable's reads and
        writes moved apart by a group), closest to ``priority`` first; None for a cycle."""
        units = kept + self.new
        producer = {id(v): node for node in units for v in node.outputs}
        successors: dict[int, set] = {id(node): set() for node in units}
        predecessors: dict[int, int] = {}

        def edge(before: Node, after: Node) -> None:
            if before is not after and id(after) not in successors[id(before)]:
                successors[id(before)].add(id(after))
                predecessors[id(after)] = predecessors.get(id(after), 0) + 1

        for node in units:
            for value in node.inputs:
                source = producer.get(id(value))
                if source is not None:
                    edge(source, node)
        for before, after in self._access_order():
            edge(before, after)
        by_id = {id(node): node for node in units}
        rank = {id(node): i for i, node in enumerate(units)}  # ties: in the list's order
        ready = [(priority[id(n)], rank[id(n)], id(n)) for n in units
                 if predecessors.get(id(n), 0) == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            _, _, key = heapq.heappop(ready)
            order.append(by_id[key])
            for after in successors[key]:
                predecessors[after] -= 1
                if predecessors[after] == 0:
                    heapq.heappush(ready, (priority[after], rank[after], after))
        return order if len(order) == len(units) else None

    def _access_order(self):
        """(before, after) pairs of the nodes that must keep their order: each variable's
        writes against its reads and writes, and other effects against every access."""
        removed = self.removed
        last_write: dict[int, list] = {}  # id(variable) -> nodes of its last write
        reads: dict[int, list] = {}  # id(variable) -> nodes of its reads since then
        since_barrier: list = []
        barrier = None
        for node in self.block.nodes:
            if not node.stateful:
                continue
            doing = ([] if id(node) in removed else [node]) + self.stands_for.get(id(node), [])
            if node.op is READ or node.op is ASSIGN:
                variable = id(node.attrs["variable"])
                for before in last_write.get(variable, ()):
                    yield from ((before, after) for after in doing)
                if node.op is ASSIGN:
                    for before in reads.pop(variable, ()):
                        yield from ((before, after) for after in doing)
                    last_write[variable] = doing
                else:
                    reads.setdefault(variable, []).extend(doing)
                if barrier is not None:
                    yield from ((barrier, after) for after in doing)
                since_barrier.extend(doing)
            else:  # an effect of another kind: everything stays on its side of it
                yield from ((before, node) for before in since_barrier)
                if barrier is not None:
                    yield barrier, node
                barrier, since_barrier = node, []
