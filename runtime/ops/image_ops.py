"""TensorFlow's ``tf.image`` basics as compositions of existing ops (so gradients, constant
folding and export come with them): resizing (bilinear and nearest neighbour, TensorFlow 2's
half-pixel centers), flips and rotations, crops and pads, dtype conversion with TensorFlow's
scaling, colour and contrast adjustments, and the random flips and adjustments of data
augmentation.

An image is ``[height, width, channels]`` or a batch ``[batch, height, width, channels]``; the
height and width must be known while tracing (the sizes of a resize, a crop or a pad are
computed from them in Python).
"""

from __future__ import annotations

import numpy as np

from runtime import dtypes
from runtime.ops.array_ops import (cast, concat, expand_dims, gather, shape as shape_of,
                                   squeeze, transpose, where)
from runtime.ops.dispatch import convert_to_tensor
from runtime.ops.einsum_ops import tensordot
from runtime.ops.layout_ops import reverse
from runtime.ops.math_composites import reduce_std, rsqrt, saturate_cast
from runtime.ops.math_ops import (add, divide, floordiv, less, log, maximum, multiply,
                                  subtract)
from runtime.ops.pad_ops import pad
from runtime.ops.random_ops import uniform
from runtime.ops.reduce_ops import reduce_mean
from runtime.tensor import Tensor, format_shape

_METHODS = ("bilinear", "nearest")


class ResizeMethod:
    """The names of ``resize``'s methods (TensorFlow's ``tf.image.ResizeMethod``); only
    ``BILINEAR`` and ``NEAREST_NEIGHBOR`` are supported."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _image(op_name: str, image) -> Tensor:
    image = convert_to_tensor(image)
    if image.shape is None or len(image.shape) not in (3, 4):
        raise ValueError(f"{op_name}: expected an image [height, width, channels] or a batch "
                         f"[batch, height, width, channels], got a tensor of shape "
                         f"{format_shape(image.shape)}.")
    return image


def image_size(op_name: str, image: Tensor) -> tuple[int, int]:
    """The image's height and width, which must be known while tracing."""
    height, width = image.shape[-3], image.shape[-2]
    if height is None or width is None:
        raise ValueError(f"{op_name}: the image's height and width must be known while tracing, "
                         f"got shape {format_shape(image.shape)}; give the function an "
                         f"input_signature with the image size, or resize before tracing.")
    return int(height), int(width)


def _batched(fn, image: Tensor) -> Tensor:
    """``fn`` of a batch, applied to one image as a batch of one."""
    if len(image.shape) == 4:
        return fn(image)
    return squeeze(fn(expand_dims(image, 0)), [0])


# -- resizing ------------------------------------------------------------------------------


def _bilinear_weights(in_size: int, out_size: int):
    """TensorFlow's half-pixel-center source positions: the lower and upper neighbours and
    the weight of the upper one, per output position (computed in float32, as it does)."""
    scale = np.float32(in_size) / np.float32(out_size)
    position = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale - np.float32(0.5)
    floor = np.floor(position)
    lower = np.maximum(floor, 0).astype(np.int64)
    upper = np.minimum(np.ceil(position), in_size - 1).astype(np.int64)
    return lower, upper, (position - floor).astype(np.float32)


def _nearest_indices(in_size: int, out_size: int) -> np.ndarray:
    scale = np.float32(in_size) / np.float32(out_size)
    position = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale
    return np.minimum(np.floor(position), in_size - 1).astype(np.int64)


def _resize_batch(images: Tensor, height: int, width: int, method: str) -> Tensor:
    in_height, in_width = image_size("image.resize", images)
    if method == "nearest":
        rows = gather(images, _nearest_indices(in_height, height), axis=1)
        return gather(rows, _nearest_indices(in_width, width), axis=2)
    images = cast(images, dtypes.float32)
    top, bottom, y_lerp = _bilinear_weights(in_height, height)
    left, right, x_lerp = _bilinear_weights(in_width, width)
    y_lerp, x_lerp = y_lerp.reshape(1, -1, 1, 1), x_lerp.reshape(1, 1, -1, 1)

    def across(rows):
        left_values, right_values = gather(rows, left, axis=2), gather(rows, right, axis=2)
        return add(left_values, multiply(subtract(right_values, left_values), x_lerp))

    upper, lower = across(gather(images, top, axis=1)), across(gather(images, bottom, axis=1))
    return add(upper, multiply(subtract(lower, upper), y_lerp))


def resize(images, size, method: str = "bilinear", preserve_aspect_ratio: bool = False,
           antialias: bool = False) -> Tensor:
    """``images`` resized to ``size`` ``[height, width]``: ``"bilinear"`` (float32 results)
    or ``"nearest"`` (the input's dtype), with TensorFlow 2's half-pixel centers.
    ``preserve_aspect_ratio`` fits the image inside ``size`` instead."""
    images = _image("image.resize", images)
    if method not in _METHODS:
        raise NotImplementedError(
            f"image.resize: method {method!r} is not supported yet; the supported methods are "
            f"{', '.join(map(repr, _METHODS))}.")
    if antialias:
        raise NotImplementedError("image.resize: antialias=True is not supported yet; resize "
                                  "with antialias=False (the default).")
    height, width = (int(d) for d in size)
    if preserve_aspect_ratio:
        in_height, in_width = image_size("image.resize", images)
        scale = min(np.float32(height) / np.float32(in_height),
                    np.float32(width) / np.float32(in_width))
        height = int(np.round(scale * np.float32(in_height)))
        width = int(np.round(scale * np.float32(in_width)))
    return _batched(lambda batch: _resize_batch(batch, height, width, method), images)


def resize_with_pad(image, target_height: int, target_width: int,
                    method: str = "bilinear", antialias: bool = False) -> Tensor:
    """``image`` resized to fit ``target_height`` x ``target_width`` keeping its aspect ratio,
    then padded with zeros (centred) to exactly that size."""
    image = _image("image.resize_with_pad", image)
    height, width = image_size("image.resize_with_pad", image)
    ratio = max(width / target_width, height / target_height)
    resized_height, resized_width = height / ratio, width / ratio
    top = max(0, int(np.floor((target_height - resized_height) / 2)))
    left = max(0, int(np.floor((target_width - resized_width) / 2)))
    resized = resize(image, [int(np.floor(resized_height)), int(np.floor(resized_width))],
                     method=method, antialias=antialias)
    return pad_to_bounding_box(resized, top, left, target_height, target_width)


# -- flips, rotations, crops and pads ------------------------------------------------------


def flip_left_right(image) -> Tensor:
    """The image mirrored along its width."""
    return reverse(_image("image.flip_left_right", image), [-2])


def flip_up_down(image) -> Tensor:
    """The image mirrored along its height."""
    return reverse(_image("image.flip_up_down", image), [-3])


def transpose_image(image) -> Tensor:
    """Height and width swapped (``tf.image.transpose``)."""
    image = _image("image.transpose", image)
    return transpose(image, [1, 0, 2] if len(image.shape) == 3 else [0, 2, 1, 3])


def rot90(image, k: int = 1) -> Tensor:
    """The image rotated counter-clockwise by ``k`` quarter turns."""
    image = _image("image.rot90", image)
    for _ in range(int(k) % 4):
        image = flip_up_down(transpose_image(image))
    return image


def crop_to_bounding_box(image, offset_height: int, offset_width: int, target_height: int,
                         target_width: int) -> Tensor:
    """The ``target_height`` x ``target_width`` part of the image at the given offsets."""
    image = _image("image.crop_to_bounding_box", image)
    height, width = image_size("image.crop_to_bounding_box", image)
    if offset_height + target_height > height or offset_width + target_width > width \
            or min(offset_height, offset_width) < 0 or min(target_height, target_width) <= 0:
        raise ValueError(f"image.crop_to_bounding_box: a {target_height}x{target_width} box at "
                         f"({offset_height}, {offset_width}) does not fit in an image of "
                         f"{height}x{width}.")
    return image[..., offset_height:offset_height + target_height,
                 offset_width:offset_width + target_width, :]


def pad_to_bounding_box(image, offset_height: int, offset_width: int, target_height: int,
                        target_width: int) -> Tensor:
    """The image placed at the given offsets in zeros of ``target_height`` x ``target_width``."""
    image = _image("image.pad_to_bounding_box", image)
    height, width = image_size("image.pad_to_bounding_box", image)
    bottom = target_height - offset_height - height
    right = target_width - offset_width - width
    if min(offset_height, offset_width, bottom, right) < 0:
        raise ValueError(f"image.pad_to_bounding_box: an image of {height}x{width} at "
                         f"({offset_height}, {offset_width}) does not fit in "
                         f"{target_height}x{target_width}.")
    paddings = [[offset_height, bottom], [offset_width, right], [0, 0]]
    return pad(image, paddings if len(image.shape) == 3 else [[0, 0]] + paddings)


def central_crop(image, central_fraction: float) -> Tensor:
    """The central ``central_fraction`` of the image's height and width (TensorFlow's
    rounding of the box)."""
    image = _image("image.central_crop", image)
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(f"image.central_crop: central_fraction must be in (0, 1], got "
                         f"{central_fraction}.")
    if central_fraction == 1.0:
        return image
    height, width = image_size("image.central_crop", image)
    fraction_offset = int(1 / ((1 - central_fraction) / 2.0))
    top, left = int(height / fraction_offset), int(width / fraction_offset)
    return crop_to_bounding_box(image, top, left, height - 2 * top, width - 2 * left)


def resize_with_crop_or_pad(image, target_height: int, target_width: int) -> Tensor:
    """The image centrally cropped and/or padded with zeros to the target size."""
    image = _image("image.resize_with_crop_or_pad", image)
    height, width = image_size("image.resize_with_crop_or_pad", image)
    cropped = crop_to_bounding_box(
        image, max(0, (height - target_height) // 2), max(0, (width - target_width) // 2),
        min(height, target_height), min(width, target_width))
    return pad_to_bounding_box(cropped, max(0, (target_height - height) // 2),
                               max(0, (target_width - width) // 2), target_height, target_width)


# -- dtypes and colours --------------------------------------------------------------------


def convert_image_dtype(image, dtype, saturate: bool = False) -> Tensor:
    """``image`` in ``dtype`` with TensorFlow's scaling: integers span ``[0, max]`` of their
    dtype and floats ``[0, 1]``, so uint8 255 becomes 1.0 and 1.0 becomes 255."""
    image = convert_to_tensor(image)
    dtype = dtypes.as_dtype(dtype)
    source = image.dtype
    if source == dtype:
        return image
    to_type = saturate_cast if saturate else cast
    if source.kind in "iu" and dtype.kind in "iu":
        in_max, out_max = int(np.iinfo(source).max), int(np.iinfo(dtype).max)
        if in_max > out_max:
            return to_type(floordiv(image, np.asarray((in_max + 1) // (out_max + 1), source)),
                           dtype)
        return multiply(cast(image, dtype), np.asarray((out_max + 1) // (in_max + 1), dtype))
    if source.kind == "f" and dtype.kind == "f":
        return cast(image, dtype)
    if source.kind in "iu":
        return multiply(cast(image, dtype), np.asarray(1.0 / np.iinfo(source).max, dtype))
    return to_type(multiply(image, np.asarray(np.iinfo(dtype).max + 0.5, source)), dtype)


def _in_float(op_name: str, image, fn) -> Tensor:
    """``fn`` of the image as floats in [0, 1], converted back to the image's dtype."""
    image = _image(op_name, image)
    as_float = image if image.dtype.kind == "f" else convert_image_dtype(image, dtypes.float32)
    result = fn(as_float)
    return result if image.dtype.kind == "f" else convert_image_dtype(result, image.dtype,
                                                                      saturate=True)


def rgb_to_grayscale(images) -> Tensor:
    """One channel of luma (ITU-R BT.601 weights), in the images' dtype."""
    weights = np.array([0.2989, 0.5870, 0.1140], np.float32)
    return _in_float("image.rgb_to_grayscale", images, lambda x: expand_dims(
        tensordot(x, weights.astype(x.dtype), [[-1], [-1]]), -1))


def grayscale_to_rgb(images) -> Tensor:
    """The single channel repeated as red, green and blue."""
    images = _image("image.grayscale_to_rgb", images)
    return concat([images] * 3, axis=-1)


def adjust_brightness(image, delta) -> Tensor:
    """``delta`` added to every value (of the image as floats in [0, 1])."""
    return _in_float("image.adjust_brightness", image, lambda x: add(x, cast(delta, x.dtype)))


def adjust_contrast(images, contrast_factor) -> Tensor:
    """Each channel's distance from its mean over the image scaled by ``contrast_factor``."""
    def contrast(x):
        mean = reduce_mean(x, axis=[-3, -2], keepdims=True)
        return add(multiply(subtract(x, mean), cast(contrast_factor, x.dtype)), mean)
    return _in_float("image.adjust_contrast", images, contrast)


def per_image_standardization(image) -> Tensor:
    """Each image scaled to mean 0 and variance 1 (the standard deviation kept at least
    ``1 / sqrt(number of values)``, so a flat image does not divide by 0), in float32 (as
    TensorFlow computes it, whatever the image's dtype)."""
    image = cast(_image("image.per_image_standardization", image), dtypes.float32)
    count = int(np.prod(image.shape[-3:])) if None not in image.shape[-3:] else None
    if count is None:
        raise ValueError(f"image.per_image_standardization: the image's size must be known "
                         f"while tracing, got shape {format_shape(image.shape)}.")
    mean = reduce_mean(image, axis=[-3, -2, -1], keepdims=True)
    stddev = maximum(reduce_std(image, axis=[-3, -2, -1], keepdims=True),
                     rsqrt(np.asarray(count, image.dtype)))
    return (image - mean) / stddev


def psnr(a, b, max_val) -> Tensor:
    """The peak signal-to-noise ratio of each pair of images in decibels,
    ``10 log10(max_val**2 / mse)``, in float32: the images and ``max_val`` (in the images'
    dtype) are converted as ``convert_image_dtype`` converts them, so uint8 images with
    ``max_val=255`` compare like their float versions with 1.0. Equal images give infinity."""
    a = _image("image.psnr", a)
    b = convert_to_tensor(b)
    peak = convert_image_dtype(cast(max_val, a.dtype), dtypes.float32)
    error = subtract(convert_image_dtype(a, dtypes.float32),
                     convert_image_dtype(b, dtypes.float32))
    mse = reduce_mean(multiply(error, error), axis=[-3, -2, -1])
    # In TensorFlow's order of float32 operations: 20 log(peak) / log(10) - (10 / ln 10) log(mse).
    return subtract(divide(multiply(np.float32(20), log(peak)), log(np.float32(10))),
                    multiply(np.float32(10 / np.log(10)), log(mse)))


# -- random augmentation -------------------------------------------------------------------


def per_image_draw(image: Tensor, seed) -> Tensor:
    """One uniform draw in [0, 1) per image, shaped to broadcast against ``image``."""
    if len(image.shape) == 3:
        return uniform([], seed=seed)
    batch = image.shape[0] if image.shape[0] is not None else shape_of(image)[0]
    return uniform([batch, 1, 1, 1], seed=seed)


def random_flip_left_right(image, seed=None) -> Tensor:
    """Each image mirrored along its width with probability 1/2."""
    image = _image("image.random_flip_left_right", image)
    return where(less(per_image_draw(image, seed), 0.5), flip_left_right(image), image)


def random_flip_up_down(image, seed=None) -> Tensor:
    """Each image mirrored along its height with probability 1/2."""
    image = _image("image.random_flip_up_down", image)
    return where(less(per_image_draw(image, seed), 0.5), flip_up_down(image), image)


def random_brightness(image, max_delta: float, seed=None) -> Tensor:
    """``adjust_brightness`` by one delta drawn uniformly from ``[-max_delta, max_delta)``."""
    if max_delta < 0:
        raise ValueError(f"image.random_brightness: max_delta must be at least 0, got "
                         f"{max_delta}.")
    return adjust_brightness(image, uniform([], -max_delta, max_delta, seed=seed))


def random_contrast(image, lower: float, upper: float, seed=None) -> Tensor:
    """``adjust_contrast`` by one factor drawn uniformly from ``[lower, upper)``."""
    if not 0 <= lower < upper:
        raise ValueError(f"image.random_contrast: need 0 <= lower < upper, got lower={lower}, "
                         f"upper={upper}.")
    return adjust_contrast(image, uniform([], lower, upper, seed=seed))

