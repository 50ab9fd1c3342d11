"""Writes the Numba source of one region of a graph.

A region is a list of nodes the tier can compile (see ``regions``). Its kernel takes the
region's inputs as arguments (scalars for 0-d values, C-contiguous arrays otherwise) and
returns the values used outside it. Scalars become local variables; runs of elementwise ops
over arrays of one shape become one loop nest that computes every element through all of them
(no temporary arrays, bias and activation fused into whatever precedes them, reductions folding
the elements as they are made); a matmul becomes a loop nest or a BLAS call; ``cond`` an ``if``
and ``while_loop`` a ``while`` around their inlined subgraphs. Names in the source depend only
on the region's structure, never on node ids, so identical layers of a model write identical
kernels, compiled once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from runtime.backends.jit.c_build import builds_with_c
from runtime.backends.jit.element_rules import (ELEMENT_RULES, NUMPY_LOOPS, ROUNDED_OWN_WAY,
                                                SUPPORTED_DTYPES, element_expression, literal,
                                                numba_type)
from runtime.backends.jit.numpy_blas import numpy_gemm
from runtime.backends.jit.reduction_rules import (element_count, fold_for, is_reduction,
                                                  reduced_axes, run_start)
from runtime.graph import Graph, Node
from runtime.ops.array_ops import EXPAND_DIMS, IDENTITY, RESHAPE, SQUEEZE, TRANSPOSE
from runtime.ops.conversion_ops import CAST
from runtime.ops.linalg_ops import MATMUL
from runtime.ops.math_ops import POW
from runtime.ops.registry import COND, CONST, WHILE_LOOP

# Ops that only give their operand's elements another shape (or order of axes): views in
# kernels, not loops. Reshapes keep the elements' order, so they are a reshape of the data.
RESHAPES = (RESHAPE, SQUEEZE, EXPAND_DIMS)

def why_not(node: Node, exact: bool = False) -> str | None:
    """Why the tier cannot compile ``node`` (None: it can, subgraphs included). ``exact``:
    only into code that gives the NumPy plan's bits, to the last bit."""
    for value in list(node.inputs) + list(node.outputs):
        if value.dtype not in SUPPORTED_DTYPES:
            return f"its dtype {value.dtype.name} is not compiled"
        if value.shape is None or None in value.shape:
            return "a shape is not fully known while tracing"
    if node.op is CONST:
        return None
    if node.stateful or not node.outputs:
        return "it has effects or reads state"
    if node.op is MATMUL:
        return _why_not_matmul(node, exact)
    if node.op in RESHAPES or node.op is TRANSPOSE:
        return None
    if node.op is COND or node.op is WHILE_LOOP:
        for key, sub in node.subgraphs.items():
            for inner in sub.nodes:
                reason = why_not(inner, exact)
                if reason is not None:
                    return f"its {key} holds {inner.op.name}, which cannot be compiled: {reason}"
        return None
    if is_reduction(node.op):
        if node.inputs[0].shape == ():
            return "it reduces a scalar"
        if fold_for(node) is None:
            return f"{node.op.name} of {node.inputs[0].dtype.name} has no compiled form"
        return None
    if node.op not in ELEMENT_RULES and node.op is not POW:
        return f"{node.op.name} has no compiled form yet"
    if exact and node.op in ROUNDED_OWN_WAY and node.outputs[0].dtype.kind == "f" \
            and not (node.op in NUMPY_LOOPS and builds_with_c()):
        with_c = (f"; C kernels call NumPy's own {node.op.name}, given a C compiler and "
                  f"Python's headers" if node.op in NUMPY_LOOPS else "")
        return (f"{node.op.name} may round its last bit differently from NumPy's in compiled "
                f"code, and the default tier keeps the plan's results exactly "
                f"(jit_compile=True compiles it{with_c})")
    args = [f"x{i}" for i in range(len(node.inputs))]
    in_dtypes = [v.dtype for v in node.inputs]
    if element_expression(node.op, args, in_dtypes, node.outputs[0].dtype, node.attrs) is None:
        return (f"{node.op.name} of {', '.join(d.name for d in in_dtypes)} has no compiled form "
                f"that gives NumPy's result")
    return None


def _why_not_matmul(node: Node, exact: bool) -> str | None:
    if len(node.inputs[0].shape) != 2 or len(node.inputs[1].shape) != 2:
        return "only 2-D matmuls are compiled"
    dtype = node.outputs[0].dtype
    if node.inputs[0].dtype != dtype or node.inputs[1].dtype != dtype or dtype.kind == "b":
        return "its operands' dtypes differ or are bool"
    if exact and dtype.kind == "f":
        return _why_not_exact_float_matmul(*node.inputs)
    return None


def _why_not_exact_float_matmul(a, b) -> str | None:
    """Kernels call NumPy's gemm, which gives NumPy's bits only where NumPy calls gemm too:
    it takes dot or gemv for a single row or column, and syrk for ``x @ x.T``, seen from
    the operands' memory (one buffer, read twice), which only distinct memory rules out."""
    (m, k), n = a.shape, b.shape[1]
    if numpy_gemm() is None:
        why = "NumPy's own BLAS was not found, and another one may round differently"
    elif m == 1 or n == 1:
        why = "NumPy computes a product with one row or column by dot or gemv, not gemm"
    elif m == n and k > 0 and not _distinct_memory(a, b):
        why = "NumPy may compute an (m, k) @ (k, m) product by syrk, not gemm"
    else:
        return None
    return f"{why} (the default tier keeps the plan's results exactly; jit_compile=True " \
           f"compiles it)"


def _distinct_memory(a, b) -> bool:
    """Whether the plan holds ``a`` and ``b`` in different buffers: they are not views of
    one value, and one of them is an arithmetic op's new array (arguments and variables'
    values may be one array passed twice)."""
    def root(value):
        while value.node.op in RESHAPES or value.node.op is TRANSPOSE:
            value = value.node.inputs[0]
        return value

    def new_array(value) -> bool:
        op = value.node.op
        return op is MATMUL or (op in ELEMENT_RULES and op not in (IDENTITY, CAST))
    a, b = root(a), root(b)
    return a is not b and (new_array(a) or new_array(b))


@dataclass
class KernelSource:
    """The source of one kernel and the types of its arguments and results."""

    text: str
    arg_types: list = field(default_factory=list)     # (dtype, ndim) per argument
    result_types: list = field(default_factory=list)  # (dtype, shape) per result
    # Functions of ``text`` that ``kernel`` calls (compiled with it, for the types it passes).
    inner_functions: tuple = ()
    arg_shapes: list = field(default_factory=list)   # static shape per argument
    # Whether it calls ``NUMPY_LOOPS``: C kernels run NumPy's own loop (its bits), Numba its
    # own functions (not the plan's bits, so not for the default tier).
    numpy_loops: bool = False


@dataclass
class _Array:
    name: str
    shape: tuple
    layout: str = "C"  # Numba's: "C" and "F" are contiguous, "A" a strided view


@dataclass
class _Nest:
    """Elementwise nodes waiting to be written as one loop nest over ``shape``, and the
    reductions that fold its elements."""

    shape: tuple
    nodes: list = field(default_factory=list)
    reductions: list = field(default_factory=list)
    elements: dict = field(default_factory=dict)  # id(value) -> element variable

    def reduces_into(self, node: Node) -> bool:
        """Whether ``node`` reads a reduction of this nest (known only after the nest)."""
        made = {id(r.outputs[0]) for r in self.reductions}
        return any(id(v) in made for v in node.inputs)


class KernelWriter:
    """Writes one region's kernel (see the module docstring)."""

    def __init__(self, nodes: list[Node], inputs: list, outputs: list):
        self.lines: list[str] = []
        self.bindings: dict[int, object] = {}  # id(value) -> scalar expression or _Array
        self.counter = 0
        self.args: list[str] = []
        self.arg_types: list = []
        self.arg_shapes: list = []
        self.inputs = list(inputs)
        for value in inputs:
            self._bind_argument(value)
        self.nodes, self.outputs = nodes, outputs
        self.numpy_loops = False

    def write(self) -> KernelSource:
        body_start = len(self.lines)
        self.block(self.nodes, "    ", keep=self.outputs)
        results = [self._whole(v) for v in self.outputs]
        self.lines.append("    return (" + "".join(r + ", " for r in results) + ")")
        header = f"def kernel({', '.join(self.args)}):"
        text = "\n".join([header] + self.lines[body_start:]) + "\n"
        return KernelSource(text, self.arg_types, [(v.dtype, v.shape) for v in self.outputs],
                            arg_shapes=self.arg_shapes, numpy_loops=self.numpy_loops)

    # -- names --------------------------------------------------------------------------------

    def fresh(self, prefix: str = "t") -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def _bind_argument(self, value) -> None:
        name = f"a{len(self.args)}"
        self.args.append(name)
        self.arg_types.append((value.dtype, len(value.shape)))
        self.arg_shapes.append(tuple(value.shape))
        self.bindings[id(value)] = name if value.shape == () else _Array(name, value.shape)

    def _binding(self, value):
        if id(value) not in self.bindings and value.node.op is CONST:
            array = value.node.attrs["value"]
            if array.ndim == 0:
                return literal(array[()])
            raise AssertionError("array constants are region inputs")  # regions guarantee it
        return self.bindings[id(value)]

    def _whole(self, value) -> str:
        bound = self._binding(value)
        return bound.name if isinstance(bound, _Array) else bound

    # -- blocks -------------------------------------------------------------------------------

    def block(self, nodes: list[Node], indent: str, keep) -> None:
        """Writes ``nodes``; elementwise runs become nests, flushed before anything else."""
        needed_later = _values_needed_after(nodes, keep)
        nest: _Nest | None = None
        for position, node in enumerate(nodes):
            if node.op is CONST:
                continue
            if nest is not None and nest.reduces_into(node):
                self.flush(nest, indent, needed_later[position - 1])
                nest = None
            if is_reduction(node.op):
                shape = node.inputs[0].shape  # a reduction joins the nest of its operand
            else:
                shape = node.outputs[0].shape if len(node.outputs) == 1 else None
            if node.op in NUMPY_LOOPS:
                self.numpy_loops = True
            if (_is_elementwise(node) and shape != ()) or is_reduction(node.op):
                if nest is not None and nest.shape != shape:
                    self.flush(nest, indent, needed_later[position - 1])
                    nest = None
                nest = nest or _Nest(shape)
                (nest.reductions if is_reduction(node.op) else nest.nodes).append(node)
                continue
            if nest is not None:
                self.flush(nest, indent, needed_later[position - 1])
                nest = None
            if node.op is COND:
                self.cond(node, indent)
            elif node.op is WHILE_LOOP:
                self.while_loop(node, indent)
            elif node.op is MATMUL:
                self.matmul(node, indent)
            elif node.op in RESHAPES or node.op is TRANSPOSE:
                self.view(node, indent)
            elif _is_numpy_loop(node):
                self.numpy_loop(node, indent)
            else:  # a scalar elementwise op
                name = self.fresh()
                scalars = tuple(_is_single(v) for v in node.inputs)
                self.lines.append(f"{indent}{name} = {self._expression(node, self._scalar, scalars)}")
                self.bindings[id(node.outputs[0])] = name
        if nest is not None:
            self.flush(nest, indent, needed_later[len(nodes) - 1])
        if not any(node.op is not CONST for node in nodes):
            self.lines.append(f"{indent}pass")

    def _scalar(self, value) -> str:
        bound = self._binding(value)
        assert not isinstance(bound, _Array), "a scalar op has an array operand"
        return bound

    def _expression(self, node: Node, operand, scalars: tuple) -> str:
        args = [operand(v) for v in node.inputs]
        expression = element_expression(node.op, args, [v.dtype for v in node.inputs],
                                        node.outputs[0].dtype, node.attrs, scalars)
        assert expression is not None, f"{node.op.name} was chosen but has no rule"
        return expression

    # -- elementwise nests --------------------------------------------------------------------

    def flush(self, nest: _Nest, indent: str, needed: set) -> None:
        """Writes the nest: one loop per axis, every node once per element; values needed
        after it are stored in new arrays."""
        stored = [v for n in nest.nodes for v in n.outputs if id(v) in needed]
        accumulators = [self._accumulator(node, indent) for node in nest.reductions]
        for value in stored:
            name = self.fresh()
            self.lines.append(f"{indent}{name} = np.empty({tuple(value.shape)!r}, "
                              f"{numba_type(value.dtype)})")
            self.bindings[id(value)] = _Array(name, value.shape)
        indices = [self.fresh("i") for _ in nest.shape]
        inner = indent
        for index, size in zip(indices, nest.shape):
            self.lines.append(f"{inner}for {index} in range({size}):")
            inner += "    "

        def element(value) -> str:
            if id(value) in nest.elements:
                return nest.elements[id(value)]
            bound = self._binding(value)
            if not isinstance(bound, _Array):
                return bound
            return f"{bound.name}[{_broadcast_index(bound.shape, nest.shape, indices)}]"

        for node in nest.nodes:
            name = self.fresh("e")
            scalars = tuple(_is_single(v) for v in node.inputs)
            self.lines.append(f"{inner}{name} = {self._expression(node, element, scalars)}")
            nest.elements[id(node.outputs[0])] = name
        for value in stored:
            self.lines.append(f"{inner}{self.bindings[id(value)].name}[{', '.join(indices)}] = "
                              f"{nest.elements[id(value)]}")
        for node, accumulator in zip(nest.reductions, accumulators):
            self._fold(node, accumulator, element(node.inputs[0]), indices, inner)
        # Pairwise sums add up each run once its loops end, innermost runs first.
        pairwise = [(run_start(node), node, accumulator)
                    for node, accumulator in zip(nest.reductions, accumulators)
                    if fold_for(node).pairwise]
        for first, node, accumulator in sorted(pairwise, key=lambda entry: -entry[0]):
            self._sum_run(node, accumulator, indices, indent + "    " * first)
        for node, accumulator in zip(nest.reductions, accumulators):
            self._finish(node, accumulator, indent)

    def _accumulator(self, node: Node, indent: str) -> str:
        """Declares the accumulator of a reduction (a scalar when it reduces every axis), and
        for a pairwise sum the buffer that collects each run of terms."""
        fold, name = fold_for(node), self.fresh("r")
        shape = node.inputs[0].shape
        if fold.pairwise:
            run = int(np.prod([shape[axis] for axis in reduced_axes(node)], dtype=np.int64))
            self.lines.append(f"{indent}{name}_run = np.empty({run}, "
                              f"{numba_type(fold.accumulator)})")
        if len(reduced_axes(node)) == len(shape):
            self.lines.append(f"{indent}{name} = {fold.initial}")
        else:
            kept = tuple(1 if axis in reduced_axes(node) else size for axis, size in enumerate(shape))
            self.lines.append(f"{indent}{name} = np.full({kept!r}, {fold.initial}, "
                              f"{numba_type(fold.accumulator)})")
        return name

    def _sum_run(self, node: Node, accumulator: str, indices: list, indent: str) -> None:
        """``accumulator[kept] = 0 + pairwise_sum(run)``: NumPy's order, so its bits."""
        fold, shape, axes = fold_for(node), node.inputs[0].shape, reduced_axes(node)
        run = int(np.prod([shape[axis] for axis in axes], dtype=np.int64))
        total = (f"{numba_type(fold.accumulator)}({fold.initial} + "
                 f"pairwise_sum({accumulator}_run, 0, {run}))")
        if len(axes) == len(shape):
            self.lines.append(f"{indent}{accumulator} = {total}")
            return
        # Kept axes inside the run have size 1 (the layout rule): their index is 0.
        start = run_start(node)
        place = ", ".join("0" if axis in axes or axis > start else index
                          for axis, index in enumerate(indices))
        self.lines.append(f"{indent}{accumulator}[{place}] = {total}")

    def _fold(self, node: Node, accumulator: str, element: str, indices: list, indent: str) -> None:
        fold, axes = fold_for(node), reduced_axes(node)
        if fold.pairwise:
            shape, position = node.inputs[0].shape, "0"
            for axis in axes:
                position = f"({position}) * {shape[axis]} + {indices[axis]}"
            self.lines.append(f"{indent}{accumulator}_run[{position}] = {element}")
            return
        if len(axes) == len(node.inputs[0].shape):
            self.lines.append(f"{indent}{accumulator} = "
                              f"{fold.combine.format(acc=accumulator, x=element)}")
            return
        place = ", ".join("0" if axis in axes else index for axis, index in enumerate(indices))
        current = f"{accumulator}[{place}]"
        self.lines.append(f"{indent}{current} = {fold.combine.format(acc=current, x=element)}")

    def _finish(self, node: Node, accumulator: str, indent: str) -> None:
        fold, value = fold_for(node), node.outputs[0]
        dtype, name = numba_type(value.dtype), self.fresh()
        finished = fold.finish.format(acc=accumulator, count=element_count(node))
        if len(reduced_axes(node)) == len(node.inputs[0].shape):
            if value.shape == ():
                self.lines.append(f"{indent}{name} = {dtype}({finished})")
                self.bindings[id(value)] = name
                return
            self.lines.append(f"{indent}{name} = np.full({tuple(value.shape)!r}, "
                              f"{dtype}({finished}), {dtype})")
        elif fold.accumulator == value.dtype and finished == accumulator:
            self.lines.append(f"{indent}{name} = {accumulator}.reshape({tuple(value.shape)!r})")
        else:  # finished element by element (the helpers take scalars)
            kept = tuple(1 if axis in reduced_axes(node) else size
                         for axis, size in enumerate(node.inputs[0].shape))
            indices, inner = [self.fresh("i") for _ in kept], indent
            self.lines.append(f"{indent}{name} = np.empty({kept!r}, {dtype})")
            for index, size in zip(indices, kept):
                self.lines.append(f"{inner}for {index} in range({size}):")
                inner += "    "
            place = ", ".join(indices)
            each = fold.finish.format(acc=f"{accumulator}[{place}]", count=element_count(node))
            self.lines += [f"{inner}{name}[{place}] = {dtype}({each})",
                           f"{indent}{name} = {name}.reshape({tuple(value.shape)!r})"]
        self.bindings[id(value)] = _Array(name, value.shape)

    # -- matmul, cond, while ------------------------------------------------------------------

    def matmul(self, node: Node, indent: str) -> None:
        """Floats through BLAS (NumPy's own where found: NumPy's bits; faster than loop nests
        even for 20x64 @ 64x64), integers as a loop nest (NumPy has no integer BLAS either;
        both wrap around the same way)."""
        (m, k), (_, n) = node.inputs[0].shape, node.inputs[1].shape
        if node.outputs[0].dtype.kind == "f":  # BLAS reads "C" and "F" arrays as they are
            a, b = (self._contiguous(self._binding(v), "CF") for v in node.inputs)
            out = self.fresh()
            self.lines.append(f"{indent}{out} = {_float_matmul(node.outputs[0].dtype)}({a}, {b})")
            self.bindings[id(node.outputs[0])] = _Array(out, (m, n))
            return
        a, b = (self._binding(v).name for v in node.inputs)
        out, row, inner_index, column, factor = (self.fresh(), self.fresh("i"), self.fresh("i"),
                                                 self.fresh("i"), self.fresh("e"))
        dtype = node.outputs[0].dtype
        target, element = f"{out}[{row}, {column}]", f"{b}[{inner_index}, {column}]"
        update = f"{target} += {factor} * {element}"
        if dtype == np.int64:  # see helpers: Numba's int64 arithmetic may not wrap
            update = f"{target} = wrapping_add({target}, wrapping_mul({factor}, {element}))"
        self.lines += [
            f"{indent}{out} = np.zeros(({m}, {n}), {numba_type(dtype)})",
            f"{indent}for {row} in range({m}):",
            f"{indent}    for {inner_index} in range({k}):",
            f"{indent}        {factor} = {a}[{row}, {inner_index}]",
            f"{indent}        for {column} in range({n}):",
            f"{indent}            {update}",
        ]
        self.bindings[id(node.outputs[0])] = _Array(out, (m, n))

    def numpy_loop(self, node: Node, indent: str) -> None:
        """``np.exp`` (and the rest of ``NUMPY_LOOPS``) on a whole C-contiguous array, as
        the plan calls it: C runs NumPy's own loop over it, which also vectorizes."""
        operand = self._binding(node.inputs[0])
        if operand.layout != "C":
            contiguous = self.fresh()
            self.lines.append(f"{indent}{contiguous} = np.ascontiguousarray({operand.name})")
            operand = _Array(contiguous, operand.shape)
        name = self.fresh()
        self.lines.append(f"{indent}{name} = np.{NUMPY_LOOPS[node.op]}({operand.name})")
        self.bindings[id(node.outputs[0])] = _Array(name, node.outputs[0].shape)

    def view(self, node: Node, indent: str) -> None:
        """A reshape or transpose: a view of its operand, as in NumPy (a single element
        becomes a scalar, and a scalar an array of one element)."""
        value, operand = node.outputs[0], self._binding(node.inputs[0])
        name = self.fresh()
        if value.shape == ():
            index = ", ".join("0" for _ in node.inputs[0].shape)
            self.lines.append(f"{indent}{name} = {operand.name}[{index}]")
            self.bindings[id(value)] = name
            return
        if not isinstance(operand, _Array):
            self.lines.append(f"{indent}{name} = np.full({tuple(value.shape)!r}, {operand}, "
                              f"{numba_type(value.dtype)})")
            self.bindings[id(value)] = _Array(name, value.shape)
            return
        if node.op is TRANSPOSE:
            perm = node.attrs.get("perm")
            perm = tuple(reversed(range(len(operand.shape)))) if perm is None else tuple(perm)
            if perm == tuple(reversed(range(len(perm)))):  # Numba knows .T keeps contiguity
                self.lines.append(f"{indent}{name} = {operand.name}.T")
                layout = {"C": "F", "F": "C"}.get(operand.layout, "A")
            else:
                self.lines.append(f"{indent}{name} = np.transpose({operand.name}, {perm!r})")
                layout = "A"
            self.bindings[id(value)] = _Array(name, value.shape, layout)
            return
        source = self._contiguous(operand, "C")
        self.lines.append(f"{indent}{name} = {source}.reshape({tuple(value.shape)!r})")
        self.bindings[id(value)] = _Array(name, value.shape)

    def _contiguous(self, array: _Array, layouts: str) -> str:
        """``array``'s name, or a contiguous copy's when its layout is not in ``layouts``."""
        if array.layout in layouts:
            return array.name
        return f"np.ascontiguousarray({array.name})"

    def _assign(self, targets: list[str], values: list, indent: str) -> None:
        """Branch results and loop variables: always C arrays, so that Numba gives each
        one type whichever branch or iteration assigned it (views are copied)."""
        if targets:
            self.lines.append(f"{indent}{', '.join(targets)} = "
                              f"{', '.join(self._carried(v) for v in values)}")

    def _carried(self, value) -> str:
        bound = self._binding(value)
        return self._contiguous(bound, "C") if isinstance(bound, _Array) else bound

    def _bind_targets(self, node: Node, targets: list[str]) -> None:
        for name, value in zip(targets, node.outputs):
            self.bindings[id(value)] = name if value.shape == () else _Array(name, value.shape)

    def _bind_parameters(self, sub: Graph, values: list) -> None:
        for placeholder, value in zip(sub.inputs, values):
            self.bindings[id(placeholder)] = self._binding(value)

    def cond(self, node: Node, indent: str) -> None:
        predicate, *operands = node.inputs
        targets = [self.fresh() for _ in node.outputs]
        self.lines.append(f"{indent}if {self._scalar(predicate)}:")
        for key in ("then", "else"):
            if key == "else":
                self.lines.append(f"{indent}else:")
            sub = node.subgraphs[key]
            self._bind_parameters(sub, operands)
            self.block(sub.nodes, indent + "    ", keep=sub.outputs)
            self._assign(targets, sub.outputs, indent + "    ")
        self._bind_targets(node, targets)

    def while_loop(self, node: Node, indent: str) -> None:
        num_vars = node.attrs["num_vars"]
        carried_values, rest = node.inputs[:num_vars], list(node.inputs[num_vars:])
        limit = node.attrs["maximum_iterations"]
        if limit == "input":
            limit, rest = self._scalar(rest[0]), rest[1:]
        carried = [self.fresh("w") for _ in range(num_vars)]
        self._assign(carried, carried_values, indent)
        inner = indent + "    "
        if limit is not None:
            counter = self.fresh("n")
            self.lines.append(f"{indent}{counter} = 0")
        self.lines.append(f"{indent}while True:")
        if limit is not None:
            self.lines += [f"{inner}if {counter} >= {limit}:", f"{inner}    break",
                           f"{inner}{counter} += 1"]
        cond_graph, body_graph = node.subgraphs["cond"], node.subgraphs["body"]
        self._bind_targets(node, carried)
        parameters = list(node.outputs) + rest
        self._bind_parameters(cond_graph, parameters)
        self.block(cond_graph.nodes, inner, keep=cond_graph.outputs)
        self.lines += [f"{inner}if not {self._scalar(cond_graph.outputs[0])}:", f"{inner}    break"]
        self._bind_parameters(body_graph, parameters)
        self.block(body_graph.nodes, inner, keep=body_graph.outputs)
        self._assign(carried, body_graph.outputs, inner)
        self._bind_targets(node, carried)


def _float_matmul(dtype: np.dtype) -> str:
    """NumPy's own gemm (its bits, and faster) where it can be found, else Numba's np.dot."""
    gemm = numpy_gemm()
    if gemm is None:
        return "np.dot"
    return f"numpy_{'s' if dtype == np.float32 else 'd'}gemm_{gemm.abi}"


def _is_single(value) -> bool:
    """One element: NumPy's power treats such an exponent as a scalar (see element_rules)."""
    return math.prod(value.shape) == 1


def _is_elementwise(node: Node) -> bool:
    """Fused into loop nests (``NUMPY_LOOPS`` on arrays are not: see ``numpy_loop``)."""
    return node.op not in (COND, WHILE_LOOP, MATMUL, TRANSPOSE, *RESHAPES) \
        and not is_reduction(node.op) and not _is_numpy_loop(node)


def _is_numpy_loop(node: Node) -> bool:
    return node.op in NUMPY_LOOPS and node.outputs[0].shape != ()


def _broadcast_index(shape: tuple, full: tuple, indices: list[str]) -> str:
    """The index of an operand of ``shape`` at element ``indices`` of ``full`` (NumPy's
    broadcasting: trailing axes line up, an axis of size 1 repeats)."""
    offset = len(full) - len(shape)
    parts = ["0" if size == 1 and full[offset + axis] != 1 else indices[offset + axis]
             for axis, size in enumerate(shape)]
    return ", ".join(parts) if parts else "()"


def _values_needed_after(nodes: list[Node], keep) -> list[set]:
    """For each position, the ids of values made at or before it that a later node (or
    ``keep``) reads: what a nest ending there must store."""
    needed = {id(v) for v in keep}
    result: list[set] = [set() for _ in nodes]
    for position in range(len(nodes) - 1, -1, -1):
        result[position] = set(needed)
        node = nodes[position]
        needed |= {id(v) for v in node.inputs}  # captured values are inputs too
    return result
