"""Writes the Python source of a plan: one line per node, in the order of each block.

Each node becomes one line (``v7 = k7(v3, v5)``) with its kernel and attributes bound ahead of
time as globals of the generated module; constants are pre-placed globals; a value is deleted
right after its last use so large intermediates are freed early. Ops the plan writes out
instead of calling a kernel come from ``runtime.plan_lowering``, groups of lanes from
``runtime.plan_lanes``, variable writes from ``runtime.plan_writes`` and
``runtime.plan_groups``, control flow from ``runtime.plan_control_flow``. Every line maps back
to its node (``line_nodes``), so a failing kernel is reported with the op and the user's line.
"""

from __future__ import annotations

import keyword

import numpy as np

from runtime import plan_lanes, plan_lowering
from runtime.graph import Graph, Node
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP
from runtime.plan_control_flow import ControlFlowEmission, LoopLimit
from runtime.plan_groups import WRITE_LANES
from runtime.plan_source import function_name
from runtime.plan_writes import STORE_UPDATE, update_writer, variable_writer
from runtime.variables import ASSIGN

# Ufuncs written as operators: the same ufunc runs for arrays (ndarray's operators call it),
# and NumPy scalars use their much cheaper scalar arithmetic with identical results. Integer
# arithmetic keeps the ufunc: on scalars NumPy would warn about wrap-around, on arrays not.
_OPERATORS = {np.add: "+", np.subtract: "-", np.multiply: "*", np.true_divide: "/",
              np.floor_divide: "//", np.remainder: "%", np.less: "<", np.less_equal: "<=",
              np.greater: ">", np.greater_equal: ">=", np.equal: "==", np.not_equal: "!=",
              np.bitwise_and: "&", np.bitwise_or: "|", np.bitwise_xor: "^"}
_COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
# Ufuncs given ``out`` by position, which they parse faster than a keyword (NumPy deprecates
# it for maximum and minimum).
_POSITIONAL_OUT = frozenset(_OPERATORS) | {np.negative, np.absolute, np.square, np.sqrt, np.exp,
                                           np.log, np.tanh, np.sin, np.cos, np.reciprocal}
# Constants up to this size are checked for being one value repeated (see array_constant).
_UNIFORM_SIZE = 4096
# Variable writes: their value is not aliased by them (see runtime.plan_writes).
_WRITES = (ASSIGN, WRITE_LANES, STORE_UPDATE)
# Kernels that are neither ufuncs nor marked ``fresh_result`` (a builtin takes no attribute)
# and return a new array every call, which the plan may then write into.
_FRESH_BUILTINS = (np.dot,)


class Emitter(ControlFlowEmission):
    """Writes the Python source of a plan, recursing into control-flow subgraphs."""

    def __init__(self, loop_limit: LoopLimit | None):
        self.loop_limit = loop_limit
        self.lines: list[str] = []
        self.globals: dict[str, object] = {}
        self.line_nodes: dict[int, Node] = {}
        self.names: dict[int, str] = {}  # id(SymbolicTensor) -> Python expression
        # Names are numbered per plan, not by node id: a retrace then writes the same names
        # (and often the same text), instead of new identifiers that Python interns.
        self.numbers: dict[int, int] = {}  # id(Node) -> its number in this plan
        self.in_loop = False
        # Values known to be arrays that no one else holds (made by a ufunc in this plan):
        # an elementwise op may write its result into one that dies there.
        self.fresh: set[int] = set()
        self.shared: set[int] = set()
        # Control flow nested too deep for one Python function, written as functions of their
        # own: (lines, line -> node) each.
        self.parts: list[tuple[list[str], dict[int, Node]]] = []

    def function_source(self, graph: Graph, name: str) -> str:
        params = [f"a{i}" for i in range(len(graph.inputs))]
        for param, value in zip(params, graph.inputs):
            self.names[id(value)] = param
        self.lines.append(f"def {function_name(name)}({', '.join(params)}):")
        scalars = [p for p, value in zip(params, graph.inputs) if value.shape == ()]
        if scalars:  # as NumPy scalars, like the 0-d constants, for the scalar fast path
            self.lines.append(f"    {', '.join(scalars)} = {', '.join(p + '[()]' for p in scalars)}")
        self.loop_limit_prologue()
        self.block(graph, "    ", keep=graph.outputs)
        self.lines.append("    return (" + "".join(self.result_expr(v) + ", " for v in graph.outputs) + ")")
        for lines, line_nodes in self.parts:
            offset = len(self.lines) + 2
            self.lines += ["", ""] + lines
            self.line_nodes.update((line + offset, node) for line, node in line_nodes.items())
        return "\n".join(self.lines) + "\n"

    def number(self, node: Node) -> int:
        """``node``'s number in this plan (1, 2, ... in the order the plan names them)."""
        return self.numbers.setdefault(id(node), len(self.numbers) + 1)

    def output_expr(self, value) -> str:
        name = self.names[id(value)]
        # Constants are shared, read-only arrays; callers get their own copy.
        return f"{name}.copy()" if value.node.op is CONST else name

    def result_expr(self, value) -> str:
        """A result of the whole plan: an argument returned as it is is copied too, or the
        result would change when the caller changes the array they passed."""
        name = self.output_expr(value)
        return f"{name}.copy()" if value.node.op is PLACEHOLDER else name

    def emit(self, line: str, node: Node | None = None) -> None:
        self.lines.append(line)
        if node is not None:
            self.line_nodes[len(self.lines)] = node

    def block(self, graph: Graph, indent: str, keep) -> None:
        """Emits the nodes of ``graph``; values not in ``keep`` are deleted after last use."""
        nodes = plan_lanes.schedule(graph.nodes, keep)
        last_use = _last_uses(nodes, keep)
        lowered: dict[int, object] = {}
        kernels: dict[int, object] = {}
        # Values some consumer may alias (a view from reshape, a loop variable carried as it
        # is, a branch result): never overwritten in place. A variable write copies its value
        # unless it is the value's last use (see runtime.plan_writes).
        shared = self.shared
        for node in nodes:
            op = node.op
            lowered[id(node)] = low = plan_lowering.lower(node)
            if op.kernel is not None or op.bind is not None:
                kernels[id(node)] = kernel = _kernel(node, low)
                if op not in _WRITES and not _is_elementwise(kernel):
                    shared.update(map(id, node.inputs))
            elif op not in _WRITES:
                shared.update(map(id, node.inputs))
        emitted_any = False
        pairs = plan_lowering.paired(nodes, keep)
        done_early = {id(pair.second) for pair in pairs.values()}
        names = self.names
        for position, node in enumerate(nodes):
            if node.op is CONST:
                self.constant(node)
                continue
            emitted_any = True
            dying_values = last_use.get(position, ())
            if id(node) in pairs:
                self.pair(node, pairs[id(node)], indent)
            elif id(node) in done_early:
                pass
            elif (node.op is COND or node.op is WHILE_LOOP) and self.too_deep(indent):
                self.part(node, indent)
            elif node.op is COND:
                self.cond(node, indent)
            elif node.op is WHILE_LOOP:
                self.while_loop(node, indent)
            else:
                written_into = self.call(node, kernels[id(node)], lowered[id(node)], indent,
                                         dying={id(v) for v in dying_values})
                if written_into is not None:  # its name now holds the node's result
                    dying_values = [v for v in dying_values if v is not written_into]
            if not dying_values:
                continue
            # Scalars are not worth a `del` (it costs more than it frees, inside loops too).
            # (A shape of unknown rank, None, may be an array: deleted.)
            dead = [names[id(v)] for v in dying_values
                    if id(v) in names and not names[id(v)].startswith("c")
                    and (v._shape is None or len(v._shape) != 0)]
            if dead:
                self.emit(f"{indent}del {', '.join(dead)}")
        if not emitted_any:
            self.emit(f"{indent}pass")

    def constant(self, node: Node) -> None:
        name = f"c{self.number(node)}"
        value = node.attrs["value"]
        # A 0-d constant as a NumPy scalar: scalar-with-scalar arithmetic and comparisons then
        # take NumPy's scalar fast path (20x cheaper than a ufunc call).
        self.globals[name] = value[()] if value.ndim == 0 else value
        self.names[id(node.outputs[0])] = name

    def call(self, node: Node, kernel, lowered, indent: str, dying: set[int]):
        """Emits ``node`` as one line; returns the dying input whose array (and name) receives
        the result, if one does (then ``del`` of that name would free nothing)."""
        args = [self.names[id(v)] for v in node.inputs]
        number = self.number(node)
        if isinstance(lowered, plan_lowering.Expression):
            targets = self.define(node)
            prefix = f"{targets} = " if targets else ""
            for name, value in lowered.globals.items():
                self.globals[name.format(n=number)] = value
            if lowered.fresh:
                self.fresh.update(id(v) for v in node.outputs if _is_array_shape(v.shape))
            self.emit(f"{indent}{prefix}{lowered.text.format(*args, n=number)}", node)
            return None
        if node.op in _WRITES:
            self.define(node)
            value = id(node.inputs[0])
            # A computed update's value comes from a kernel, which the writer checks itself.
            fresh = value in self.fresh or node.op is STORE_UPDATE
            self.write(node, args, indent,
                       owned=value in dying and fresh and value not in self.shared)
            return None
        array_result = len(node.outputs) == 1 and _is_array_shape(node.outputs[0].shape)
        if isinstance(lowered, plan_lowering.UfuncCall):
            for position, constant in enumerate(lowered.constants):
                args.append(f"k{number}_{position}")
                self.globals[args[-1]] = constant if array_result else constant[()]
        elif array_result and (kernel is np.where or isinstance(kernel, np.ufunc)
                               and kernel.signature is None):
            # Next to an array, a 0-d constant is cheaper to a ufunc (or where) as a 0-d
            # array than as a NumPy scalar (NumPy converts the scalar on every call), and a
            # constant of equal elements that only repeats a value along the others' shape
            # cheaper as one value (a mean's gradient); the bits are the same.
            args = [self.array_constant(v, node) or arg for arg, v in zip(args, node.inputs)]
        elementwise = _is_elementwise(kernel) and len(node.outputs) == 1
        written_into = None
        if elementwise and dying:
            out = node.outputs[0]
            written_into = next((value for value in node.inputs
                                 if id(value) in dying and id(value) in self.fresh
                                 and id(value) not in self.shared and value.dtype == out.dtype
                                 and _same_shape(value._shape, out._shape)), None)
        operator = _OPERATORS.get(kernel) if isinstance(kernel, np.ufunc) else None
        if written_into is not None:
            # An intermediate array that dies here receives the result: no new allocation.
            # The result keeps the array's name, so no second name holds the array past the
            # result's own last use. (``out`` given by position: a keyword costs the ufunc
            # more to parse.)
            buffer = self.names[id(written_into)]
            self.names[id(node.outputs[0])] = targets = buffer
            self.globals[f"k{number}"] = kernel
            out = f", {buffer}" if isinstance(kernel, np.ufunc) and kernel in _POSITIONAL_OUT \
                and len(args) == kernel.nin \
                else f", out={buffer}"
            expression = f"k{number}({', '.join(args)}{out})"
        elif operator is not None and len(args) == 2 and (
                operator in _COMPARISONS or node.outputs[0].dtype.kind in "fc" or self.in_loop):
            expression = f"{args[0]} {operator} {args[1]}"
        elif node.op.bind is None and node.attrs and kernel is not node.op.kernel \
                and all(key.isidentifier() and not keyword.iskeyword(key) for key in node.attrs):
            # The kernel itself, its attributes as keywords: no binding lambda in between.
            self.globals[f"k{number}"] = node.op.kernel
            keywords = []
            for key, value in node.attrs.items():
                self.globals[f"k{number}_{key}"] = value
                keywords.append(f"{key}=k{number}_{key}")
            expression = f"k{number}({', '.join(args + keywords)})"
        else:
            self.globals[f"k{number}"] = kernel
            expression = f"k{number}({', '.join(args)})"
        if written_into is None:
            targets = self.define(node)
        if elementwise or isinstance(kernel, np.ufunc) or kernel in _FRESH_BUILTINS \
                or getattr(kernel, "fresh_result", False):
            self.fresh.update(id(v) for v in node.outputs if _is_array_shape(v.shape))
        self.emit(f"{indent}{targets} = {expression}" if targets else f"{indent}{expression}",
                  node)
        return written_into

    def pair(self, first: Node, pair: plan_lowering.Pair, indent: str) -> None:
        """Two nodes computed by one kernel call, at the first one's place (see
        runtime.plan_lowering.paired); the line maps to the first. A first result left out
        gets no name, so nothing deletes it."""
        number = self.number(first)
        self.globals[f"k{number}"] = pair.kernel
        arguments = [self.names[id(v)] for v in first.inputs]
        for position, value in enumerate(pair.arguments):
            self.globals[f"k{number}_{position}"] = value
            arguments.append(f"k{number}_{position}")
        targets = self.define(pair.second)
        if not pair.only_second:
            targets = f"{self.define(first)}, {targets}"
        self.fresh.update(id(v) for v in pair.second.outputs if _is_array_shape(v.shape))
        if not pair.only_second:
            self.fresh.update(id(v) for v in first.outputs if _is_array_shape(v.shape))
        self.emit(f"{indent}{targets} = k{number}({', '.join(arguments)})", first)

    def array_constant(self, value, node: Node) -> str | None:
        """The name of constant ``value`` as a 0-d array for the ufunc ``node``, when it is
        0-d or repeats one value where ``node``'s other inputs set the shape; else None."""
        if value.node.op is not CONST:
            return None
        name = self.names[id(value)] + "a"
        if name not in self.globals:
            array = value.node.attrs["value"]
            if array.ndim > 0:
                if array.size > _UNIFORM_SIZE \
                        or array.tobytes() != array.reshape(-1)[:1].tobytes() * array.size:
                    self.globals[name] = None  # looked at once: not one value repeated
                    return None
                array = array.reshape(-1)[0:1].reshape(())
            self.globals[name] = array
        if self.globals[name] is None:
            return None
        if value.shape != ():
            others = [v.shape for v in node.inputs if v is not value]
            if not all(map(_is_array_shape, others)) \
                    or np.broadcast_shapes(*others) != tuple(node.outputs[0].shape):
                return None
        return name

    def write(self, node: Node, args: list[str], indent: str, owned: bool) -> None:
        """A variable write, by a writer made for the value's static type (or the writes of a
        group of variables: runtime.plan_lanes; or a computed update: runtime.plan_writes)."""
        name = f"k{self.number(node)}"
        source = node.inputs[0]
        if node.op is WRITE_LANES:
            self.globals[name] = node.attrs["group"].writer(node.attrs["mode"], owned)
        elif node.op is STORE_UPDATE:
            self.globals[name] = update_writer(node.attrs["variable"], node.attrs["mode"], owned)
        else:
            self.globals[name] = variable_writer(node.attrs["variable"], node.attrs["mode"],
                                                 (source.dtype, source.shape), owned)
        self.emit(f"{indent}{name}({', '.join(args)})", node)

    def define(self, node: Node) -> str:
        number = self.number(node)
        if len(node.outputs) == 1:
            names = [f"v{number}"]
        else:
            names = [f"v{number}_{i}" for i in range(len(node.outputs))]
        for name, value in zip(names, node.outputs):
            self.names[id(value)] = name
        if len(names) > 1:
            return ", ".join(names)
        return names[0] if names else ""


def _kernel(node: Node, lowered):
    """What runs ``node``: a lowered ufunc, nothing for an expression (runtime.plan_lowering),
    or its bound kernel."""
    if isinstance(lowered, plan_lowering.UfuncCall):
        return lowered.ufunc
    if isinstance(lowered, plan_lowering.Expression):
        return None
    op = node.op
    if op.bind is None:  # the input types only matter to a kernel bound by its op
        return op.bound_kernel(node.attrs, ())
    return op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in node.inputs])


def _is_elementwise(kernel) -> bool:
    """Kernels that may write their result into one of their inputs (``out=``)."""
    if isinstance(kernel, np.ufunc):
        return kernel.signature is None  # not a generalized ufunc such as matmul
    return getattr(kernel, "writes_out", False)


def _same_shape(a, b) -> bool:
    """``a == b`` for two shapes (ShapeTuples or None), compared as tuples, in C."""
    return a is b or a is not None and b is not None and tuple.__eq__(a, b)


def _is_array_shape(shape) -> bool:
    """A known, non-scalar shape: the value is an array (0-d results are NumPy scalars).
    (By length: a ShapeTuple compared with ``()`` would run its Python ``__eq__``.)"""
    return shape is not None and len(shape) > 0 and None not in shape


def _last_uses(nodes: list, keep) -> dict[int, list]:
    """For each node position, the values of this block whose last use it is."""
    keep_ids = {id(v) for v in keep}
    own = {id(v) for node in nodes for v in node.outputs}
    last: dict[int, tuple[int, object]] = {}
    for position, node in enumerate(nodes):
        for value in node.inputs:
            if id(value) in own and id(value) not in keep_ids:
                last[id(value)] = (position, value)
        for value in node.outputs:  # values nobody reads are dropped at once
            if id(value) not in last and id(value) not in keep_ids:
                last[id(value)] = (position, value)
    by_position: dict[int, list] = {}
    for position, value in last.values():
        by_position.setdefault(position, []).append(value)
    return by_position
