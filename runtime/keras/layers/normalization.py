"""``BatchNormalization``, ``LayerNormalization`` and ``GroupNormalization`` (Keras 3's
defaults and weight order)."""

from __future__ import annotations

from runtime.keras import initializers
from runtime.keras.layers.base import Layer
from runtime.ops import nn
from runtime.ops.array_ops import reshape


def _axes(layer: str, axis, rank: int) -> list[int]:
    axes = [axis] if isinstance(axis, int) else list(axis)
    normalized = [a + rank if a < 0 else a for a in axes]
    if any(not 0 <= a < rank for a in normalized):
        raise ValueError(f"{layer}: axis {axis!r} is out of range for inputs of rank {rank}.")
    return normalized


class BatchNormalization(Layer):
    """Normalizes each feature (along ``axis``) by the batch's mean and variance when called
    with ``training=True``, and by the moving averages otherwise; training updates them as
    ``moving = moving * momentum + batch * (1 - momentum)``. Weights, in Keras' order:
    ``gamma``, ``beta`` (trainable), ``moving_mean``, ``moving_variance`` (not trainable). A
    layer set ``trainable = False`` runs in inference mode, as in Keras 3."""

    supports_masking = True

    def __init__(self, axis=-1, momentum=0.99, epsilon=0.001, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, synchronized=False, **kwargs):
        super().__init__(**kwargs)
        unsupported = [name for name, value in (
            ("beta_regularizer", beta_regularizer), ("gamma_regularizer", gamma_regularizer),
            ("beta_constraint", beta_constraint), ("gamma_constraint", gamma_constraint))
            if value is not None]
        if unsupported:
            raise NotImplementedError(f"BatchNormalization: {', '.join(unsupported)} is not "
                                      f"supported yet by rt.keras (it would be ignored).")
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self.initializers = [initializers.get(i) for i in (
            gamma_initializer, beta_initializer, moving_mean_initializer,
            moving_variance_initializer)]

    def build(self, input_shape):
        rank = len(input_shape)
        self._feature_axes = _axes(self.name, self.axis, rank)
        self._reduce_axes = [a for a in range(rank) if a not in self._feature_axes]
        shape = tuple(input_shape[a] for a in self._feature_axes)
        gamma, beta, mean, variance = self.initializers
        self.gamma = self.add_weight("gamma", shape, initializer=gamma) if self.scale else None
        self.beta = self.add_weight("beta", shape, initializer=beta) if self.center else None
        self.moving_mean = self.add_weight("moving_mean", shape, initializer=mean,
                                           trainable=False)
        self.moving_variance = self.add_weight("moving_variance", shape, initializer=variance,
                                               trainable=False)
        self._broadcast = [input_shape[a] if a in self._feature_axes else 1 for a in range(rank)]
        self._broadcast[0] = 1
        self.built = True

    def call(self, inputs, training=None):
        if training and self.trainable:
            mean, variance = nn.moments(inputs, self._reduce_axes)
            for moving, value in ((self.moving_mean, mean), (self.moving_variance, variance)):
                moving.assign(moving * self.momentum + value * (1.0 - self.momentum))
        else:
            mean, variance = self.moving_mean, self.moving_variance
        return nn.batch_normalization(inputs, self._shaped(mean), self._shaped(variance),
                                      self._shaped(self.beta), self._shaped(self.gamma),
                                      self.epsilon)

    def _shaped(self, value):
        last_only = self._feature_axes == [len(self._broadcast) - 1]
        return value if value is None or last_only else reshape(value, self._broadcast)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "momentum": self.momentum,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale}


class LayerNormalization(Layer):
    """Normalizes each sample over ``axis`` (the last by default) by its own mean and
    variance, then scales by ``gamma`` and shifts by ``beta``."""

    supports_masking = True

    def __init__(self, axis=-1, epsilon=0.001, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", rms_scaling=False,
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        unsupported = [name for name, value in (
            ("rms_scaling", rms_scaling or None), ("beta_regularizer", beta_regularizer),
            ("gamma_regularizer", gamma_regularizer), ("beta_constraint", beta_constraint),
            ("gamma_constraint", gamma_constraint)) if value is not None]
        if unsupported:
            raise NotImplementedError(f"LayerNormalization: {', '.join(unsupported)} is not "
                                      f"supported yet by rt.keras (it would be ignored).")
        self.axis, self.epsilon, self.center, self.scale = axis, float(epsilon), center, scale
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_initializer = initializers.get(beta_initializer)

    def build(self, input_shape):
        rank = len(input_shape)
        self._axes = _axes(self.name, self.axis, rank)
        shape = tuple(input_shape[a] for a in self._axes)
        self.gamma = self.add_weight("gamma", shape, initializer=self.gamma_initializer) \
            if self.scale else None
        self.beta = self.add_weight("beta", shape, initializer=self.beta_initializer) \
            if self.center else None
        self._broadcast = [input_shape[a] if a in self._axes else 1 for a in range(rank)]
        self.built = True

    def call(self, inputs):
        mean, variance = nn.moments(inputs, self._axes, keepdims=True)
        last_only = self._axes == [len(self._broadcast) - 1]
        shaped = lambda w: w if w is None or last_only else reshape(w, self._broadcast)  # noqa: E731
        return nn.batch_normalization(inputs, mean, variance, shaped(self.beta),
                                      shaped(self.gamma), self.epsilon)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale}


class GroupNormalization(Layer):
    """Normalizes each sample within groups of channels: the ``axis`` channels split into
    ``groups`` equal groups, each normalized by its mean and variance over the group's
    channels and every other axis but the batch; then ``gamma`` and ``beta`` per channel.
    ``groups=-1`` makes a group of each channel (instance normalization), 1 one group of all
    (layer normalization over everything)."""

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.groups, self.axis, self.epsilon = int(groups), axis, float(epsilon)
        self.center, self.scale = center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer, self.gamma_regularizer = beta_regularizer, gamma_regularizer
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint

    def build(self, input_shape):
        rank = len(input_shape)
        (self._axis,) = _axes(self.name, self.axis, rank)
        channels = input_shape[self._axis]
        groups = channels if self.groups == -1 else self.groups
        if channels is None or groups <= 0 or channels % groups:
            raise ValueError(f"{self.name}: the number of channels ({channels}) must be known "
                             f"and a multiple of the number of groups ({self.groups}).")
        self._groups = groups
        weight = {"shape": (channels,)}
        self.gamma = self.add_weight("gamma", initializer=self.gamma_initializer,
                                     regularizer=self.gamma_regularizer,
                                     constraint=self.gamma_constraint, **weight) \
            if self.scale else None
        self.beta = self.add_weight("beta", initializer=self.beta_initializer,
                                    regularizer=self.beta_regularizer,
                                    constraint=self.beta_constraint, **weight) \
            if self.center else None
        self.built = True

    def call(self, inputs):
        rank, axis = len(inputs.shape), self._axis
        sizes = [-1 if a == 0 else (inputs.shape[a] if inputs.shape[a] is not None else -1)
                 for a in range(rank)]
        if sizes.count(-1) > 1:
            raise ValueError(f"{self.name}: GroupNormalization needs every dimension but the "
                             f"batch known, got shape {inputs.shape}.")
        grouped_shape = sizes[:axis] + [self._groups, sizes[axis] // self._groups] \
            + sizes[axis + 1:]
        grouped = reshape(inputs, grouped_shape)
        reduced = [a for a in range(1, rank + 1) if a != axis]
        mean, variance = nn.moments(grouped, reduced, keepdims=True)
        parameter_shape = [1] * (rank + 1)
        parameter_shape[axis:axis + 2] = [self._groups, sizes[axis] // self._groups]
        shaped = lambda w: None if w is None else reshape(w, parameter_shape)  # noqa: E731
        normalized = nn.batch_normalization(grouped, mean, variance, shaped(self.beta),
                                            shaped(self.gamma), self.epsilon)
        return reshape(normalized, sizes)

    def get_config(self):
        return {**super().get_config(), "groups": self.groups, "axis": self.axis,
                "epsilon": self.epsilon, "center": self.center, "scale": self.scale}
