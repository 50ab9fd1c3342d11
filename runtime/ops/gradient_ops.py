"""Ops that only matter to gradients: ``stop_gradient`` and the marker of a custom gradient.

Both pass their values through unchanged, so the simplify pass removes them once a traced
function's gradients are built; until then they tell the backward pass where to stop, or
which user function gives the gradient instead of the ops that computed the value.
"""

from __future__ import annotations

from runtime.ops.dispatch import apply_op
from runtime.ops.registry import OpDef, register


def _stop_gradient_rule(node, dy):
    return (None,)  # wanted: no gradient and no warning that one was lost


STOP_GRADIENT = register(OpDef("stop_gradient", lambda x: x, lambda x: (x.dtype, x.shape),
                               gradient=_stop_gradient_rule))


def stop_gradient(x):
    """``x`` as a constant to gradients: the same value, through which no gradient flows."""
    return apply_op(STOP_GRADIENT, (x,))


def _custom_forward(attrs, _input_types):
    count = attrs["num_outputs"]
    if count == 1:
        return lambda *values: values[0]
    return lambda *values: values[:count]


def _custom_rule(node, *output_grads):
    """Calls the user's gradient function (see ``runtime.autodiff.custom_gradient``)."""
    return node.attrs["rule"](node, output_grads)


def _custom_infer(*values, num_outputs, rule):
    return [(v.dtype, v.shape) for v in values[:num_outputs]]


# Inputs: the function's results, then the tensors it differentiates (its tensor arguments and
# the variables it read); outputs: the results, whose gradient the attribute ``rule`` gives.
CUSTOM_GRADIENT = register(OpDef("custom_gradient", None, _custom_infer, bind=_custom_forward,
                                 gradient=_custom_rule))
