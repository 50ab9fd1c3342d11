"""Composite ops written as the primitive ops their NumPy kernels run, so kernels can fuse them.

``softmax`` is one NumPy kernel on the plan but five array passes inside it (a max, a
subtraction, an exp, a sum, a division). Written as those five ops, the compiled tier folds
the reductions into the loop nests that make their operands, and the ops around it (the
logits' bias, the loss's mean, the gradient's subtraction) join the same kernel. Each rule
repeats its kernel's steps in the same order, so where the decomposed ops stay on the plan
they compute the same bits. A rule applies only when the tier can compile every op it makes.
"""

from __future__ import annotations

from runtime.backends.jit.codegen import why_not
from runtime.graph import Graph, Node
from runtime.ops.math_ops import DIVIDE, EXP, LOG, MULTIPLY, NEGATIVE, SUBTRACT
from runtime.ops.nn_ops import LOG_SOFTMAX, SOFTMAX, SOFTMAX_XENT
from runtime.ops.reduce_ops import REDUCE_MAX, REDUCE_SUM
from runtime.passes.rewrite import Rewrite, rewrite


class _Builder:
    """Makes nodes next to ``node`` (its graph and location), each typed by its op's rule."""

    def __init__(self, node: Node):
        self.graph, self.location = node.graph, node.location
        self.nodes: list[Node] = []

    def __call__(self, op, *inputs, **attrs):
        out_type = op.infer(*inputs, **attrs)
        made = Node(self.graph, op, list(inputs), attrs, [out_type], None, self.location)
        self.nodes.append(made)
        return made.outputs[0]


def _shifted(make: _Builder, x, axis: int):
    """``x - max(x, axis)``, as the kernels shift logits so that ``exp`` cannot overflow."""
    return make(SUBTRACT, x, make(REDUCE_MAX, x, axis=(axis,), keepdims=True))


def _softmax(make: _Builder, node: Node):
    axis = node.attrs["axis"]
    exps = make(EXP, _shifted(make, node.inputs[0], axis))
    return make(DIVIDE, exps, make(REDUCE_SUM, exps, axis=(axis,), keepdims=True))


def _log_softmax_of(make: _Builder, x, axis: int):
    shifted = _shifted(make, x, axis)
    total = make(REDUCE_SUM, make(EXP, shifted), axis=(axis,), keepdims=True)
    return make(SUBTRACT, shifted, make(LOG, total))


def _log_softmax(make: _Builder, node: Node):
    return _log_softmax_of(make, node.inputs[0], node.attrs["axis"])


def _softmax_cross_entropy(make: _Builder, node: Node):
    labels, logits = node.inputs
    axis = node.attrs["axis"]
    log_probs = _log_softmax_of(make, logits, axis)
    return make(REDUCE_SUM, make(MULTIPLY, labels, make(NEGATIVE, log_probs)), axis=(axis,),
                keepdims=False)


DECOMPOSITIONS = {SOFTMAX: _softmax, LOG_SOFTMAX: _log_softmax, SOFTMAX_XENT: _softmax_cross_entropy}


def decompose(graph: Graph, exact: bool = False) -> None:
    """Replaces, in ``graph`` and its subgraphs, each composite op whose parts all compile
    (``exact``: see ``why_not``)."""
    rewrite(graph, lambda node: _decomposed(node, exact))


def _decomposed(node: Node, exact: bool) -> Rewrite | None:
    rule = DECOMPOSITIONS.get(node.op)
    if rule is None or node.outputs[0].shape is None or None in node.outputs[0].shape:
        return None
    make = _Builder(node)
    result = rule(make, node)
    if any(why_not(made, exact) is not None for made in make.nodes):
        return None
    assert (result.dtype, result.shape) == (node.outputs[0].dtype, node.outputs[0].shape)
    return Rewrite(f"{node.op.name} written as {len(make.nodes)} ops", [result], make.nodes)
