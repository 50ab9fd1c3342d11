"""Keras' image preprocessing layers on ``runtime.ops.image_ops``: ``Resizing``,
``CenterCrop`` and ``RandomFlip``, for images ``[height, width, channels]`` or batches of them
(channels last)."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.ops import image_ops
from runtime.ops.array_ops import cast, convert_to_tensor, where
from runtime.ops.math_composites import saturate_cast
from runtime.ops.math_ops import less_equal, round as round_half_even
from runtime.tensor import Tensor

_INTERPOLATIONS = ("bilinear", "nearest")


def _channels_last(layer: str, data_format) -> None:
    if data_format not in (None, "channels_last"):
        raise NotImplementedError(f"{layer}: data_format={data_format!r} is not supported yet; "
                                  f"give images channels last.")


def _crop_to_aspect_ratio(images: Tensor, height: int, width: int) -> Tensor:
    """The central part of ``images`` with the aspect ratio of ``height`` x ``width`` (Keras'
    rounding of the box)."""
    in_height, in_width = image_ops.image_size("Resizing", images)
    crop_height = max(min(in_height, int(float(in_width * height) / width)), 1)
    crop_width = max(min(in_width, int(float(in_height * width) / height)), 1)
    return image_ops.crop_to_bounding_box(images, int((in_height - crop_height) / 2),
                                          int((in_width - crop_width) / 2), crop_height,
                                          crop_width)


class Resizing(Layer):
    """Images resized to ``height`` x ``width`` (``tf.image.resize``); integer images are
    rounded back to their dtype. ``crop_to_aspect_ratio`` first crops the centre to the
    target's aspect ratio."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False,
                 pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0,
                 antialias=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        _channels_last("Resizing", data_format)
        if interpolation not in _INTERPOLATIONS:
            raise NotImplementedError(
                f"Resizing: interpolation={interpolation!r} is not supported yet; the "
                f"supported ones are {', '.join(map(repr, _INTERPOLATIONS))}.")
        if pad_to_aspect_ratio:
            raise NotImplementedError("Resizing: pad_to_aspect_ratio=True is not supported yet; "
                                      "use crop_to_aspect_ratio, or tf.image.resize_with_pad.")
        self.height, self.width = int(height), int(width)
        self.interpolation, self.crop_to_aspect_ratio = interpolation, crop_to_aspect_ratio
        self.antialias = antialias

    def call(self, inputs):
        images = convert_to_tensor(inputs)
        resized = images
        if self.crop_to_aspect_ratio:
            resized = _crop_to_aspect_ratio(resized, self.height, self.width)
        resized = image_ops.resize(resized, [self.height, self.width],
                                   method=self.interpolation, antialias=self.antialias)
        if resized.dtype == images.dtype:
            return resized
        if images.dtype.kind in "iu":
            resized = round_half_even(resized)
        return saturate_cast(resized, images.dtype)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation,
                "crop_to_aspect_ratio": self.crop_to_aspect_ratio, "antialias": self.antialias}


class CenterCrop(Layer):
    """The central ``height`` x ``width`` of each image, as float32; an image smaller than
    that is cropped to the target's aspect ratio and resized instead (as Keras does)."""

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        _channels_last("CenterCrop", data_format)
        self.height, self.width = int(height), int(width)

    def call(self, inputs):
        images = cast(convert_to_tensor(inputs), self.dtype)
        in_height, in_width = image_ops.image_size("CenterCrop", images)
        if in_height >= self.height and in_width >= self.width:
            return image_ops.crop_to_bounding_box(
                images, (in_height - self.height) // 2, (in_width - self.width) // 2,
                self.height, self.width)
        return image_ops.resize(_crop_to_aspect_ratio(images, self.height, self.width),
                                [self.height, self.width])

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width}


class RandomFlip(Layer):
    """Each image mirrored with probability 1/2 while training (``mode``: "horizontal",
    "vertical" or "horizontal_and_vertical", one draw for both); the images unchanged (as
    float32) otherwise."""

    _MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        super().__init__(**kwargs)
        _channels_last("RandomFlip", data_format)
        if mode not in self._MODES:
            raise ValueError(f"RandomFlip: mode must be one of {', '.join(map(repr, self._MODES))}"
                             f", got {mode!r}.")
        self.mode, self.seed = mode, seed

    def call(self, inputs, training=True):
        images = cast(convert_to_tensor(inputs), self.dtype)
        if not training:
            return images
        flips = less_equal(image_ops.per_image_draw(images, self.seed), 0.5)
        if self.mode != "vertical":
            images = where(flips, image_ops.flip_left_right(images), images)
        if self.mode != "horizontal":
            images = where(flips, image_ops.flip_up_down(images), images)
        return images

    def get_config(self):
        return {**super().get_config(), "mode": self.mode, "seed": self.seed}
