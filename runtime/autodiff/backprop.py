"""The backward pass: runs gradient rules over recorded ops in reverse order.

The same code serves both modes. Eagerly the records are the tape's entries and the rules
compute at once; while tracing they are graph nodes and the rules add the backward ops to the
graph being built (so the passes optimize them like any other code). A rule works on the
values its op actually saw; this module fits each gradient back to its input: summed over
the axes broadcasting stretched, cast to the input's dtype, and dropped for integer inputs.

A rule may give rows (``IndexedSlices``, a gather's gradient): they stay rows only where the
pass was asked to keep them, at its sources, as TensorFlow's tape keeps them (the rows of
several gathers are joined in the order the gathers ran; rows meeting a dense gradient are
added into it); everywhere else they become the dense gradient.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime.errors import GradientError
from runtime.ops.array_ops import cast, concat
from runtime.ops.broadcast_ops import sum_to_shape
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.math_ops import add
from runtime.ops.registry import NOT_DIFFERENTIABLE
from runtime.tensor import Tensor


def differentiable(value) -> bool:
    """Whether gradients flow into ``value``: floating-point and complex tensors only."""
    dtype = getattr(value, "dtype", None)
    return dtype is not None and np.dtype(dtype).kind in "fc"


class Backward:
    """One backward pass; ``stops`` lists the records where a gradient ended without a rule
    to carry it on (for the warning the tape gives when a source ends up without one).
    With ``keep_rows``, a source's gradient may be an ``IndexedSlices``."""

    def __init__(self, records: Sequence, sources: Sequence[Sequence[Tensor]],
                 keep_rows: bool = False):
        self.handles = {id(h) for handles in sources for h in handles}
        self.keep_rows = keep_rows
        self.sources = sources
        # Only records on a path from a source can carry a gradient to it.
        self.reaching = set(self.handles)
        self.records = []
        for record in records:
            if any(id(v) in self.reaching for v in record.inputs):
                self.records.append(record)
                self.reaching.update(id(v) for v in record.outputs)
        self.grads: dict[int, Tensor] = {}
        self.stops: list = []

    def run(self, targets: Sequence[Tensor], seeds: Sequence) -> list:
        """Per source, the sum of the gradients reaching its tensors (None if none does)."""
        for target, seed in zip(targets, seeds):
            if seed is not None and id(target) in self.reaching:
                self._add(target, seed)
        for record in reversed(self.records):
            out_grads = [dense(self.grads.get(id(v))) for v in record.outputs]
            if any(g is not None for g in out_grads):
                self._through(record, out_grads)
            for value in record.outputs:  # no longer needed: free it early
                if id(value) not in self.handles:
                    self.grads.pop(id(value), None)
        return [self._total(handles) for handles in self.sources]

    def _through(self, record, out_grads: list) -> None:
        rule = record.op.gradient
        if rule is NOT_DIFFERENTIABLE:
            self.stops.append(record)
            return
        if rule is None:
            if any(id(v) in self.reaching and differentiable(v) for v in record.inputs):
                raise GradientError(
                    f"the gradient cannot flow back through the {record.op.name} op"
                    f"{_created_at(record)}: it has no gradient rule. Compute that value with "
                    f"differentiable ops, stop the gradient there with rt.stop_gradient, or "
                    f"give the computation a gradient with @rt.custom_gradient.")
            return
        # (After the rule: a loop's rule may give the loop inputs it needs for its gradient.)
        in_grads = rule(record, *out_grads)
        for value, grad in zip(record.inputs, in_grads):
            if id(value) not in self.reaching:
                continue
            if not differentiable(value):
                self.stops.append(record)  # the gradient meets an integer value: it ends here
            elif grad is not None:
                self._add(value, grad)

    def _add(self, value, grad) -> None:
        if not (self.keep_rows and isinstance(grad, IndexedSlices) and id(value) in self.handles):
            grad = fit(grad, value)
        # Records are visited last first: joined in front, rows keep the order of the lookups.
        self.grads[id(value)] = total(grad, self.grads.get(id(value)))

    def _total(self, handles: Sequence[Tensor]):
        result = None
        for handle in handles:
            result = total(result, self.grads.get(id(handle)))
        return result


def total(a, b):
    """The sum of two gradients, either of them None; rows and rows are joined (rows are
    added to a dense gradient)."""
    if a is None or b is None:
        return b if a is None else a
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        return a.with_rows(concat([a.values, b.values], 0),
                           concat([a.indices, cast(b.indices, a.indices.dtype)], 0))
    return add(dense(a), dense(b))


def dense(grad):
    """``grad`` as a tensor (rows added into zeros); None stays None."""
    return convert_to_tensor(grad) if isinstance(grad, IndexedSlices) else grad


def fit(grad, like) -> Tensor:
    """``grad`` with ``like``'s dtype and shape (summed over broadcast axes)."""
    grad = convert_to_tensor(grad)
    if grad.dtype != like.dtype:
        grad = cast(grad, like.dtype)
    return sum_to_shape(grad, like)


def _created_at(record) -> str:
    location = getattr(record, "location", None)
    return f" created at {location}" if location else ""
