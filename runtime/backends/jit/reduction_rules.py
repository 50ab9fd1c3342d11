"""Reductions inside kernels: how each starts, folds in one element, and ends.

A reduction reads the elements of the loop nest it joins (so ``sum(square(a - b))`` never
makes the squared array). Integer sums and products wrap around as NumPy's do, and extremes
and logical reductions are exact, so their order does not matter. Float sums and products
round after every term, so they follow NumPy's order exactly and give the plan's bits: a sum
over trailing axes (every term of a result contiguous in memory) is NumPy's pairwise sum of
the run, and a sum or product over leading axes adds row after row. Float sums over axes in
the middle of the shape stay on the plan.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from runtime.backends.jit.element_rules import SUPPORTED_DTYPES, literal, numba_type
from runtime.graph import Node
from runtime.ops.reduce_ops import (REDUCE_ALL, REDUCE_ANY, REDUCE_MAX, REDUCE_MEAN, REDUCE_MIN,
                                    REDUCE_PROD, REDUCE_SUM)
from runtime.ops.registry import OpDef


@dataclass(frozen=True)
class Fold:
    """``accumulator = combine(accumulator, element)`` from ``initial``, then ``finish``.
    A ``pairwise`` fold instead collects each run of terms and sums it as NumPy does."""

    accumulator: np.dtype
    initial: str
    combine: str          # a template of {acc} and {x}
    finish: str = "{acc}"  # a template of {acc} and {count}
    pairwise: bool = False


def _combine(accumulator: np.dtype, operator: str) -> str:
    if accumulator == np.int64:  # see helpers: Numba's int64 arithmetic may not wrap
        return ("wrapping_add" if operator == "+" else "wrapping_mul") + "({acc}, {x})"
    return f"{numba_type(accumulator)}({{acc}} {operator} {{x}})"


def _sum(dtype: np.dtype) -> Fold | None:
    return Fold(dtype, literal(dtype.type(0)), _combine(dtype, "+"))


def _prod(dtype: np.dtype) -> Fold | None:
    return Fold(dtype, literal(dtype.type(1)), _combine(dtype, "*"))


def _extreme(helper: str, largest: bool):
    def fold(dtype: np.dtype) -> Fold | None:
        if dtype.kind == "f":
            initial = f"{numba_type(dtype)}({'-' if largest else ''}np.inf)"
        else:
            info = np.iinfo(dtype)
            initial = literal(dtype.type(info.min if largest else info.max))
        return Fold(dtype, initial, f"{numba_type(dtype)}({helper}({{acc}}, {{x}}))")
    return fold


def _mean(dtype: np.dtype) -> Fold | None:
    if dtype.kind != "f":  # an int64 total (wrapping as NumPy's), divided toward zero
        return Fold(np.dtype(np.int64), "np.int64(0)", _combine(np.dtype(np.int64), "+"),
                    "truncated_mean({acc}, {count})")
    return Fold(dtype, literal(dtype.type(0)), _combine(dtype, "+"), "({acc} / {count})")


def _boolean(operator: str, initial: str):
    def fold(dtype: np.dtype) -> Fold | None:
        return Fold(dtype, initial, f"({{acc}} {operator} {{x}})")
    return fold


_FOLDS = {REDUCE_SUM: _sum, REDUCE_PROD: _prod, REDUCE_MEAN: _mean,
          REDUCE_MAX: _extreme("float_maximum", True), REDUCE_MIN: _extreme("float_minimum", False),
          REDUCE_ANY: _boolean("or", "False"), REDUCE_ALL: _boolean("and", "True")}
_BOOLEAN = (REDUCE_ANY, REDUCE_ALL)


def is_reduction(op: OpDef) -> bool:
    return op in _FOLDS


def fold_for(node: Node) -> Fold | None:
    """How ``node`` reduces, or None when the kernel cannot give NumPy's result."""
    source, result = node.inputs[0].dtype, node.outputs[0].dtype
    if source not in SUPPORTED_DTYPES or (source.kind == "b") != (node.op in _BOOLEAN):
        return None
    if not reduced_axes(node):
        return None  # axis=() copies its operand in NumPy (a -0.0 stays -0.0): on the plan
    if node.op not in _BOOLEAN and result != source:
        return None
    if node.op in (REDUCE_MAX, REDUCE_MIN, REDUCE_MEAN) and 0 in _reduced_sizes(node):
        return None  # the extreme (and the integer mean) of nothing raise on the plan
    fold = _FOLDS[node.op](source)
    if fold is None or source.kind != "f" or node.op in (REDUCE_MAX, REDUCE_MIN):
        return fold
    layout = _layout(node)
    if layout is None:
        return None
    pairwise = layout == "trailing" and node.op is not REDUCE_PROD  # NumPy pairs only sums
    return Fold(fold.accumulator, fold.initial, fold.combine, fold.finish, pairwise)


def _layout(node: Node) -> str | None:
    """"trailing" when the reduced axes of size > 1 all follow the kept ones (each result's
    terms are contiguous), "leading" when they all precede them, None otherwise."""
    shape, reduced = node.inputs[0].shape, set(reduced_axes(node))
    sizes = [(axis in reduced) for axis, size in enumerate(shape) if size != 1]
    if sizes == sorted(sizes):
        return "trailing"
    if sizes == sorted(sizes, reverse=True):
        return "leading"
    return None


def reduced_axes(node: Node) -> tuple[int, ...]:
    rank = len(node.inputs[0].shape)
    axis = node.attrs.get("axis")
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    return tuple(sorted({int(a) % rank for a in axes}))


def run_start(node: Node) -> int:
    """The axis where the run of terms of a pairwise sum starts: its first reduced axis of
    size > 1 (a reduced axis of size 1 adds no term, and may precede kept axes), or the rank
    when every reduced axis has size 1 (each run is one term)."""
    shape = node.inputs[0].shape
    return min((axis for axis in reduced_axes(node) if shape[axis] != 1), default=len(shape))


def _reduced_sizes(node: Node) -> list[int]:
    return [node.inputs[0].shape[a] for a in reduced_axes(node)]


def element_count(node: Node) -> int:
    return int(np.prod(_reduced_sizes(node), dtype=np.int64))
