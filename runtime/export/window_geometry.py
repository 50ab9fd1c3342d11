"""Window geometry both exporters need for convolutions and pools, from the kernels' own
helpers in ``conv_ops``, so an exported op pads and counts exactly as the graph does.

TensorFlow's SAME padding depends on the input's size: the total is what makes the output
``ceil(size / stride)`` long, and an odd total puts the extra element after. ONNX and XLA take
padding as numbers, so the exporters compute them here from the shapes known while tracing.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from runtime.ops.conv_ops import geometry, output_size, pads, windows

_ONES = (1, 1)


def spatial_pads(hw: Sequence[int], window: Sequence[int], strides: Sequence[int],
                 dilations: Sequence[int], padding: str) -> list[tuple[int, int]]:
    """``[(top, bottom), (left, right)]`` for an input of height and width ``hw``."""
    return [pads(hw[i], window[i], strides[i], dilations[i], padding) for i in range(2)]


def output_hw(hw: Sequence[int], window: Sequence[int], strides: Sequence[int],
              dilations: Sequence[int], padding: str) -> list[int]:
    return [output_size(hw[i], window[i], strides[i], dilations[i], padding) for i in range(2)]


def unread_tail(hw: Sequence[int], window: Sequence[int], strides: Sequence[int],
                dilations: Sequence[int], padding: str) -> list[int]:
    """Per spatial dimension, how many rows (columns) at the end of the padded input no window
    reads: what a transposed convolution adds back (ONNX's ``output_padding``). Always less
    than the stride."""
    out = output_hw(hw, window, strides, dilations, padding)
    pad = spatial_pads(hw, window, strides, dilations, padding)
    return [hw[i] + sum(pad[i]) - ((out[i] - 1) * strides[i] + (window[i] - 1) * dilations[i] + 1)
            for i in range(2)]


def window_counts(hw: Sequence[int], ksize: Sequence[int], strides: Sequence[int],
                  padding: str, dtype) -> np.ndarray:
    """``[1, OH, OW, 1]``: how many real (unpadded) elements each pooling window holds, the
    divisor of TensorFlow's average pool."""
    shape = (1, int(hw[0]), int(hw[1]), 1)
    out, pad = geometry(shape, ksize, strides, _ONES, padding)
    ones = np.pad(np.ones(shape, dtype), ((0, 0), pad[0], pad[1], (0, 0)))
    return windows(ones, ksize, strides, _ONES, out).sum(axis=(3, 4), dtype=dtype)
