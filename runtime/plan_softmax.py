"""A softmax loss and its gradient's softmax in one call, as a plan runs them.

A training step's loss ``softmax_cross_entropy_with_logits(labels, logits)`` and the
``softmax(logits)`` of its gradient compute the same shifted exponentials and their sums;
``runtime.plan_lowering.paired`` gives both nodes to one of the kernels below, which returns
both results with the bits of the two kernels (``runtime.ops.nn_ops``).

With fewer than 8 classes on the last axis of 2-d logits (a small classifier), NumPy's
reductions and broadcasts along those short rows cost most of the call: its loops run once
per row. ``few_classes`` works on a transposed copy, the classes as rows, where each loop runs
along a whole contiguous column of examples. The bits are the same: a maximum is exact, and
NumPy sums fewer than 8 elements of a row one after another (it starts pairwise summation at
8), which is what summing rows does. Only NaNs could tell: NumPy's maximum along rows and
between arrays may give a NaN another sign bit, and the sum of NaNs with different signs
depends on the order of operands the compiler chose. So when a loss is NaN (a NaN or +inf among
the logits, or labels that make one), the general kernel computes them again.
"""

from __future__ import annotations

import numpy as np

_FEW = 8  # NumPy sums fewer elements than this one after another (pairwise_sum's block)
_maximum, _add, _exp, _log, _dot = np.maximum.reduce, np.add.reduce, np.exp, np.log, np.dot


def pair_kernel(labels, logits, axis):
    """The kernel computing ``(loss, softmax)`` for these static types of labels and logits
    (SymbolicTensors) on ``axis``."""
    shape = logits.shape
    if shape is not None and len(shape) == 2 and None not in shape and shape[1] < _FEW \
            and axis in (1, -1) and logits.dtype in (np.float32, np.float64) \
            and labels.shape == shape and labels.dtype == logits.dtype:
        return few_classes
    return softmax_xent_and_softmax


def softmax_xent_and_softmax(labels, logits, axis):
    """``softmax_cross_entropy_with_logits(labels, logits, axis)`` and ``softmax(logits,
    axis)``, each step as their kernels take it."""
    shifted = logits - np.maximum.reduce(logits, axis, keepdims=True)
    exps = np.exp(shifted)
    sums = np.add.reduce(exps, axis, keepdims=True)
    log_probs = shifted - np.log(sums)
    return np.add.reduce(labels * -log_probs, axis), exps / sums


def few_classes(labels, logits, axis):
    """``softmax_xent_and_softmax`` of 2-d logits with fewer than 8 classes on the last axis,
    the classes as rows (see the module docstring)."""
    rows = logits.T.copy()
    shifted = rows - _maximum(rows, 0)
    exps = _exp(shifted)
    sums = _add(exps, 0)
    log_probs = shifted - _log(sums)
    losses = _add(labels.T.copy() * -log_probs, 0)
    # A NaN among the logits, or a +inf, makes that example's sum NaN and so its loss, as
    # labels that make a NaN do: then NaNs may differ in sign from the general kernel's.
    check = _dot(losses, losses)
    if check != check:
        return softmax_xent_and_softmax(labels, logits, axis)
    return losses, (exps / sums).T.copy()
