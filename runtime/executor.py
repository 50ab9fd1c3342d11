"""Compiles a graph into a Python function: straight-line code, no per-call graph walking.

Each node becomes one line (``v7 = k7(v3, v5)``) with its kernel and attributes bound ahead of
time as a global of the generated module; constants are pre-placed globals; a ``cond`` becomes
an ``if``/``else`` and a ``while_loop`` a ``while`` around the inlined subgraphs; a value is
deleted right after its last use so large intermediates are freed early. The generated source
is registered with ``linecache`` so tracebacks show it (plans of the same text share one entry,
which goes with the last of them), and every line maps back to its node, so a failing kernel is
reported with the op and the user's line that created it.

A plan may be given a ``LoopLimit`` (graphs from untrusted files): every loop iteration then
counts against a budget shared by all loops of the call and checks a deadline, so a loop that
never ends stops with ``LoopLimitError`` in any thread. Without one, no check is emitted.
"""

from __future__ import annotations

import functools
import itertools
import keyword
import linecache
import threading
import time
import weakref
from dataclasses import dataclass
from types import TracebackType
from typing import Callable

import numpy as np

from runtime import numpy_warnings, plan_lanes, plan_lowering
from runtime.errors import (AssertionFailedError, InvalidArgumentError, LoopLimitError,
                            OutOfRangeError)
from runtime.graph import Graph, Node
from runtime.ops.registry import COND, CONST, PLACEHOLDER, WHILE_LOOP
from runtime.plan_groups import WRITE_LANES
from runtime.plan_writes import variable_writer
from runtime.tensor import EagerTensor
from runtime.variables import ASSIGN

_plan_ids = itertools.count(1)

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
# Branches and loops nested deeper than this in one generated function go to a function of
# their own (CPython allows 20 nested loops and 100 levels of indentation per function).
_MAX_NESTING = 10
# A plan with a time limit reads the clock every this many loop iterations (reading it costs
# more than a cheap iteration).
_CLOCK_EVERY = 64
# Variable writes: their value is not aliased by them (see runtime.plan_writes).
_WRITES = (ASSIGN, WRITE_LANES)


@dataclass(frozen=True)
class LoopLimit:
    """How long one call may loop: ``max_iterations`` loop iterations (all loops together) and
    ``seconds`` of time; None leaves that bound off."""

    max_iterations: int | None = None
    seconds: float | None = None

    def stopped(self, node: Node, bound: str) -> LoopLimitError:
        """The error of the loop ``node`` reaching ``bound`` ("iterations" or "seconds")."""
        where = node.location.describe() if node.location else "an unknown location"
        if bound == "iterations":
            option, value = "max_loop_iterations", self.max_iterations
            spent = f"ran {value} loop iterations"
        else:
            option, value = "loop_time_limit", self.seconds
            spent = f"ran for {value} seconds"
        return LoopLimitError(
            f"the while_loop {node.reference()} was stopped: this call {spent}, the limit it was "
            f"loaded with ({option}={value} of rt.load), and the loop may never end. If the "
            f"graph needs more, load it with a larger {option}.\n  The loop was created at {where}")


class Plan:
    """An executable form of a graph: ``plan(*input_arrays) -> tuple of output arrays``."""

    def __init__(self, graph: Graph, name: str, loop_limit: LoopLimit | None = None):
        self.graph = graph
        emitter = _Emitter(loop_limit)
        self.source = emitter.function_source(graph, name)
        self._line_nodes = emitter.line_nodes
        source = _shared_source(name, self.source)
        self.filename = source.filename
        self._namespace = namespace = dict(emitter.globals)
        # The linecache entry lives as long as the plan's functions (their globals hold it),
        # so tracebacks show the source while they can point at it, and no longer.
        namespace["__eager2graph_source__"] = source
        # NumPy's warnings from a line of the plan are issued at the user's line of its node.
        namespace[numpy_warnings.PLAN_LINES] = self._line_nodes
        exec(compile(self.source, self.filename, "exec"), namespace)
        self.run: Callable = numpy_warnings.reporting(namespace[_safe(name)])

    def node_for_traceback(self, traceback: TracebackType | None) -> Node | None:
        """The node whose line of generated code was executing when an error was raised."""
        node = None
        while traceback is not None:
            if traceback.tb_frame.f_globals is self._namespace:
                node = self._line_nodes.get(traceback.tb_lineno, node)
            traceback = traceback.tb_next
        return node

    def translate_error(self, error: BaseException) -> BaseException:
        """A kernel error rewritten to say which op failed and where the user created it."""
        node = self.node_for_traceback(error.__traceback__)
        if node is None or isinstance(error, LoopLimitError):  # it names the loop itself
            return error
        where = node.location.describe() if node.location else "an unknown location"
        if isinstance(error, (AssertionFailedError, OutOfRangeError)):
            translated = type(error)(f"{error}\n  Assertion created at {where}")
        else:
            translated = InvalidArgumentError(
                f"{node.op.name} (node {node.value_name(0) if node.outputs else '%' + str(node.id)}) "
                f"failed while running the graph: {error}\n  The op was created at {where}")
        translated.node = node
        return translated


def _safe(name: str) -> str:
    """``name`` as a Python identifier (names of loaded functions are any string: ``"x²"``)."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    return "plan_" + cleaned


class _SharedSource:
    """The ``linecache`` entry of a plan's source. Plans with the same text share one: a
    function retraced for each value of a Python number makes the same text every time (its
    values are globals of the plan, its names are numbered per plan), and a file name per
    trace would pile up in caches that outlive the plans (``tracemalloc`` keeps every file
    name that ever ran)."""

    __slots__ = ("filename", "__weakref__")

    def __init__(self, filename: str, source: str):
        self.filename = filename
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)

    def __del__(self):
        cache = getattr(linecache, "cache", None)  # None while the interpreter shuts down
        if cache is not None:
            cache.pop(self.filename, None)


# (name, source) -> its entry, while a plan made from that text lives.
_sources: "weakref.WeakValueDictionary[tuple[str, str], _SharedSource]" = \
    weakref.WeakValueDictionary()
_sources_lock = threading.Lock()


def _shared_source(name: str, source: str) -> _SharedSource:
    with _sources_lock:
        entry = _sources.get((name, source))
        if entry is None:
            entry = _SharedSource(f"<eager2graph plan {next(_plan_ids)}: {name}>", source)
            _sources[name, source] = entry
        return entry


class _Emitter:
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
        self.lines.append(f"def {_safe(name)}({', '.join(params)}):")
        scalars = [p for p, value in zip(params, graph.inputs) if value.shape == ()]
        if scalars:  # as NumPy scalars, like the 0-d constants, for the scalar fast path
            self.lines.append(f"    {', '.join(scalars)} = {', '.join(p + '[()]' for p in scalars)}")
        limit = self.loop_limit
        if limit is not None and limit.max_iterations is not None:
            self.lines.append(f"    budget = {int(limit.max_iterations)}")
        if limit is not None and limit.seconds is not None:
            self.globals.update(clock=time.monotonic, seconds=limit.seconds)
            self.lines.append("    deadline, tick = clock() + seconds, 0")
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
        lowered = {id(node): plan_lowering.lower(node) for node in nodes}
        kernels = {id(node): _kernel(node, lowered[id(node)]) for node in nodes
                   if node.op.kernel is not None or node.op.bind is not None}
        # Values some consumer may alias (a view from reshape, a loop variable carried as it
        # is, a branch result): never overwritten in place. A variable write copies its value
        # unless it is the value's last use (see runtime.plan_writes).
        self.shared |= {id(v) for node in nodes for v in node.inputs
                        if node.op not in _WRITES and (
                            id(node) not in kernels or not _is_elementwise(kernels[id(node)]))}
        emitted_any = False
        pairs = plan_lowering.paired(nodes, keep)
        done_early = {id(pair.second) for pair in pairs.values()}
        for position, node in enumerate(nodes):
            if node.op is CONST:
                self.constant(node)
                continue
            emitted_any = True
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
                self.call(node, kernels[id(node)], lowered[id(node)], indent,
                          dying={id(v) for v in last_use.get(position, ())})
            # Scalars are not worth a `del` (it costs more than it frees, inside loops too).
            dead = [self.names[id(v)] for v in last_use.get(position, ())
                    if id(v) in self.names and not self.names[id(v)].startswith("c")
                    and v.shape != ()]
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

    def call(self, node: Node, kernel, lowered, indent: str, dying: set[int]) -> None:
        args = [self.names[id(v)] for v in node.inputs]
        targets = self.define(node)
        number = self.number(node)
        prefix = f"{targets} = " if targets else ""
        if isinstance(lowered, plan_lowering.Expression):
            for name, value in lowered.globals.items():
                self.globals[name.format(n=number)] = value
            if lowered.fresh:
                self.fresh.update(id(v) for v in node.outputs if _is_array_shape(v.shape))
            self.emit(f"{indent}{prefix}{lowered.text.format(*args, n=number)}", node)
            return
        if node.op in _WRITES:
            self.write(node, args[0], indent, owned=id(node.inputs[0]) in dying
                       and id(node.inputs[0]) in self.fresh and id(node.inputs[0]) not in self.shared)
            return
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
        reusable = [arg for arg, value in zip(args, node.inputs)
                    if elementwise and id(value) in dying and id(value) in self.fresh
                    and id(value) not in self.shared
                    and (value.dtype, value.shape) == (node.outputs[0].dtype, node.outputs[0].shape)]
        operator = _OPERATORS.get(kernel) if isinstance(kernel, np.ufunc) else None
        if reusable:
            # An intermediate array that dies here receives the result: no new allocation.
            # (``out`` given by position: a keyword costs the ufunc more to parse.)
            self.globals[f"k{number}"] = kernel
            out = f", {reusable[0]}" if isinstance(kernel, np.ufunc) and kernel in _POSITIONAL_OUT \
                and len(args) == kernel.nin \
                else f", out={reusable[0]}"
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
        if elementwise or isinstance(kernel, np.ufunc) or getattr(kernel, "fresh_result", False):
            self.fresh.update(id(v) for v in node.outputs if _is_array_shape(v.shape))
        self.emit(f"{indent}{prefix}{expression}", node)

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

    def write(self, node: Node, value: str, indent: str, owned: bool) -> None:
        """A variable write, by a writer made for the value's static type (or the writes of a
        group of variables: runtime.plan_lanes)."""
        name = f"k{self.number(node)}"
        source = node.inputs[0]
        if node.op is WRITE_LANES:
            self.globals[name] = node.attrs["group"].writer(node.attrs["mode"], owned)
        else:
            self.globals[name] = variable_writer(node.attrs["variable"], node.attrs["mode"],
                                                 (source.dtype, source.shape), owned)
        self.emit(f"{indent}{name}({value})", node)

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

    def too_deep(self, indent: str) -> bool:
        """Whether a branch or loop at ``indent`` would nest past what one Python function
        allows (20 nested loops, 100 levels of indentation). Plans with a loop limit keep
        their counters in locals, so loaded graphs are refused that deep instead."""
        return self.loop_limit is None and len(indent) // 4 >= _MAX_NESTING

    def part(self, node: Node, indent: str) -> None:
        """``node`` (a cond or while_loop) as a module-level function of the values it reads,
        called here: its nesting starts again at the top of that function."""
        name = f"part_{self.number(node)}"
        params = list(dict.fromkeys(self.names[id(v)] for v in node.inputs))
        outer = self.lines, self.line_nodes
        self.lines, self.line_nodes = [f"def {name}({', '.join(params)}):"], {}
        (self.cond if node.op is COND else self.while_loop)(node, "    ")
        results = "".join(self.names[id(v)] + ", " for v in node.outputs)
        self.lines.append(f"    return ({results})")
        self.parts.append((self.lines, self.line_nodes))
        self.lines, self.line_nodes = outer
        call = f"{name}({', '.join(params)})"
        self.emit(f"{indent}{results}= {call}" if results else f"{indent}{call}", node)

    def bind_params(self, sub: Graph, expressions: list[str]) -> None:
        for placeholder, expression in zip(sub.inputs, expressions):
            self.names[id(placeholder)] = expression

    def cond(self, node: Node, indent: str) -> None:
        pred, *inputs = [self.names[id(v)] for v in node.inputs]
        targets = self.define(node)
        self.emit(f"{indent}if {pred}:", node)
        for key in ("then", "else"):
            if key == "else":
                self.emit(f"{indent}else:", node)
            sub = node.subgraphs[key]
            self.bind_params(sub, inputs)
            self.block(sub, indent + "    ", keep=sub.outputs)
            if targets:
                results = ", ".join(self.output_expr(v) for v in sub.outputs)
                self.emit(f"{indent}    {targets} = {results}")

    def while_loop(self, node: Node, indent: str) -> None:
        if self.in_loop:
            self.loop_statement(node, indent)
            return
        # Loops run integer arithmetic on NumPy scalars too (see _OPERATORS), silencing the
        # wrap-around warnings that array arithmetic would not give.
        self.globals["errstate"] = np.errstate
        self.emit(f'{indent}with errstate(over="ignore"):', node)
        self.in_loop = True
        try:
            self.loop_statement(node, indent + "    ")
        finally:
            self.in_loop = False

    def loop_statement(self, node: Node, indent: str) -> None:
        num_vars = node.attrs["num_vars"]
        names = [self.names[id(v)] for v in node.inputs]
        rest = names[num_vars:]
        limit = node.attrs["maximum_iterations"]
        if limit == "input":
            limit, rest = rest[0], rest[1:]
        carried = [f"w{self.number(node)}_{i}" for i in range(num_vars)]
        for name, value in zip(carried, node.outputs):
            self.names[id(value)] = name
        inner = indent + "    "
        if carried:
            initial = ", ".join(self.output_expr(v) for v in node.inputs[:num_vars])
            self.emit(f"{indent}{', '.join(carried)} = {initial}", node)
        counter = f"n{self.number(node)}"
        if limit is not None:
            self.emit(f"{indent}{counter} = 0")
        self.emit(f"{indent}while True:", node)
        if limit is not None:
            self.emit(f"{inner}if {counter} >= {limit}:")
            self.emit(f"{inner}    break")
            self.emit(f"{inner}{counter} += 1")
        cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]
        self.bind_params(cond_graph, carried + rest)
        self.block(cond_graph, inner, keep=cond_graph.outputs)
        self.emit(f"{inner}if not {self.names[id(cond_graph.outputs[0])]}:", node)
        self.emit(f"{inner}    break")
        if self.loop_limit is not None:
            self.limit_check(node, inner)
        self.bind_params(body_graph, carried + rest)
        self.block(body_graph, inner, keep=body_graph.outputs)
        if carried:
            results = ", ".join(self.output_expr(v) for v in body_graph.outputs)
            self.emit(f"{inner}{', '.join(carried)} = {results}")

    def limit_check(self, node: Node, indent: str) -> None:
        """Counts the iteration against the call's budget and checks its deadline."""
        stop = f"stop{self.number(node)}"
        self.globals[stop] = functools.partial(self.loop_limit.stopped, node)
        if self.loop_limit.max_iterations is not None:
            self.emit(f"{indent}budget -= 1")
            self.emit(f"{indent}if budget < 0:")
            self.emit(f'{indent}    raise {stop}("iterations")', node)
        if self.loop_limit.seconds is not None:  # the clock is read every _CLOCK_EVERY iterations
            self.emit(f"{indent}tick -= 1")
            self.emit(f"{indent}if tick < 0:")
            self.emit(f"{indent}    tick = {_CLOCK_EVERY - 1}")
            self.emit(f"{indent}    if clock() > deadline:")
            self.emit(f'{indent}        raise {stop}("seconds")', node)


def _kernel(node: Node, lowered):
    """What runs ``node``: a lowered ufunc, nothing for an expression (runtime.plan_lowering),
    or its bound kernel."""
    if isinstance(lowered, plan_lowering.UfuncCall):
        return lowered.ufunc
    if isinstance(lowered, plan_lowering.Expression):
        return None
    return node.op.bound_kernel(node.attrs, [(v.dtype, v.shape) for v in node.inputs])


def _is_elementwise(kernel) -> bool:
    """Kernels that may write their result into one of their inputs (``out=``)."""
    if isinstance(kernel, np.ufunc):
        return kernel.signature is None  # not a generalized ufunc such as matmul
    return getattr(kernel, "writes_out", False)


def _is_array_shape(shape) -> bool:
    """A known, non-scalar shape: the value is an array (0-d results are NumPy scalars)."""
    return shape is not None and shape != () and None not in shape


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


def wrap_outputs(arrays) -> list:
    return [EagerTensor(a if type(a) is np.ndarray else np.asarray(a)) for a in arrays]
