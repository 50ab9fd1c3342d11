"""``x[key]`` and its gradient (zeros with ``dy`` added at the key) in JAX.

The key is rebuilt from the op's spec and its tensor inputs, as the graph's kernel does. JAX
follows NumPy's indexing rules, with two differences the rules remove: an integer index out
of range raises when the call runs (XLA would clamp it), and a boolean mask or a slice bound
must be known while JAX traces, since the result's shape depends on it.
"""

from __future__ import annotations

import numpy as np

import jax.numpy as jnp

from runtime.export.jax_arrays import first_outside
from runtime.export.jax_checks import check
from runtime.export.jax_values import is_known, known, to_jax
from runtime.ops import indexing


def _bound(node, part, arrays):
    if isinstance(part, indexing._Input):
        return int(known(node, arrays[part.index], "a slice bound"))
    return part


def _consumed(item, arrays) -> int:
    if item is Ellipsis or item is None:
        return 0
    if isinstance(item, indexing._Input) and arrays[item.index].dtype == np.bool_:
        return arrays[item.index].ndim
    return 1


def rebuild(node, spec, arrays, shape: tuple) -> tuple:
    """The key, with known masks and slice bounds, and a check that each integer index
    array is in range for the axis it indexes."""
    key, axis, rank = [], 0, len(shape)
    taken = sum(_consumed(item, arrays) for item in spec)
    for item in spec:
        if item is Ellipsis:
            key.append(item)
            axis += rank - taken
        elif item is None:
            key.append(None)
        elif isinstance(item, slice):
            key.append(slice(*(_bound(node, p, arrays) for p in (item.start, item.stop,
                                                                   item.step))))
            axis += 1
        elif isinstance(item, indexing._Input):
            index = arrays[item.index]
            if index.dtype == np.bool_:
                key.append(known(node, index, "a boolean mask index (it selects a number of "
                                              "elements known only when the graph runs)"))
            else:
                key.append(_checked_index(node, index, axis, shape[axis]))
            axis += _consumed(item, arrays)
        else:
            key.append(item)
            axis += 1
    return tuple(key)


def _checked_index(node, index, axis: int, size: int):
    if not is_known(index):
        index = to_jax(index, index.dtype, node)
    inside = (index >= -size) & (index < size)
    check(node, inside, lambda values: f"index {first_outside(values, size)} is out of bounds "
                                       f"for axis {axis} with size {size}", index)
    return index


def _getitem(node, x, *arrays):
    x = to_jax(x, x.dtype, node)
    return x[rebuild(node, node.attrs["spec"], arrays, x.shape)]


def _getitem_grad(node, dy, *arrays):
    shape = node.attrs["shape"]
    if shape is None or None in shape:
        shape, arrays = tuple(int(d) for d in known(node, arrays[-1], "the shape")), arrays[:-1]
    dy = to_jax(dy, dy.dtype, node)
    key = rebuild(node, node.attrs["spec"], arrays, tuple(shape))
    return jnp.zeros(shape, dy.dtype).at[key].add(dy)


LOWERINGS = {
    indexing.GETITEM: _getitem,
    indexing.GETITEM_GRAD: _getitem_grad,
}
