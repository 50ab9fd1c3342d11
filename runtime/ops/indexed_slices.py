"""``rt.IndexedSlices``: a gradient made of rows of a tensor, as the gradient of a gather
along axis 0 is (an embedding lookup's).

TensorFlow keeps such a gradient as rows and the ids they belong to, one row per id looked
up (an id looked up twice gives two rows, not summed), and optimizers see it in that form:
Keras' optimizers then update some slots from each row (Adam's second moment squares the
rows before adding those of a repeated id), which differs from updating with the summed
dense gradient. Anything else that takes one as an input (an op, a traced function's
output, a loop variable) gets the dense gradient: the rows added into zeros.
"""

from __future__ import annotations

import numpy as np

from runtime.ops.dispatch import constant
from runtime.ops.indexing import getitem_grad
from runtime.tensor import Tensor, format_shape


class IndexedSlices:
    """Rows of a tensor of shape ``shape``: ``values[i]`` is added to row ``indices[i]``
    (TensorFlow's ``tf.IndexedSlices``). ``shape_tensor`` gives the shape when ``shape`` is
    not fully known while tracing."""

    __slots__ = ("values", "indices", "_shape", "_shape_tensor")

    def __init__(self, values: Tensor, indices: Tensor, shape: tuple,
                 shape_tensor: Tensor | None = None):
        self.values, self.indices = values, indices
        self._shape, self._shape_tensor = tuple(shape), shape_tensor

    @property
    def dtype(self) -> np.dtype:
        """The dtype of the rows (and of the dense tensor)."""
        return self.values.dtype

    @property
    def shape(self) -> tuple:
        """The shape of the dense tensor (``None`` for a dimension unknown while tracing)."""
        return self._shape

    @property
    def dense_shape(self) -> Tensor:
        """The shape of the dense tensor, as an int64 tensor."""
        if self._shape_tensor is not None:
            return self._shape_tensor
        return constant(np.array(self._shape, np.int64))

    def with_rows(self, values: Tensor, indices: Tensor) -> "IndexedSlices":
        """Other rows of a tensor of the same shape."""
        return IndexedSlices(values, indices, self._shape, self._shape_tensor)

    def _read_value_for_op(self) -> Tensor:
        """The dense tensor: each row added into zeros at its index (repeats add up)."""
        return getitem_grad(self.values, (self.indices,), self._shape, self._shape_tensor)

    def __repr__(self) -> str:
        return (f"<rt.IndexedSlices of shape {format_shape(self._shape)}, "
                f"{self.dtype.name}>")
