"""``rt.nn.dropout``: TensorFlow's ``tf.nn.dropout`` composed from a uniform draw (an
effect, so every call of a graph drops anew) and a multiply, so the gradient reaches the
kept values scaled as they were.

``tf.nn.dropout`` has no ``training`` flag (Keras's ``Dropout`` layer has one); ours takes
``training=True`` as a keyword for the same purpose: False returns ``x`` unchanged.
"""

from __future__ import annotations

import numbers

from runtime.ops.array_ops import cast, shape
from runtime.ops.math_ops import greater_equal, multiply
from runtime.ops.nn_ops import _floating
from runtime.ops.random_ops import uniform
from runtime.tensor import Tensor


def dropout(x, rate, noise_shape=None, seed=None, training: bool = True) -> Tensor:
    """Each element of ``x`` zeroed with probability ``rate``, the others scaled by
    ``1 / (1 - rate)`` so the expected sum is unchanged. ``noise_shape`` (broadcast against
    ``x``; ints, or tensors such as ``rt.shape(x)[0]``) shares one draw along its size-1
    dimensions; ``seed`` makes the draws repeat after ``rt.random.set_seed``."""
    x = _floating("dropout", x)
    if not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
        raise ValueError(f"dropout: rate must be a number in [0, 1), got {rate!r}.")
    if not training or rate == 0:
        return x
    if noise_shape is None:  # a tensor when some dimensions are known only as the graph runs
        noise_shape = x.shape if x.shape is not None and None not in x.shape else shape(x)
    keep = cast(greater_equal(uniform(noise_shape, dtype=x.dtype, seed=seed), rate), x.dtype)
    return multiply(x, multiply(keep, 1.0 / (1.0 - rate)))

