"""``foldl`` and ``foldr``: ``fn`` folded over the elements of ``elems`` along the leading axis,
as one ``while_loop`` (so they run eagerly, trace into one graph loop whatever the number of
elements, and have that loop's gradients). Only the final accumulator is kept; ``rt.scan``
keeps every one."""

from __future__ import annotations

from typing import Callable

import numpy as np

from runtime import nest
from runtime.control_flow import while_loop
from runtime.conversion import converted
from runtime.errors import ShapeError
from runtime.ops.array_ops import constant, shape
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.math_ops import less, subtract


def foldl(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop: bool = True,
          swap_memory: bool = False, name=None):
    """``fn(...fn(fn(initializer, elems[0]), elems[1])..., elems[n-1])``; without an
    initializer, ``elems[0]`` starts and the fold goes over the rest. The other arguments are
    TensorFlow's, accepted and unused."""
    return _fold("foldl", fn, elems, initializer, reverse=False)


def foldr(fn: Callable, elems, initializer=None, parallel_iterations=10, back_prop: bool = True,
          swap_memory: bool = False, name=None):
    """``foldl`` from the last element to the first (``elems[n-1]`` starts when there is no
    initializer)."""
    return _fold("foldr", fn, elems, initializer, reverse=True)


def _fold(op_name: str, fn: Callable, elems, initializer, reverse: bool):
    fn = converted(fn)  # as TensorFlow applies AutoGraph to the folded function
    flat = [convert_to_tensor(value) for value in nest.flatten(elems)]
    if not flat or any(value.shape == () for value in flat):
        raise ShapeError(f"{op_name}: elems must hold tensors with a leading axis to fold "
                         f"over, got {elems!r}.")
    size = flat[0].shape[0] if flat[0].shape is not None else None
    size = shape(flat[0])[0] if size is None else size

    def element(position):
        index = subtract(subtract(size, 1), position) if reverse else position
        return nest.pack_like(elems, [value[index] for value in flat])

    if initializer is None:
        structure, start = elems, 1
        accumulator = nest.flatten(element(constant(np.int32(0))))
    else:
        structure, start = initializer, 0
        accumulator = [convert_to_tensor(value) for value in nest.flatten(initializer)]

    def body(position, accumulator):
        result = fn(nest.pack_like(structure, accumulator), element(position))
        return position + 1, [convert_to_tensor(value) for value in nest.flatten(result)]

    _, accumulator = while_loop(lambda position, _: less(position, size), body,
                                (constant(np.int32(start)), accumulator))
    return nest.pack_like(structure, accumulator)
