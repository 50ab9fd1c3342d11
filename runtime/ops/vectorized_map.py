"""``vectorized_map``: TensorFlow vectorizes ``fn`` over the leading axis; here it is
``map_fn``, one element at a time, which gives the same results. Unlike ``map_fn`` it needs no
output signature: ``fn`` is traced once on an element's placeholders, in a graph that is
then thrown away, to learn the structure, dtypes and shapes of what it returns (so Python
code in ``fn`` runs once more while tracing, as it does in TensorFlow)."""

from __future__ import annotations

from typing import Any, Callable

from runtime import dtypes, nest, tracing
from runtime.conversion import converted
from runtime.functional_ops import map_fn
from runtime.graph import Graph
from runtime.ops.dispatch import convert_to_tensor
from runtime.tensor import Tensor, TensorSpec


def _output_signature(fn: Callable, elems) -> Any:
    """What ``fn`` returns for one element of ``elems``, as ``TensorSpec``s."""
    leaves = [convert_to_tensor(leaf) for leaf in nest.flatten(elems)]
    current = tracing.current_graph()
    scratch = Graph(f"{current.name if current else 'eager'}/vectorized_map", parent=current)
    with tracing.building(scratch):
        element = [scratch.add_placeholder(leaf.dtype, None if leaf.shape is None else
                                           leaf.shape[1:], f"element{position}")
                   for position, leaf in enumerate(leaves)]
        result = converted(fn)(nest.pack_like(elems, element))
    return nest.map_structure(
        lambda leaf: TensorSpec(leaf.shape, leaf.dtype) if isinstance(leaf, Tensor)
        else TensorSpec(None, dtypes.to_array(leaf).dtype), result)


def vectorized_map(fn: Callable, elems, fallback_to_while_loop: bool = True,
                   warn: bool = True):
    """``fn`` applied to each element of ``elems`` along the leading axis (of every tensor of
    a structure at once), the results stacked: ``map_fn`` with the output signature ``fn``
    gives. ``fallback_to_while_loop`` and ``warn`` are accepted for TensorFlow's sake."""
    return map_fn(fn, elems, fn_output_signature=_output_signature(fn, elems))
