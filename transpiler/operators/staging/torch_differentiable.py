"""What the gradient passes of PyTorch 2.13's ``cond`` and ``while_loop`` need to be right.

* ``cond`` is differentiated by tracing each branch's gradient with one incoming gradient per
  output, and fails when an output cannot have one: an integer or bool tensor next to a float
  one ("outs_to_grad length (1) != tangents length (2)"). A staged ``if`` gives such outputs
  often: the flags of ``break`` and ``return``, a counter, an index. So when the conditional is
  differentiated, each integer or bool output leaves the branches as float64 tensors that hold
  it exactly (an int64 as its two 32-bit halves), and is made again after the ``cond``.
* ``while_loop``'s gradient runs the body's gradient once per iteration, and once when the
  loop ran zero times, as if it had run once: the gradient is then wrong (the parameters the
  body reads get one). So a differentiated loop is the true branch of a ``cond`` on its test,
  whose false branch gives the loop's inputs unchanged. It also carries the gradients of the
  loop's other inputs (a module's parameters) from one iteration to the one before through
  the gradients of the loop variables only when those need one: each float loop variable
  enters the loop needing a gradient.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch
from torch._higher_order_ops.cond import cond_op
from torch._higher_order_ops.while_loop import while_loop_op

_HALF = 32
# Dtypes whose every value a float64 holds exactly.
_IN_FLOAT64 = frozenset((torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
                         torch.uint16, torch.uint32))


def _encodable(dtype: torch.dtype) -> bool:
    return dtype == torch.int64 or dtype in _IN_FLOAT64


def _differentiated(operands: Sequence) -> bool:
    """Whether an operator taking ``operands`` is differentiated: gradients are on and one
    of them needs its gradient."""
    return torch.is_grad_enabled() and any(
        isinstance(operand, torch.Tensor) and operand.requires_grad for operand in operands)


def needed(operands: Sequence, dtypes: Sequence[torch.dtype]) -> bool:
    """Whether a ``cond`` with these operands and output dtypes must give floats: it is
    differentiated and an output cannot be."""
    return any(map(_encodable, dtypes)) and _differentiated(operands)


def while_loop(cond_fn: Callable, body_fn: Callable, carried: tuple, operands: tuple) -> tuple:
    """``while_loop_op(cond_fn, body_fn, carried, operands)``; when it is differentiated, with
    its float variables needing a gradient, inside a ``cond`` on its test."""
    if not _differentiated((*carried, *operands)):
        return while_loop_op(cond_fn, body_fn, carried, operands)
    anchor = next((value for value in (*carried, *operands) if isinstance(value, torch.Tensor)
                   and value.requires_grad and value.dtype.is_floating_point), None)
    if anchor is not None:
        carried = tuple(_differentiable(value, anchor) for value in carried)
    count, dtypes = len(carried), [value.dtype for value in carried]
    floats_only = needed((*carried, *operands), dtypes)

    def output(values):
        return tuple(encoded(values) if floats_only else values)

    def looped(*inputs):
        return output(while_loop_op(cond_fn, body_fn, inputs[:count], inputs[count:]))

    def unchanged(*inputs):
        return output([value.clone() for value in inputs[:count]])

    outputs = cond_op(cond_fn(*carried, *operands), looped, unchanged, (*carried, *operands))
    return tuple(decoded(outputs, dtypes) if floats_only else outputs)


def _differentiable(value: torch.Tensor, anchor: torch.Tensor) -> torch.Tensor:
    """``value`` as a loop variable whose gradient the loop's gradient pass computes: it
    carries the gradient of the inputs it takes from one iteration to the one before. A float
    that needs none becomes itself minus a zero made from ``anchor``, an input that needs one
    (the same value, -0.0 and NaN included; a graph keeps it, as it would not keep a flag)."""
    if value.dtype.is_floating_point and not value.requires_grad:
        return value - anchor.reshape(-1)[:0].sum().to(value.dtype)
    return value


def encoded(leaves: Sequence[torch.Tensor]) -> list:
    """``leaves`` as float tensors, in a branch: an int64 gives its high and low 32 bits as
    two float64 tensors, a narrower integer or a bool one float64 tensor; others stay."""
    result = []
    for leaf in leaves:
        if not _encodable(leaf.dtype):
            result.append(leaf)
        elif leaf.dtype == torch.int64:
            result += [torch.bitwise_right_shift(leaf, _HALF).to(torch.float64),
                       torch.bitwise_and(leaf, (1 << _HALF) - 1).to(torch.float64)]
        else:
            result.append(leaf.to(torch.float64))
    return result


def decoded(outputs: Sequence[torch.Tensor], dtypes: Sequence[torch.dtype]) -> list:
    """The leaves of ``dtypes`` that ``encoded`` gave as ``outputs``, after the ``cond``."""
    flat, result = iter(outputs), []
    for dtype in dtypes:
        if not _encodable(dtype):
            result.append(next(flat))
        elif dtype == torch.int64:
            high, low = next(flat).to(torch.int64), next(flat).to(torch.int64)
            result.append(torch.bitwise_or(torch.bitwise_left_shift(high, _HALF), low))
        else:
            result.append(next(flat).to(dtype))
    return result
