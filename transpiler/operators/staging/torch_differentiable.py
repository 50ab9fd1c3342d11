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

Whether an operator is differentiated is decided while it is traced. Under ``torch.compile``
that is whether an operand needs a gradient then (Dynamo recompiles when that changes). The
module ``torch.export`` gives is called with tensors that may need gradients where the example
inputs and parameters it was traced with need none, so under ``torch.export`` every operator
with a float operand is made differentiable, and the zero a loop variable takes its gradient
from is made from all of them.

Inductor compiles the branches of a ``cond`` and the bodies of a ``while_loop`` in a backward
graph as if their inputs were the backward graph's (``GraphLowering.make_subgraph`` takes the
backward's donated buffers by position), so a branch may write its result over an input that
is still needed, a module's parameter among them: the gradients are wrong and the parameter
changes. So when a staged operator is differentiated under ``torch.compile``, AOTAutograd's
donated buffers (``torch._functorch.config.donated_buffer``) are turned off, for this process;
they only save memory in backward graphs.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch
import torch._functorch.config
from torch._higher_order_ops.cond import cond_op
from torch._higher_order_ops.while_loop import while_loop_op

_HALF = 32
# Dtypes whose every value a float64 holds exactly.
_IN_FLOAT64 = frozenset((torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32,
                         torch.uint16, torch.uint32))


def _encodable(dtype: torch.dtype) -> bool:
    return dtype == torch.int64 or dtype in _IN_FLOAT64


def _may_need_grad(value) -> bool:
    """Whether ``value`` is a float tensor whose gradient may be asked for when the program
    runs: one that needs it while traced, or under ``torch.export`` any float tensor."""
    return isinstance(value, torch.Tensor) and value.dtype.is_floating_point and (
        value.requires_grad or torch.compiler.is_exporting())


def differentiated(operands: Sequence) -> bool:
    """Whether an operator taking ``operands`` is differentiated: gradients are on (or it is
    exported) and one of them may need its gradient. Under ``torch.compile``, turns
    Inductor's reuse of a backward graph's inputs off when it is (see above)."""
    exporting = torch.compiler.is_exporting()
    if not ((exporting or torch.is_grad_enabled()) and any(map(_may_need_grad, operands))):
        return False
    if not exporting and torch._functorch.config.donated_buffer:
        torch._functorch.config.donated_buffer = False
    return True


def needed(operands: Sequence, dtypes: Sequence[torch.dtype]) -> bool:
    """Whether a ``cond`` with these operands and output dtypes must give floats: it is
    differentiated and an output cannot be."""
    return differentiated(operands) and any(map(_encodable, dtypes))


def while_loop(cond_fn: Callable, body_fn: Callable, carried: tuple, operands: tuple) -> tuple:
    """``while_loop_op(cond_fn, body_fn, carried, operands)``; when it is differentiated, with
    its float variables needing a gradient, inside a ``cond`` on its test."""
    if not differentiated((*carried, *operands)):
        return while_loop_op(cond_fn, body_fn, carried, operands)
    anchors = [value for value in (*carried, *operands) if _may_need_grad(value)]
    zeros: dict[torch.dtype, torch.Tensor] = {}
    carried = tuple(_differentiable(value, anchors, zeros) for value in carried)
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


def _differentiable(value: torch.Tensor, anchors: Sequence[torch.Tensor],
                    zeros: dict) -> torch.Tensor:
    """``value`` as a loop variable whose gradient the loop's gradient pass computes: it
    carries the gradient of the inputs it takes from one iteration to the one before. A float
    that needs none becomes itself minus a zero made from ``anchors``, the inputs that may
    need one (the same value, -0.0 and NaN included; a graph keeps it, as it would not keep a
    flag). ``zeros`` keeps the zero of each dtype, made once."""
    if not value.dtype.is_floating_point or value.requires_grad:
        return value
    if value.dtype not in zeros:
        parts = [anchor.reshape(-1)[:0].sum() for anchor in anchors]
        # No conversion where the dtypes agree: torch.export checks the dtype a conversion
        # starts from when the program runs, which would tie it to the example's dtype.
        parts = [part if part.dtype == value.dtype else part.to(value.dtype) for part in parts]
        zeros[value.dtype] = sum(parts[1:], parts[0])
    return value - zeros[value.dtype]


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
