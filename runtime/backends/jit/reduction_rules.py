"""Reductions inside kernels: how each starts, folds in one element, and ends.

A reduction reads the elements of the loop nest it joins (so ``sum(square(a - b))`` never
makes the squared array). Integer sums and products fold in the node's dtype, wrapping
around as NumPy's do (the result does not depend on the order). Float sums, products and
means fold in float64 and round once at the end: NumPy's pairwise float32 sum differs from
the exact one by a few units in the last place, and this one by at most one.
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
    """``accumulator = combine(accumulator, element)`` from ``initial``, then ``finish``."""

    accumulator: np.dtype
    initial: str
    combine: str          # a template of {acc} and {x}
    finish: str = "{acc}"  # a template of {acc} and {count}


def _float_or_exact(dtype: np.dtype) -> np.dtype:
    return np.dtype(np.float64) if dtype.kind == "f" else dtype


def _combine(accumulator: np.dtype, operator: str) -> str:
    if accumulator == np.int64:  # see helpers: Numba's int64 arithmetic may not wrap
        return ("wrapping_add" if operator == "+" else "wrapping_mul") + "({acc}, {x})"
    return f"{numba_type(accumulator)}({{acc}} {operator} {{x}})"


def _sum(dtype: np.dtype) -> Fold | None:
    accumulator = _float_or_exact(dtype)
    return Fold(accumulator, literal(accumulator.type(0)), _combine(accumulator, "+"))


def _prod(dtype: np.dtype) -> Fold | None:
    accumulator = _float_or_exact(dtype)
    return Fold(accumulator, literal(accumulator.type(1)), _combine(accumulator, "*"))


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
    return Fold(np.dtype(np.float64), "np.float64(0)", "({acc} + {x})", "({acc} / {count})")


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
    if node.op not in _BOOLEAN and result != source:
        return None
    if node.op in (REDUCE_MAX, REDUCE_MIN, REDUCE_MEAN) and 0 in _reduced_sizes(node):
        return None  # the extreme (and the integer mean) of nothing raise on the plan
    return _FOLDS[node.op](source)


def reduced_axes(node: Node) -> tuple[int, ...]:
    rank = len(node.inputs[0].shape)
    axis = node.attrs.get("axis")
    if axis is None:
        return tuple(range(rank))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else axis
    return tuple(sorted({int(a) % rank for a in axes}))


def _reduced_sizes(node: Node) -> list[int]:
    return [node.inputs[0].shape[a] for a in reduced_axes(node)]


def element_count(node: Node) -> int:
    return int(np.prod(_reduced_sizes(node), dtype=np.int64))
