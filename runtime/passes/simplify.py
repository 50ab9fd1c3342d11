"""Algebraic simplification: a table of identities that hold bit for bit.

Each rule applies only when the result has exactly the node's dtype and shape (a constant
operand must be a scalar, so broadcasting cannot change the shape). Floating point limits the
table: ``x + 0.0`` is not ``x`` (``-0.0 + 0.0`` is ``0.0``) and ``x * 0.0`` is not ``0``
(``inf * 0`` is NaN), so those rules are for integers and bools only; ``x - 0.0``, ``x * 1.0``
and ``x / 1.0`` are exact for every value, NaN and infinities included.

    rule                          dtypes            why it is exact
    x + 0, 0 + x -> x             int, uint, bool   integer addition
    x - 0 -> x                    any (+0.0)        x - (+0.0) == x, also for -0.0 and NaN
    x * 1, 1 * x -> x             any               multiplication by one
    x / 1 -> x                    float, complex    true division by one (ints change dtype)
    x // 1 -> x                   int, uint         floor of an integer
    x * 0, 0 * x -> zeros         int, uint, bool   no inf or NaN in integers
    x ** 1 -> x                   any
    x ** 2 -> square(x)           any               NumPy computes both as x * x
    -(-x), not(not x) -> x        any
    x and True, x or False -> x   bool
    identity(x), cast(x, x.dtype), reshape/transpose to the same layout -> x
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from runtime.graph import Graph, Node
from runtime.ops.math_ops import SQUARE
from runtime.ops.registry import CONST

_INTEGRAL = "iub"


def run(graph: Graph) -> list[str]:
    """Simplifies ``graph`` and its subgraphs in place; returns one line per rewrite."""
    changes: list[str] = []
    replaced: dict = {}
    nodes: list[Node] = []
    for node in graph.nodes:
        node.inputs = [replaced.get(id(v), v) for v in node.inputs]
        for sub in node.subgraphs.values():
            changes += run(sub)
        rule = _RULES.get(node.op.name)
        outcome = rule(node) if rule is not None and len(node.outputs) == 1 else None
        if outcome is not None:
            text, value = outcome
            changes.append(f"{node.op.name} {node.value_name(0)}: {text}")
            if isinstance(value, Node):  # a new constant takes the node's place
                nodes.append(value)
                value = value.outputs[0]
            if value is not None:
                replaced[id(node.outputs[0])] = value
        nodes.append(node)
    graph.nodes = nodes
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]
    return changes


# -- helpers -------------------------------------------------------------------------------


def _scalar(value) -> np.ndarray | None:
    """The value of a 0-d constant input, else None."""
    if value.node.op is CONST and value.node.attrs["value"].ndim == 0:
        return value.node.attrs["value"]
    return None


def _is(value, number, positive_zero: bool = False) -> bool:
    constant = _scalar(value)
    if constant is None or constant.dtype.kind not in "biufc":
        return False
    if positive_zero and constant.dtype.kind in "fc" and np.signbit(constant.real):
        return False
    return bool(constant == number)


def _keeps_type(node: Node, value) -> bool:
    out = node.outputs[0]
    return value.dtype == out.dtype and value.shape == out.shape


def _to(node: Node, value, text: str):
    return (text, value) if _keeps_type(node, value) else None


def _operands(node: Node, number, commutative: bool, **kwargs):
    """The other operand when one operand (the second, or either if commutative) is ``number``."""
    x, y = node.inputs
    if _is(y, number, **kwargs):
        return x
    if commutative and _is(x, number, **kwargs):
        return y
    return None


# -- rules ---------------------------------------------------------------------------------


def _identity_when(number, commutative: bool, kinds: str = "biufc", positive_zero=False):
    def rule(node: Node):
        if node.outputs[0].dtype.kind not in kinds:
            return None
        x = _operands(node, number, commutative, positive_zero=positive_zero)
        return None if x is None else _to(node, x, f"{node.op.name} by {number} removed")
    return rule


def _multiply(node: Node):
    result = _identity_when(1, commutative=True)(node)
    if result is not None:
        return result
    out = node.outputs[0]
    if out.dtype.kind in _INTEGRAL and out.shape is not None and None not in out.shape \
            and _operands(node, 0, commutative=True) is not None:
        return "integer times zero is zero", node.graph.make_constant(
            np.zeros(out.shape, out.dtype), node.location)
    return None


def _pow(node: Node):
    x, exponent = node.inputs
    if _is(exponent, 1):
        return _to(node, x, "x ** 1 is x")
    if _is(exponent, 2) and _keeps_type(node, x):
        node.op, node.inputs, node.attrs = SQUARE, [x], {}
        return "x ** 2 became square(x)", None
    return None


def _involution(node: Node):
    (x,) = node.inputs
    if x.node.op is node.op:
        return _to(node, x.node.inputs[0], f"{node.op.name} of {node.op.name} removed")
    return None


def _logical(neutral: bool):
    def rule(node: Node):
        x = _operands(node, neutral, commutative=True)
        return None if x is None else _to(node, x, f"{node.op.name} with {neutral} removed")
    return rule


def _same_value(text: str) -> Callable:
    """Ops that return their input unchanged when the output type equals the input's."""
    def rule(node: Node):
        (x,) = node.inputs[:1]
        if node.op.name == "transpose" and not _is_identity_perm(node.attrs.get("perm"), x.shape):
            return None
        if node.op.name == "reshape" and (x.shape is None or None in x.shape):
            return None
        return _to(node, x, text)
    return rule


def _is_identity_perm(perm, shape) -> bool:
    if perm is None:
        return shape is not None and len(shape) <= 1
    return list(perm) == list(range(len(perm)))


_RULES: dict[str, Callable] = {
    "add": _identity_when(0, commutative=True, kinds=_INTEGRAL),
    "subtract": _identity_when(0, commutative=False, positive_zero=True),
    "multiply": _multiply,
    "divide": _identity_when(1, commutative=False, kinds="fc"),
    "floordiv": _identity_when(1, commutative=False, kinds="iu"),
    "pow": _pow,
    "negative": _involution,
    "logical_not": _involution,
    "logical_and": _logical(True),
    "logical_or": _logical(False),
    "identity": _same_value("identity removed"),
    "cast": _same_value("cast to the same dtype removed"),
    "reshape": _same_value("reshape to the same shape removed"),
    "transpose": _same_value("transpose by the identity permutation removed"),
}
