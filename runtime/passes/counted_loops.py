"""Counted integer reductions become array code, under a run-time guard.

    for i in range(start, bound):      # a while_loop: i < bound, i = i + 1
        s = s + f(i)                   # f: integer elementwise ops of i and loop invariants

equals ``s + reduce_sum(f(range(start, bound)))`` exactly: integer addition wraps around
modulo 2**bits, which does not depend on the order of the terms, and integer elementwise ops
give the same bits on an array as on each scalar. Floats never qualify (their sums depend on
the order), nor do ops that may raise. The loop becomes

    fits = counted_range_fits(start, bound)    # length <= VECTORIZED_MAX_LENGTH, bound reachable
    cond(fits, then: the reduction on range(start, bound), else: the loop as it was)

so memory stays bounded for long ranges, and the loop is kept when the counter's dtype cannot
reach the bound (an int32 counter below an int64 bound past 2**31 wraps around and the loop
never ends: no value would be the loop's result). Only loops outside loop bodies are
rewritten (an array per iteration of an enclosing loop costs more than it saves). The pass
runs once, after the other passes reach their fixed point (see ``pipeline``): the loop it
keeps in the ``else`` branch would match again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime import dtypes
from runtime.graph import Graph, Node
from runtime.ops.array_ops import IDENTITY, RANGE
from runtime.ops.conversion_ops import CAST
from runtime.ops.math_ops import (ABS, ADD, BITWISE_AND, BITWISE_OR, BITWISE_XOR, LESS, MAXIMUM,
                                  MINIMUM, MULTIPLY, NEGATIVE, SQUARE, SUBTRACT)
from runtime.ops.reduce_ops import REDUCE_SUM
from runtime.ops.registry import COND, CONST, NOT_DIFFERENTIABLE, WHILE_LOOP, OpDef, register
from runtime.passes.rewrite import Rewrite, rewrite

# Ranges up to this long run as array code; longer ones keep their loop.
VECTORIZED_MAX_LENGTH = 1 << 16

# Ops a term may use: elementwise, integer-exact, never raising (CAST between integers).
_TERM_OPS = frozenset({ADD, SUBTRACT, MULTIPLY, NEGATIVE, SQUARE, ABS, MAXIMUM, MINIMUM,
                       BITWISE_AND, BITWISE_OR, BITWISE_XOR, IDENTITY, CAST})


def _bind_range_fits(attrs, input_types):
    # As Python ints: the difference of two int64 values may not fit in int64.
    max_length, counter_max = attrs["max_length"], attrs["counter_max"]
    if counter_max is None:
        return lambda start, bound: int(bound) - int(start) <= max_length
    return lambda start, bound: int(bound) - int(start) <= max_length and int(bound) <= counter_max


# The guard of a rewritten loop: whether ``range(start, bound)`` has at most ``max_length``
# elements and, when ``counter_max`` is not None, ``bound`` does not exceed it.
RANGE_FITS = register(OpDef("counted_range_fits", None,
                            lambda start, bound, max_length, counter_max: (dtypes.bool_, ()),
                            bind=_bind_range_fits, gradient=NOT_DIFFERENTIABLE))


def run(graph: Graph) -> list[str]:
    """Rewrites the counted reductions of ``graph`` and its cond branches; returns one line per
    loop."""
    return rewrite(graph, _rewrite, enter=lambda node: node.op is not WHILE_LOOP,
                   ops=frozenset({WHILE_LOOP}))


@dataclass(frozen=True)
class CountedReduction:
    index: int                 # position of the counter among the loop variables
    bound: object              # the cond subgraph's value the counter is compared with
    terms: dict                # accumulator position -> body value added to it each iteration
    term_nodes: tuple          # body nodes computing the terms, in program order
    counter_max: int | None    # the bound must not exceed it (None: the bound's dtype cannot)
    wide: np.dtype             # holds every value of the counter's and the bound's dtypes


def recognize(node: Node) -> CountedReduction | None:
    """The counted reduction ``node`` (a while_loop) computes, or None."""
    if node.op is not WHILE_LOOP or node.attrs["maximum_iterations"] is not None:
        return None
    count = node.attrs["num_vars"]
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    tests = [n for n in cond.nodes if n.op is not CONST]
    if len(tests) != 1 or tests[0].op is not LESS or cond.outputs[0] is not tests[0].outputs[0]:
        return None
    counter, bound = tests[0].inputs
    index = _position(counter, cond.inputs)
    if index is None or index >= count or _position(bound, cond.inputs[:count]) is not None \
            or not _integral_scalar(counter) or not _integral_scalar(bound):
        return None
    wide = np.promote_types(counter.dtype, bound.dtype)
    if wide.kind not in "iu":  # uint64 next to a signed dtype: no integer holds both
        return None
    params = body.inputs
    if not _is_increment(body.outputs[index], params[index]):
        return None
    terms, cone = {}, set()
    for position in range(count):
        if position == index or body.outputs[position] is params[position]:
            continue
        term = _term_of(body.outputs[position], params[position])
        if term is None or not _integral_scalar(params[position]) \
                or term.dtype != params[position].dtype:
            return None
        nodes = _cone(term, params, index, count)
        reads_counter = term is params[index] or any(_reads(n, params[index]) for n in nodes or ())
        if nodes is None or not reads_counter:
            return None
        terms[position] = term
        cone |= {id(n) for n in nodes}
    if not terms:
        return None
    kept = {id(body.outputs[index].node)} | {id(body.outputs[p].node) for p in terms}
    for inner in body.nodes:  # nothing else may happen in the body
        if inner.op is not CONST and id(inner) not in cone | kept:
            return None
    term_nodes = tuple(n for n in body.nodes if id(n) in cone)
    return CountedReduction(index, bound, terms, term_nodes, _counter_max(counter, bound), wide)


def _rewrite(node: Node) -> Rewrite | None:
    reduction = recognize(node)
    if reduction is None:
        return None
    graph, location = node.graph, node.location
    start, (bound, nodes) = node.inputs[reduction.index], _outer(node, reduction.bound)
    guard = Node(graph, RANGE_FITS, [start, bound],
                 {"max_length": VECTORIZED_MAX_LENGTH, "counter_max": reduction.counter_max},
                 [(dtypes.bool_, ())], None, location)
    branches = {"then": _vectorized(node, reduction), "else": _looped(node)}
    choice = Node(graph, COND, [guard.outputs[0], *node.inputs], {},
                  [(v.dtype, v.shape) for v in node.outputs], branches, location)
    return Rewrite(f"counted reduction over range({start.name}, {bound.name}) as array code "
                   f"when it has at most {VECTORIZED_MAX_LENGTH} elements",
                   choice.outputs, [*nodes, guard, choice])


def _branch(node: Node, name: str) -> tuple[Graph, list]:
    """A cond branch taking ``node``'s inputs as its parameters."""
    branch = Graph(f"{name}_{node.id}", node.graph)
    params = [branch.add_placeholder(v.dtype, v.shape, f"capture{i}") for i, v in enumerate(node.inputs)]
    branch.captures = list(zip(node.inputs, params))
    return branch, params


def _vectorized(node: Node, reduction: CountedReduction) -> Graph:
    """The loop's results computed on ``range(start, bound)`` at once."""
    branch, params = _branch(node, "counted_reduction")
    body, location = node.subgraphs["body"], node.location
    for position, outer in enumerate(node.inputs):
        if outer.node.op is CONST:  # as a constant here too, for the passes that follow
            constant = branch.make_constant(outer.node.attrs["value"], location)
            branch.nodes.append(constant)
            params[position] = constant.outputs[0]
    counter = params[reduction.index]
    values = {id(body_param): param for body_param, param in zip(body.inputs, params)}

    def add(op, inputs, attrs, dtype, shape) -> object:
        new = Node(branch, op, inputs, attrs, [(dtype, shape)], None, location)
        branch.nodes.append(new)
        return new.outputs[0]

    def value(v):
        if id(v) not in values:  # a constant of the body
            constant = branch.make_constant(v.node.attrs["value"], location)
            branch.nodes.append(constant)
            values[id(v)] = constant.outputs[0]
        return values[id(v)]

    def widened(v):
        return v if v.dtype == reduction.wide else add(CAST, [v], {"dtype": reduction.wide},
                                                         reduction.wide, ())

    bound = value(reduction.bound) if reduction.bound.node.op is CONST else \
        params[_position(reduction.bound, node.subgraphs["cond"].inputs)]
    step = branch.make_constant(np.array(1, counter.dtype), location)
    branch.nodes.append(step)
    values[id(body.inputs[reduction.index])] = add(RANGE, [counter, bound, step.outputs[0]],
                                                   {"dtype": counter.dtype}, counter.dtype, (None,))
    for term_node in reduction.term_nodes:
        inputs = [value(v) for v in term_node.inputs]
        shape = (None,) if any(v.shape == (None,) for v in inputs) else ()
        values[id(term_node.outputs[0])] = add(term_node.op, inputs, dict(term_node.attrs),
                                               term_node.outputs[0].dtype, shape)
    outputs = list(params[:node.attrs["num_vars"]])
    last = add(MAXIMUM, [widened(counter), widened(bound)], {}, reduction.wide, ())
    outputs[reduction.index] = last if last.dtype == counter.dtype else \
        add(CAST, [last], {"dtype": counter.dtype}, counter.dtype, ())
    for position, term in reduction.terms.items():
        total = add(REDUCE_SUM, [values[id(term)]], {"axis": None, "keepdims": False}, term.dtype, ())
        first, _ = body.outputs[position].node.inputs  # keeps the loop's operand order
        operands = [params[position], total] if first is body.inputs[position] else [total, params[position]]
        outputs[position] = add(ADD, operands, {}, term.dtype, ())
    branch.outputs = outputs
    return branch


def _looped(node: Node) -> Graph:
    """The loop itself, moved into a branch."""
    branch, params = _branch(node, "loop")
    moved = {id(outer): param for outer, param in zip(node.inputs, params)}
    loop = Node(branch, WHILE_LOOP, params, dict(node.attrs), [(v.dtype, v.shape) for v in node.outputs],
                node.subgraphs, node.location)
    for sub in node.subgraphs.values():
        sub.parent = branch
        sub.captures = [(moved[id(outer)], inner) for outer, inner in sub.captures]
    for old, new in zip(node.outputs, loop.outputs):
        new.weak = old.weak
    branch.nodes.append(loop)
    branch.outputs = list(loop.outputs)
    return branch


def _outer(node: Node, value) -> tuple[object, list[Node]]:
    """The value of ``node``'s graph that the cond subgraph's ``value`` stands for, and the
    nodes to add for it (a constant is copied)."""
    if value.node.op is CONST:
        constant = node.graph.make_constant(value.node.attrs["value"], node.location)
        return constant.outputs[0], [constant]
    return node.inputs[_position(value, node.subgraphs["cond"].inputs)], []


def _counter_max(counter, bound) -> int | None:
    """The largest bound the counter reaches without wrapping around, when the bound's dtype
    holds larger values."""
    if np.can_cast(bound.dtype, counter.dtype, "safe"):
        return None
    return int(np.iinfo(counter.dtype).max)


def _integral_scalar(value) -> bool:
    return value.shape == () and value.dtype.kind in "iu"


def _constant(value):
    return value.node.attrs["value"] if value.node.op is CONST else None


def _is_increment(value, param) -> bool:
    node = value.node
    if node.op is not ADD or len(node.inputs) != 2:
        return False
    a, b = node.inputs
    other = b if a is param else a if b is param else None
    step = None if other is None else _constant(other)
    return step is not None and step.ndim == 0 and step == 1 and value.dtype == param.dtype


def _term_of(value, param):
    """``t`` when ``value`` is ``param + t`` or ``t + param``."""
    node = value.node
    if node.op is not ADD or value.dtype != param.dtype:
        return None
    a, b = node.inputs
    if a is param and b is not param:
        return b
    if b is param and a is not param:
        return a
    return None


def _cone(term, params, index: int, count: int) -> list[Node] | None:
    """The body nodes ``term`` is computed from, if they read only the counter, loop
    invariants (captures) and constants, with integer elementwise ops."""
    nodes, stack, seen = [], [term], set()
    while stack:
        value = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        position = _position(value, params)
        invariant = position is not None and position >= count  # a capture
        if value.node.op is CONST or position == index or invariant:
            continue
        node = value.node
        if position is not None or node.op not in _TERM_OPS or node.subgraphs or node.stateful \
                or any(v.dtype.kind not in "iu" for v in [*node.outputs, *node.inputs]):
            return None
        nodes.append(node)
        stack.extend(node.inputs)
    return nodes


def _position(value, values) -> int | None:
    """Where ``value`` is in ``values``, by identity (tensors overload ``==``)."""
    return next((i for i, v in enumerate(values) if v is value), None)


def _reads(node: Node, value) -> bool:
    return any(v is value for v in node.inputs)
