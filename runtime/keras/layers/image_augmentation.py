"""Keras' random image augmentation layers beyond ``RandomFlip``: ``RandomRotation``,
``RandomZoom``, ``RandomTranslation`` (affine transforms, ``runtime.ops.image_transform_ops``),
``RandomContrast``, ``RandomBrightness`` and ``RandomCrop``, for images
``[height, width, channels]`` or batches of them (channels last).

As in Keras 3, each is random when training (and when called directly, whose ``training``
defaults to True) and the identity otherwise, and returns float32 (the layer's dtype). The
draws are the runtime's, not Keras' (another stream), from the same ranges; each image of a
batch gets its own (``RandomCrop``: one window per call).
"""

from __future__ import annotations

import math

from runtime.keras.layers.base import Layer
from runtime.keras.layers.image_preprocessing import _channels_last
from runtime.ops import image_ops
from runtime.ops.array_ops import (cast, convert_to_tensor, expand_dims, ones_like,
                                   range as arange, shape as shape_of, squeeze, stack,
                                   zeros_like)
from runtime.ops.image_transform_ops import FILL_MODES, INTERPOLATIONS, transform
from runtime.ops.math_ops import add, cos, maximum, minimum, multiply, negative, sin, subtract
from runtime.ops.random_ops import uniform
from runtime.ops.reduce_ops import reduce_mean
from runtime.ops.scatter_ops import gather
from runtime.tensor import Tensor


def _factor_range(layer: str, name: str, factor, low: float = -math.inf,
                  high: float = math.inf) -> tuple[float, float]:
    """A factor as Keras takes it: ``f`` means ``(-f, f)``, a pair is ``(lower, upper)``;
    both within ``[low, high]``."""
    lower, upper = (-float(factor), float(factor)) if isinstance(factor, (int, float)) \
        else (float(factor[0]), float(factor[1]))
    if not low <= lower <= upper <= high:
        raise ValueError(f"{layer}: {name} must be a number or a pair (lower, upper) with "
                         f"lower <= upper, within [{low}, {high}]; got {factor!r}.")
    return lower, upper


def _as_batch(inputs, dtype) -> tuple[Tensor, bool]:
    """The images as a float batch, and whether they were one image."""
    images = cast(convert_to_tensor(inputs), dtype)
    if images.shape is None or len(images.shape) not in (3, 4):
        raise ValueError(f"expected an image [height, width, channels] or a batch of them, got "
                         f"shape {images.shape}.")
    single = len(images.shape) == 3
    return (expand_dims(images, 0) if single else images), single


def _per_image(images: Tensor, lower: float, upper: float, seed) -> Tensor:
    """One uniform draw in ``[lower, upper)`` per image of the batch, shape ``[batch]``."""
    batch = images.shape[0] if images.shape[0] is not None else shape_of(images)[0]
    return uniform([batch], lower, upper, seed=seed)


class _AffineAugmentation(Layer):
    """A random affine transform per image; ``_transforms`` gives them (``[batch, 6]``)."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 data_format=None, **kwargs):
        super().__init__(**kwargs)
        layer = type(self).__name__
        _channels_last(layer, data_format)
        if fill_mode not in FILL_MODES or interpolation not in INTERPOLATIONS:
            raise NotImplementedError(f"{layer}: fill_mode must be one of {FILL_MODES} and "
                                      f"interpolation one of {INTERPOLATIONS}; got "
                                      f"{fill_mode!r} and {interpolation!r}.")
        self.fill_mode, self.interpolation = fill_mode, interpolation
        self.seed, self.fill_value = seed, float(fill_value)

    def call(self, inputs, training=True):
        images, single = _as_batch(inputs, self.dtype)
        if training:
            height, width = image_ops.image_size(type(self).__name__, images)
            images = transform(images, self._transforms(images, height, width),
                               self.interpolation, self.fill_mode, self.fill_value)
        return squeeze(images, [0]) if single else images

    def _transforms(self, images: Tensor, height: int, width: int) -> Tensor:
        raise NotImplementedError

    def get_config(self):
        return {**super().get_config(), "fill_mode": self.fill_mode,
                "interpolation": self.interpolation, "seed": self.seed,
                "fill_value": self.fill_value}


def _rows(a0, a1, a2, a3, a4, a5) -> Tensor:
    """The per-image transforms ``[batch, 6]`` from six ``[batch]`` tensors."""
    return stack([a0, a1, a2, a3, a4, a5], axis=1)


class RandomRotation(_AffineAugmentation):
    """Each image rotated about its centre by an angle drawn from ``factor`` (a fraction of a
    full turn: 0.1 means up to ±36 degrees)."""

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor
        self._range = _factor_range("RandomRotation", "factor", factor)

    def _transforms(self, images, height, width):
        angle = multiply(_per_image(images, *self._range, self.seed), 2 * math.pi)
        c, s = cos(angle), sin(angle)
        cx, cy = (width - 1) / 2, (height - 1) / 2
        return _rows(c, negative(s), subtract(add(multiply(s, cy), cx), multiply(c, cx)),
                     s, c, subtract(cy, add(multiply(s, cx), multiply(c, cy))))

    def get_config(self):
        return {**super().get_config(), "factor": self.factor}


class RandomZoom(_AffineAugmentation):
    """Each image zoomed about its centre by ``1 + f``, ``f`` drawn from ``height_factor``
    (and ``width_factor``; None keeps the aspect ratio): positive values zoom out."""

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height_range = _factor_range("RandomZoom", "height_factor", height_factor, -1)
        self._width_range = None if width_factor is None else \
            _factor_range("RandomZoom", "width_factor", width_factor, -1)

    def _transforms(self, images, height, width):
        zoom_y = add(_per_image(images, *self._height_range, self.seed), 1.0)
        zoom_x = zoom_y if self._width_range is None else \
            add(_per_image(images, *self._width_range, self.seed), 1.0)
        zero = zeros_like(zoom_y)
        cx, cy = (width - 1) / 2, (height - 1) / 2
        return _rows(zoom_x, zero, multiply(subtract(1.0, zoom_x), cx),
                     zero, zoom_y, multiply(subtract(1.0, zoom_y), cy))

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


class RandomTranslation(_AffineAugmentation):
    """Each image shifted by fractions of its height and width drawn from ``height_factor``
    and ``width_factor``."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height_range = _factor_range("RandomTranslation", "height_factor",
                                           height_factor, -1, 1)
        self._width_range = _factor_range("RandomTranslation", "width_factor", width_factor,
                                          -1, 1)

    def _transforms(self, images, height, width):
        shift_y = multiply(_per_image(images, *self._height_range, self.seed), float(height))
        shift_x = multiply(_per_image(images, *self._width_range, self.seed), float(width))
        one, zero = ones_like(shift_y), zeros_like(shift_y)
        return _rows(one, zero, negative(shift_x), zero, one, negative(shift_y))

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor,
                "width_factor": self.width_factor}


class _ValueAugmentation(Layer):
    """A random change of the values of each image, clipped to ``value_range``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(**kwargs)
        self.factor, self.seed = factor, seed
        self.value_range = (float(value_range[0]), float(value_range[1]))

    def call(self, inputs, training=True):
        images, single = _as_batch(inputs, self.dtype)
        if training:
            low, high = self.value_range
            images = minimum(maximum(self._changed(images), low), high)
        return squeeze(images, [0]) if single else images

    def _changed(self, images: Tensor) -> Tensor:
        raise NotImplementedError

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range,
                "seed": self.seed}


class RandomContrast(_ValueAugmentation):
    """Each channel's distance from its mean over the image scaled by a factor drawn from
    ``[1 - factor, 1 + factor]``."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor, value_range, seed, **kwargs)
        lower, upper = _factor_range("RandomContrast", "factor", factor)
        if isinstance(factor, (int, float)):
            lower, upper = 1 - float(factor), 1 + float(factor)
        if lower < 0:
            raise ValueError(f"RandomContrast: factor must leave the contrast factor at least "
                             f"0 (a factor up to 1), got {factor!r}.")
        self._range = (lower, upper)

    def _changed(self, images):
        scale = expand_dims(expand_dims(expand_dims(
            _per_image(images, *self._range, self.seed), 1), 2), 3)
        mean = reduce_mean(images, axis=[1, 2], keepdims=True)
        return add(multiply(subtract(images, mean), scale), mean)


class RandomBrightness(_ValueAugmentation):
    """A delta drawn from ``factor`` (fractions of ``value_range``'s span, within [-1, 1])
    added to each image."""

    def __init__(self, factor, value_range=(0, 255), seed=None, **kwargs):
        super().__init__(factor, value_range, seed, **kwargs)
        self._range = _factor_range("RandomBrightness", "factor", factor, -1, 1)

    def _changed(self, images):
        span = self.value_range[1] - self.value_range[0]
        delta = multiply(_per_image(images, *self._range, self.seed), span)
        return add(images, expand_dims(expand_dims(expand_dims(delta, 1), 2), 3))


class RandomCrop(Layer):
    """A ``height`` x ``width`` window of the images at a random place while training (one
    place per call); an image not larger than that in both dimensions gives Keras' central
    window of the target's aspect ratio instead, resized to ``height`` x ``width``. At
    inference the images pass unchanged, as in Keras 3."""

    def __init__(self, height, width, seed=None, data_format=None, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        _channels_last("RandomCrop", data_format)
        self.height, self.width, self.seed = int(height), int(width), seed

    def call(self, inputs, training=True):
        images = convert_to_tensor(inputs)
        if not training:
            return images
        images = cast(images, self.dtype)
        in_height, in_width = image_ops.image_size("RandomCrop", images)
        if in_height > self.height and in_width > self.width:
            top = uniform([], 0, in_height - self.height + 1, dtype="int32", seed=self.seed)
            left = uniform([], 0, in_width - self.width + 1, dtype="int32", seed=self.seed)
            rows = gather(images, add(top, arange(self.height)), axis=-3)
            return gather(rows, add(left, arange(self.width)), axis=-2)
        return self._central(images, in_height, in_width)

    def _central(self, images: Tensor, in_height: int, in_width: int) -> Tensor:
        """Keras' window: from the corner of the central box of the target's aspect ratio,
        ``height`` x ``width`` pixels (fewer at the image's edge), resized to the target."""
        box_height = max(min(in_height, int(float(in_width * self.height) / self.width)), 1)
        box_width = max(min(in_width, int(float(in_height * self.width) / self.height)), 1)
        top, left = int((in_height - box_height) / 2), int((in_width - box_width) / 2)
        window = images[..., top:top + self.height, left:left + self.width, :]
        if window.shape[-3:-1] == (self.height, self.width):
            return window
        return image_ops.resize(window, [self.height, self.width])

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "seed": self.seed}
