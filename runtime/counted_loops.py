"""Recognizing counted integer reductions, which the executor runs as array code.

    for i in range(start, bound):      # a while_loop: i < bound, i = i + 1
        s = s + f(i)                   # f: integer elementwise ops of i and loop invariants

equals ``s + sum(f(arange(start, bound)))`` exactly: integer addition wraps around modulo
2**bits, which does not depend on the order of the terms, and integer elementwise ops give
the same bits on an array as on each scalar. The executor evaluates ``f`` on the whole index
vector at once when the range is not too long, and keeps the loop otherwise. It also keeps
the loop when the counter's dtype cannot reach the bound (an int32 counter below an int64
bound past 2**31 wraps around and the loop never ends: no value would be the loop's
result). Floats never qualify (their sums depend on the order), nor do ops that may raise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime.graph import Node
from runtime.ops.array_ops import IDENTITY
from runtime.ops.conversion_ops import CAST
from runtime.ops.math_ops import (ABS, ADD, BITWISE_AND, BITWISE_OR, BITWISE_XOR, LESS, MAXIMUM,
                                  MINIMUM, MULTIPLY, NEGATIVE, SQUARE, SUBTRACT)
from runtime.ops.registry import CONST, WHILE_LOOP

# Ops a term may use: elementwise, integer-exact, never raising (CAST between integers).
_TERM_OPS = frozenset({ADD, SUBTRACT, MULTIPLY, NEGATIVE, SQUARE, ABS, MAXIMUM, MINIMUM,
                       BITWISE_AND, BITWISE_OR, BITWISE_XOR, IDENTITY, CAST})


@dataclass(frozen=True)
class CountedReduction:
    index: int                 # position of the counter among the loop variables
    bound: object              # the cond subgraph's value the counter is compared with
    terms: dict                # accumulator position -> body value added to it each iteration
    term_nodes: tuple          # body nodes computing the terms, in program order
    counter_max: int | None    # the bound must not exceed it (None: the bound's dtype cannot)


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
    params = body.inputs
    if not _is_increment(body.outputs[index], params[index]):
        return None
    terms, cone = {}, set()
    for position in range(count):
        if position == index or body.outputs[position] is params[position]:
            continue
        term = _term_of(body.outputs[position], params[position])
        if term is None or not _integral_scalar(params[position]):
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
    return CountedReduction(index, bound, terms, term_nodes, _counter_max(counter, bound))


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
