"""``Dot``: the dot product of two batches of tensors along one axis of each, sample by
sample (Keras' ``batch_dot``), and its functional spelling ``dot(inputs, axes)``."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import convert_to_tensor, expand_dims, squeeze, transpose
from runtime.ops.linalg_ops import matmul
from runtime.ops.normalization_ops import l2_normalize
from runtime.ops.reduce_ops import reduce_sum


class Dot(Layer):
    """``[x, y]`` -> the sum of ``x * y`` along ``axes`` (one axis for both, or one each),
    per sample; with ``normalize=True``, of their unit vectors along those axes (the cosine
    similarity). Two vectors per sample give shape (batch, 1); otherwise the remaining axes of
    ``x`` then of ``y``, as a matrix product. Inputs of rank 2 and 3 are supported."""

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(axes, (int, list, tuple)) or (
                not isinstance(axes, int) and len(axes) != 2):
            raise TypeError(f"Dot: axes must be an int or a pair of ints, got {axes!r}.")
        self.axes, self.normalize = axes, normalize

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f"{self.name}: Dot takes a list of two tensors, got {inputs!r}.")
        x, y = (convert_to_tensor(value) for value in inputs)
        x_axis, y_axis = self._axes_of(x.ndim, y.ndim)
        if self.normalize:
            x, y = l2_normalize(x, axis=x_axis), l2_normalize(y, axis=y_axis)
        return batch_dot(x, y, x_axis, y_axis, self.name)

    def _axes_of(self, x_rank: int, y_rank: int) -> tuple[int, int]:
        pair = (self.axes, self.axes) if isinstance(self.axes, int) else tuple(self.axes)
        return pair[0] % x_rank, pair[1] % y_rank

    def compute_output_shape(self, input_shape):
        x_shape, y_shape = (tuple(shape) for shape in input_shape)
        x_axis, y_axis = self._axes_of(len(x_shape), len(y_shape))
        rest = [d for i, d in enumerate(x_shape) if i not in (0, x_axis)] + \
            [d for i, d in enumerate(y_shape) if i not in (0, y_axis)]
        return (x_shape[0],) + tuple(rest or [1])

    def get_config(self):
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def batch_dot(x, y, x_axis: int, y_axis: int, name: str = "dot"):
    """Per sample, ``x`` and ``y`` contracted along ``x_axis`` and ``y_axis`` (not the batch
    axis 0)."""
    if x_axis == 0 or y_axis == 0 or not (2 <= x.ndim <= 3 and 2 <= y.ndim <= 3):
        raise NotImplementedError(f"{name}: Dot is supported by rt.keras for inputs of rank 2 "
                                  f"or 3 along axes other than the batch axis; got ranks "
                                  f"{x.ndim} and {y.ndim}, axes {x_axis} and {y_axis}.")
    if x.ndim == 2 and y.ndim == 2:
        return reduce_sum(x * y, axis=1, keepdims=True)
    if x.ndim == 3 and x_axis != 2:
        x = transpose(x, [0, 2, 1])  # the contracted axis last
    if y.ndim == 3 and y_axis != 1:
        y = transpose(y, [0, 2, 1])  # the contracted axis after the batch
    if x.ndim == 2:
        return squeeze(matmul(expand_dims(x, 1), y), 1)
    if y.ndim == 2:
        return squeeze(matmul(x, expand_dims(y, 2)), 2)
    return matmul(x, y)


def dot(inputs, axes=-1, normalize=False, **kwargs):
    """``Dot(axes, normalize)(inputs)``."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)
