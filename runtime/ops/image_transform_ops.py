"""Affine transforms of image batches, as Keras' ``RandomRotation``, ``RandomZoom`` and
``RandomTranslation`` use them: each output pixel ``(x, y)`` of image ``i`` is read at the
point ``A_i @ (x, y, 1)`` of the input (``transforms[i]`` holds the two rows of ``A_i``, six
numbers, like the first six of TensorFlow's projective transforms), with bilinear or
nearest-neighbour interpolation; a point outside the image is mapped back in by the fill mode.

Fill modes (TensorFlow's): ``reflect`` mirrors about the edge of the outer pixels
(``d c b a | a b c d | d c b a``), ``wrap`` tiles the image, ``nearest`` repeats the edge
pixel, ``constant`` reads ``fill_value`` for every neighbour outside the image.
"""

from __future__ import annotations

import numpy as np

from runtime.ops.dispatch import apply_op, convert_to_tensor
from runtime.ops.registry import OpDef, register
from runtime.tensor import Tensor, format_shape

FILL_MODES = ("reflect", "wrap", "nearest", "constant")
INTERPOLATIONS = ("bilinear", "nearest")


def _inside(coordinate: np.ndarray, size: int, fill_mode: str) -> np.ndarray:
    """``coordinate`` (pixel centres at 0 .. size - 1) mapped into the image by the fill
    mode; ``constant`` leaves it as it is (its neighbours outside read the fill value)."""
    if fill_mode == "reflect":
        period = (coordinate + 0.5) % (2 * size)
        return np.where(period < size, period, 2 * size - period) - 0.5
    if fill_mode == "wrap":
        return (coordinate + 0.5) % size - 0.5
    if fill_mode == "nearest":
        return np.clip(coordinate, 0, size - 1)
    return coordinate


def _neighbour(index: np.ndarray, size: int, fill_mode: str) -> np.ndarray:
    """An interpolation neighbour's pixel index: a point mapped inside may still have a
    neighbour one pixel beyond the edge, which ``wrap`` takes from the other side and
    ``reflect``/``nearest`` take at the edge (``constant`` reads the fill value there)."""
    return index % size if fill_mode == "wrap" else index


def _read(images: np.ndarray, batch: np.ndarray, rows: np.ndarray, columns: np.ndarray,
          fill_mode: str, fill_value: float) -> np.ndarray:
    """The pixels at integer ``rows`` and ``columns`` (``[batch, height, width]`` each);
    ``[batch, height, width, channels]``."""
    height, width = images.shape[1:3]
    rows, columns = _neighbour(rows, height, fill_mode), _neighbour(columns, width, fill_mode)
    pixels = images[batch, np.clip(rows, 0, height - 1), np.clip(columns, 0, width - 1)]
    if fill_mode != "constant":
        return pixels
    outside = (rows < 0) | (rows >= height) | (columns < 0) | (columns >= width)
    return np.where(outside[..., None], np.asarray(fill_value, images.dtype), pixels)


def _transform_kernel(images, transforms, *, interpolation: str, fill_mode: str,
                      fill_value: float):
    count, height, width = images.shape[:3]
    ys, xs = np.meshgrid(np.arange(height, dtype=np.float64), np.arange(width, dtype=np.float64),
                         indexing="ij")
    a = transforms.astype(np.float64)[:, :, None, None]
    x_in = _inside(a[:, 0] * xs + a[:, 1] * ys + a[:, 2], width, fill_mode)
    y_in = _inside(a[:, 3] * xs + a[:, 4] * ys + a[:, 5], height, fill_mode)
    batch = np.arange(count)[:, None, None]
    values = images.astype(np.float64)

    def read(rows, columns):
        return _read(values, batch, rows.astype(np.int64), columns.astype(np.int64), fill_mode,
                     fill_value)

    if interpolation == "nearest":
        result = read(np.floor(y_in + 0.5), np.floor(x_in + 0.5))
    else:
        top, left = np.floor(y_in), np.floor(x_in)
        dy, dx = (y_in - top)[..., None], (x_in - left)[..., None]
        result = ((1 - dy) * ((1 - dx) * read(top, left) + dx * read(top, left + 1))
                  + dy * ((1 - dx) * read(top + 1, left) + dx * read(top + 1, left + 1)))
    return result.astype(images.dtype)


def _transform_infer(images, transforms, **attrs):
    return images.dtype, images.shape


# Used for data augmentation, in front of a model's trainable layers: no gradient rule
# (asking for a gradient through it is an error, not a silent zero).
TRANSFORM = register(OpDef("image_affine_transform", _transform_kernel, _transform_infer))


def transform(images, transforms, interpolation: str = "bilinear", fill_mode: str = "reflect",
              fill_value: float = 0.0) -> Tensor:
    """``images`` ``[batch, height, width, channels]`` (float) transformed by
    ``transforms`` ``[batch, 6]`` (see the module docstring)."""
    images, transforms = convert_to_tensor(images), convert_to_tensor(transforms)
    if images.shape is None or len(images.shape) != 4:
        raise ValueError(f"transform: expected a batch of images [batch, height, width, "
                         f"channels], got shape {format_shape(images.shape)}.")
    if images.dtype.kind != "f":
        raise TypeError(f"transform: images must be floats, got {images.dtype.name}.")
    if interpolation not in INTERPOLATIONS or fill_mode not in FILL_MODES:
        raise ValueError(f"transform: interpolation must be one of {INTERPOLATIONS} and "
                         f"fill_mode one of {FILL_MODES}, got {interpolation!r} and "
                         f"{fill_mode!r}.")
    return apply_op(TRANSFORM, (images, transforms),
                    {"interpolation": interpolation, "fill_mode": fill_mode,
                     "fill_value": float(fill_value)})
