"""The steps of an update written once for a dense gradient and for rows (``IndexedSlices``,
an embedding's gradient), taking rows the way Keras' optimizers do on TensorFlow.

There a gradient of rows stays rows through what keeps zeros zero (scaling, squaring, a
division by a dense tensor, whose rows are gathered), becomes the dense gradient (the rows
of a repeated id added up) where it meets a dense tensor in a sum, and is applied to a
variable row by row (a repeated id's rows subtracted one after the other). So Adam's second
moment adds the squares of a repeated id's rows, where the dense gradient would square
their sum. A dense gradient goes through each step as the plain op. (Keras' division also
writes the rows where the dense divisor is zero or NaN, which RMSprop's epsilon keeps away;
here only the gradient's rows are written.)
"""

from __future__ import annotations

from typing import Callable

from runtime.ops.array_ops import convert_to_tensor, expand_dims, gather
from runtime.ops.indexed_slices import IndexedSlices
from runtime.ops.math_ops import negative
from runtime.ops.scatter_ops import tensor_scatter_nd_add
from runtime.tensor import Tensor
from runtime.variables import Variable


def dense(gradient) -> Tensor:
    """The gradient as a tensor: rows are added into zeros."""
    return convert_to_tensor(gradient) if isinstance(gradient, IndexedSlices) else gradient


def map_rows(fn: Callable, gradient):
    """``fn`` (element-wise, ``fn(0) == 0``) applied to the gradient, or to each of its rows."""
    if isinstance(gradient, IndexedSlices):
        return gradient.with_rows(fn(gradient.values), gradient.indices)
    return fn(gradient)


def map_rows_with(fn: Callable, gradient, other: Tensor):
    """``fn(gradient, other)`` for a dense ``other`` of the variable's shape; of rows, each
    row with the row of ``other`` at its index."""
    if isinstance(gradient, IndexedSlices):
        return gradient.with_rows(fn(gradient.values, gather(other, gradient.indices)),
                                  gradient.indices)
    return fn(gradient, other)


def add_to(variable: Variable, delta) -> None:
    """``variable += delta``; rows are added one at a time at their indices."""
    if isinstance(delta, IndexedSlices):
        variable.assign(tensor_scatter_nd_add(variable.value(), expand_dims(delta.indices, -1),
                                              delta.values))
    else:
        variable.assign_add(delta)


def subtract_from(variable: Variable, delta) -> None:
    """``variable -= delta``; rows are subtracted one at a time at their indices."""
    if isinstance(delta, IndexedSlices):
        add_to(variable, map_rows(negative, delta))
    else:
        variable.assign_sub(delta)
