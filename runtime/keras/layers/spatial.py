"""Layers that resize sequences and images (channels last) without weights: ``UpSampling1D``/
``2D`` (each step or pixel repeated), ``ZeroPadding1D``/``2D`` (zeros around) and
``Cropping1D``/``2D`` (edges cut off)."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor
from runtime.ops.image_ops import resize
from runtime.ops.layout_ops import repeat
from runtime.ops.pad_ops import pad


def _pairs(name: str, value, dims: int) -> tuple:
    """``value`` as ``dims`` (before, after) pairs: an int, ``dims`` ints, or ``dims`` pairs."""
    if isinstance(value, int):
        return ((value, value),) * dims
    value = tuple(value)
    if dims == 1 and len(value) == 2 and all(isinstance(v, int) for v in value):
        return (value,)
    if len(value) == dims and all(isinstance(v, int) for v in value):
        return tuple((v, v) for v in value)
    if len(value) == dims and all(isinstance(v, (tuple, list)) and len(v) == 2 for v in value):
        return tuple(tuple(v) for v in value)
    raise ValueError(f"{name} must be an int, {dims} ints or {dims} pairs of ints, got {value!r}.")


def _sizes(name: str, value, dims: int) -> tuple:
    values = (value,) * dims if isinstance(value, int) else tuple(value)
    if len(values) != dims:
        raise ValueError(f"{name} must be an int or {dims} ints, got {value!r}.")
    return values


class _Spatial(Layer):
    supports_masking = False
    dims = 1

    def _check(self, data_format) -> None:
        if data_format not in (None, "channels_last"):
            raise NotImplementedError(f"{type(self).__name__}: data_format={data_format!r} is "
                                      f"not supported yet by rt.keras (only channels_last).")


class UpSampling1D(_Spatial):
    """Repeats each step ``size`` times."""

    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        return repeat(convert_to_tensor(inputs), self.size, axis=1)

    def get_config(self):
        return {**super().get_config(), "size": self.size}


class UpSampling2D(_Spatial):
    """Repeats each row ``size[0]`` and each column ``size[1]`` times (``"nearest"``), or
    resizes the images that much bilinearly (``"bilinear"``: ``tf.image.resize``, as Keras)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self._check(data_format)
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"UpSampling2D: interpolation={interpolation!r} is not "
                                      f"supported yet by rt.keras (only 'nearest' and "
                                      f"'bilinear').")
        self.size = _sizes("UpSampling2D size", size, 2)
        self.interpolation = interpolation

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if self.interpolation == "bilinear":
            height, width = inputs.shape[1:3]
            if height is None or width is None:
                raise ValueError(f"{self.name}: bilinear upsampling needs the height and width "
                                 f"of the images known, got shape {tuple(inputs.shape)}; give "
                                 f"the model's Input those sizes.")
            resized = resize(inputs, [height * self.size[0], width * self.size[1]])
            return resized if resized.dtype == inputs.dtype else cast(resized, inputs.dtype)
        rows = repeat(inputs, self.size[0], axis=1)
        return repeat(rows, self.size[1], axis=2)

    def get_config(self):
        return {**super().get_config(), "size": self.size, "interpolation": self.interpolation}


class ZeroPadding1D(_Spatial):
    def __init__(self, padding=1, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs("ZeroPadding1D padding", padding, 1)

    def call(self, inputs):
        return pad(inputs, [(0, 0), self.padding[0], (0, 0)])

    def get_config(self):
        return {**super().get_config(), "padding": self.padding}


class ZeroPadding2D(_Spatial):
    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._check(data_format)
        self.padding = _pairs("ZeroPadding2D padding", padding, 2)

    def call(self, inputs):
        return pad(inputs, [(0, 0), self.padding[0], self.padding[1], (0, 0)])

    def get_config(self):
        return {**super().get_config(), "padding": self.padding}


def _cut(size_before: int, size_after: int) -> slice:
    return slice(size_before, -size_after if size_after else None)


class Cropping1D(_Spatial):
    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs("Cropping1D cropping", cropping, 1)

    def call(self, inputs):
        return convert_to_tensor(inputs)[:, _cut(*self.cropping[0])]

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping}


class Cropping2D(_Spatial):
    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self._check(data_format)
        self.cropping = _pairs("Cropping2D cropping", cropping, 2)

    def call(self, inputs):
        return convert_to_tensor(inputs)[:, _cut(*self.cropping[0]), _cut(*self.cropping[1])]

    def get_config(self):
        return {**super().get_config(), "cropping": self.cropping}
