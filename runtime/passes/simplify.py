"""Algebraic simplification: a table of identities that hold bit for bit.

A rule applies only when its result has exactly the node's dtype and shape (a constant
operand must be a scalar, so broadcasting cannot change the shape). Floating point limits
the table: ``x + 0.0`` is not ``x`` (``-0.0 + 0.0`` is ``0.0``) and ``x * 0.0`` is not ``0``
(``inf * 0.0`` and ``nan * 0.0`` are NaN), so those rules are for integers and bools only.
Complex numbers get no rule: their arithmetic mixes the parts, so ``(-0.0-0.0j) * 1`` is
``0-0j`` and ``(1+infj) * 1`` has a NaN part.

    rule                          dtypes            why it is exact
    x + 0, 0 + x -> x             int, uint, bool   integer addition (bool: x or False)
    x - 0 -> x                    int, uint, float  x - (+0.0) is x for -0.0, NaN and inf too
                                                    (bools cannot be subtracted: the error stays)
    x * 1, 1 * x -> x             int, uint, bool,  x * 1.0 is x for every float
                                  float
    x / 1 -> x                    float             x / 1.0 is x (integers divide to float)
    x // 1 -> x                   int, uint         the floor of an integer
    x * 0, 0 * x -> zeros         int, uint, bool   integers have no inf or NaN
    x ** 1 -> x                   int, uint, float  pow(x, 1) is x, NaN and -0.0 included
    x ** 2 -> square(x)           int, uint, float  both compute x * x, rounded once
    -(-x) -> x                    int, uint, float  a sign flip twice (wraps back for ints)
    not(not x) -> x               bool              (for numbers it would give a bool)
    x and True, x or False -> x   bool
    identity(x), cast(x, x.dtype), reshape/transpose to the same layout -> x
    where(c, a, where(c, b, d)) -> where(c, a, d)     any   the inner select takes the side
    where(c, where(c, a, b), d) -> where(c, a, d)           the outer one takes (gradients
                                                            of relu and where build these)
    stop_gradient(x), custom_gradient(x, ...) -> x   (they only guide gradients, built by now)
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from runtime.graph import Graph, Node
from runtime.errors import GraphTypeError
from runtime.ops.array_ops import IDENTITY, RESHAPE, TRANSPOSE, WHERE
from runtime.ops.conversion_ops import CAST
from runtime.ops.gradient_ops import CUSTOM_GRADIENT, STOP_GRADIENT
from runtime.ops.math_ops import (ADD, DIVIDE, FLOORDIV, LOGICAL_AND, LOGICAL_NOT, LOGICAL_OR,
                                  MULTIPLY, NEGATIVE, POW, SQUARE, SUBTRACT)
from runtime.ops.registry import CONST, OpDef
from runtime.passes.rewrite import Rewrite, rewrite
from runtime.tensor import SymbolicTensor

_INTEGRAL = "iub"
_REAL = "iubf"


def run(graph: Graph) -> list[str]:
    """Simplifies ``graph`` and its subgraphs in place; returns one line per rewrite."""
    return rewrite(graph, _simplify)


def _simplify(node: Node) -> Rewrite | None:
    if node.op is CUSTOM_GRADIENT:  # its gradient is built: the results pass through
        return Rewrite("custom gradient marker removed", node.inputs[:len(node.outputs)])
    rule = _RULES.get(node.op)
    return rule(node) if rule is not None and len(node.outputs) == 1 else None


# -- helpers -------------------------------------------------------------------------------


def _scalar(value: SymbolicTensor) -> np.ndarray | None:
    """The value of a 0-d constant input, else None."""
    if value.node.op is CONST and value.node.attrs["value"].ndim == 0:
        return value.node.attrs["value"]
    return None


def _is(value: SymbolicTensor, number) -> bool:
    """Whether ``value`` is a scalar constant equal to ``number`` (a zero must be +0.0)."""
    constant = _scalar(value)
    if constant is None or constant.dtype.kind not in _REAL:
        return False
    return bool(constant == number) and not (constant.dtype.kind == "f" and np.signbit(constant))


def _same_type(node: Node, value: SymbolicTensor) -> bool:
    out = node.outputs[0]
    return value.dtype == out.dtype and value.shape == out.shape


def _becomes(node: Node, value: SymbolicTensor, text: str) -> Rewrite | None:
    """``node`` replaced by an existing value, if that value has exactly its type."""
    return Rewrite(text, [value]) if _same_type(node, value) else None


def _other_operand(node: Node, number, commutative: bool) -> SymbolicTensor | None:
    """The other operand when one operand (the second, or either if commutative) is ``number``."""
    x, y = node.inputs
    if _is(y, number):
        return x
    if commutative and _is(x, number):
        return y
    return None


# -- rules ---------------------------------------------------------------------------------


def _neutral(number, commutative: bool, kinds: str) -> Callable:
    """``x op number -> x`` for outputs of these dtype kinds."""
    def rule(node: Node) -> Rewrite | None:
        if node.outputs[0].dtype.kind not in kinds:
            return None
        x = _other_operand(node, number, commutative)
        return None if x is None else _becomes(node, x, f"{node.op.name} by {number} removed")
    return rule


def _multiply(node: Node) -> Rewrite | None:
    result = _neutral(1, commutative=True, kinds=_REAL)(node)
    if result is not None:
        return result
    out = node.outputs[0]
    if out.dtype.kind in _INTEGRAL and out.shape is not None and None not in out.shape \
            and _other_operand(node, 0, commutative=True) is not None:
        zeros = node.graph.make_constant(np.zeros(out.shape, out.dtype), node.location)
        return Rewrite("integer times zero is zero", zeros.outputs, [zeros])
    return None


def _pow(node: Node) -> Rewrite | None:
    x, exponent = node.inputs
    if node.outputs[0].dtype.kind not in "iuf":
        return None
    if _is(exponent, 1):
        return _becomes(node, x, "x ** 1 is x")
    if _is(exponent, 2) and _same_type(node, x):
        square = Node(node.graph, SQUARE, [x], {}, [(x.dtype, x.shape)], None, node.location)
        return Rewrite("x ** 2 became square(x)", square.outputs, [square])
    return None


def _involution(kinds: str) -> Callable:
    """``f(f(x)) -> x`` for an op that undoes itself on these dtype kinds."""
    def rule(node: Node) -> Rewrite | None:
        (x,) = node.inputs
        if x.node.op is not node.op or x.dtype.kind not in kinds:
            return None
        return _becomes(node, x.node.inputs[0], f"{node.op.name} of {node.op.name} removed")
    return rule


def _logical(neutral: bool) -> Callable:
    def rule(node: Node) -> Rewrite | None:
        x = _other_operand(node, neutral, commutative=True)
        return None if x is None else _becomes(node, x, f"{node.op.name} with {neutral} removed")
    return rule


def _same_value(text: str, applies: Callable[[Node], bool] = lambda node: True) -> Callable:
    """Ops that return their input unchanged when the output type equals the input's (and,
    for some, when ``applies`` says the attributes leave the values where they are)."""
    def rule(node: Node) -> Rewrite | None:
        return _becomes(node, node.inputs[0], text) if applies(node) else None
    return rule


def _known_input_shape(node: Node) -> bool:
    """A reshape keeps the values in place when its input's shape is fully known (and equal)."""
    shape = node.inputs[0].shape
    return shape is not None and None not in shape


def _identity_perm(node: Node) -> bool:
    perm, shape = node.attrs.get("perm"), node.inputs[0].shape
    if perm is None:  # the default reverses the axes
        return shape is not None and len(shape) <= 1
    return list(perm) == list(range(len(perm)))


def _nested_where(node: Node) -> Rewrite | None:
    """A select whose chosen (or other) side is a select on the same condition: that side's
    own choice is the one taken, so the inner select goes (when the types stay)."""
    condition = node.inputs[0]
    for position in (1, 2):
        inner = node.inputs[position].node
        if inner.op is not WHERE or inner.inputs[0] is not condition:
            continue
        inputs = list(node.inputs)
        inputs[position] = inner.inputs[position]
        try:
            out_type = WHERE.infer(*inputs)
        except GraphTypeError:  # the dropped side set the dtype
            continue
        if out_type != (node.outputs[0].dtype, node.outputs[0].shape):
            continue  # the dropped side set the shape (broadcasting)
        select = Node(node.graph, WHERE, inputs, {}, [out_type], None, node.location)
        return Rewrite("select inside a select on the same condition removed", select.outputs,
                       [select])
    return None


_RULES: dict[OpDef, Callable[[Node], "Rewrite | None"]] = {
    ADD: _neutral(0, commutative=True, kinds=_INTEGRAL),
    SUBTRACT: _neutral(0, commutative=False, kinds="iuf"),
    MULTIPLY: _multiply,
    DIVIDE: _neutral(1, commutative=False, kinds="f"),
    FLOORDIV: _neutral(1, commutative=False, kinds="iu"),
    POW: _pow,
    NEGATIVE: _involution("iuf"),
    LOGICAL_NOT: _involution("b"),
    LOGICAL_AND: _logical(True),
    LOGICAL_OR: _logical(False),
    IDENTITY: _same_value("identity removed"),
    STOP_GRADIENT: _same_value("stop_gradient removed (gradients are built)"),
    CAST: _same_value("cast to the same dtype removed"),
    RESHAPE: _same_value("reshape to the same shape removed", _known_input_shape),
    TRANSPOSE: _same_value("transpose by the identity permutation removed", _identity_perm),
    WHERE: _nested_where,
}
