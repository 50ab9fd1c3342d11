"""The core layers: ``Dense``, ``Flatten``, ``Dropout``, ``Activation``, ``Lambda``,
``Concatenate`` (and ``concatenate``), ``Add``, ``Reshape``."""

from __future__ import annotations

import numpy as np

from runtime.keras import activations
from runtime.keras.layers.base import Layer
from runtime.keras.layers.merging import combined_mask
from runtime.ops import nn
from runtime.ops.array_ops import cast, concat, convert_to_tensor, reshape, shape as shape_of
from runtime.ops.linalg_ops import matmul
from runtime.ops.math_composites import add_n


def _check_rank(name: str, shape) -> None:
    """A Dense layer takes a batch of vectors (or of anything with vectors last), as Keras'
    input spec demands: a single vector is refused, not treated as a batch of numbers."""
    if len(shape) < 2:
        raise ValueError(f"Input 0 of layer {name!r} is incompatible with the layer: expected "
                         f"min_ndim=2, found ndim={len(shape)}. Full shape received: "
                         f"{tuple(shape)}. Add a batch axis, for example with "
                         f"tf.expand_dims(x, 0).")


def _check_last_axis(name: str, shape, units: int) -> None:
    if shape[-1] is not None and shape[-1] != units:
        raise ValueError(f"Input 0 of layer {name!r} is incompatible with the layer: expected "
                         f"axis -1 of input shape to have value {units}, but received input "
                         f"with shape {tuple(shape)}.")


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``; ``kernel`` has shape (input units, ``units``).
    Inputs of rank above 2 are multiplied along their last axis."""

    supports_masking = True

    def __init__(self, units, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if isinstance(units, bool) or not isinstance(units, (int, np.integer)) or units <= 0:
            raise ValueError(f"Dense: units must be a positive integer, got {units!r}.")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self._kernel_and_bias_options(kernel_initializer, bias_initializer, kernel_regularizer,
                                      bias_regularizer, kernel_constraint, bias_constraint)

    def build(self, input_shape):
        _check_rank(self.name, input_shape)
        last = input_shape[-1]
        if last is None:
            raise ValueError(f"{self.name}: the last dimension of the input must be known to "
                             f"build a Dense layer, got shape {input_shape}.")
        self.kernel = self.add_weight("kernel", (last, self.units),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.bias = self.add_weight("bias", (self.units,), initializer=self.bias_initializer,
                                    regularizer=self.bias_regularizer,
                                    constraint=self.bias_constraint) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype != self.kernel.dtype:
            inputs = cast(inputs, self.kernel.dtype)
        if inputs.shape is not None:
            _check_rank(self.name, inputs.shape)
            _check_last_axis(self.name, inputs.shape, self.kernel.shape[0])
        rank = len(inputs.shape) if inputs.shape is not None else 2
        if rank == 2:
            x = matmul(inputs, self.kernel)
        else:
            flat = reshape(inputs, [-1, self.kernel.shape[0]])
            x = reshape(matmul(flat, self.kernel),
                        _concat_shape(shape_of(inputs)[:-1], self.units))
        if self.bias is not None:
            x = x + self.bias
        return self.activation(x)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[:-1]) + (self.units,)

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation), "use_bias": self.use_bias}


def _concat_shape(leading, *trailing):
    return concat([leading, convert_to_tensor(list(trailing), leading.dtype)], axis=0)


class Flatten(Layer):
    """Reshapes each sample to one axis: (batch, d1, d2, ...) -> (batch, d1 * d2 * ...)."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        dims = inputs.shape[1:] if inputs.shape is not None else None
        if dims is not None and None not in dims:
            return reshape(inputs, [-1, int(np.prod(dims, dtype=np.int64))])
        return reshape(inputs, _concat_shape(shape_of(inputs)[:1], -1))

    def compute_output_shape(self, input_shape):
        dims = input_shape[1:]
        return (input_shape[0], None if None in dims else int(np.prod(dims, dtype=np.int64)))


class Dropout(Layer):
    """Zeroes each input with probability ``rate`` and scales the others by
    ``1 / (1 - rate)``, only when called with ``training=True`` (as ``fit`` does)."""

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= rate <= 1:
            raise ValueError(f"Dropout: rate must be in [0, 1], got {rate!r}.")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed

    def call(self, inputs, training=None):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return inputs * 0.0
        return nn.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self.seed)

    def get_config(self):
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape,
                "seed": self.seed}

    def compute_output_shape(self, input_shape):
        return input_shape


class Activation(Layer):
    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def get_config(self):
        return {**super().get_config(), "activation": activations.serialize(self.activation)}

    def compute_output_shape(self, input_shape):
        return input_shape


class Lambda(Layer):
    """A layer that calls ``function(inputs, **arguments)``."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, dict(arguments or {})

    def call(self, inputs, training=None):
        return self.function(inputs, **self.arguments)

    def get_config(self):
        raise NotImplementedError(f"{self.name}: a Lambda layer's function is Python code, which "
                                  f"model.save does not store (Keras would pickle its bytecode); "
                                  f"save the weights with save_weights and rebuild the model in "
                                  f"code.")


class Reshape(Layer):
    """Reshapes each sample to ``target_shape``; one of its dimensions may be -1, worked out
    from the sample's size (when the batch size is unknown too, the batch comes from the
    input's shape at run time)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if self.target_shape.count(-1) > 1 or any(d < 1 and d != -1 for d in self.target_shape):
            raise ValueError(f"Reshape: target_shape must be positive dimensions, at most one of "
                             f"them -1 (worked out from the input's size), got "
                             f"{self.target_shape}.")

    def call(self, inputs):
        inputs = convert_to_tensor(inputs)
        target = self.target_shape
        if inputs.shape is not None:
            target = tuple(-1 if d is None else d
                           for d in self.compute_output_shape(tuple(inputs.shape))[1:])
        if -1 not in target:
            return reshape(inputs, (-1,) + target)
        return reshape(inputs, _concat_shape(shape_of(inputs)[:1], *target))

    def compute_output_shape(self, input_shape):
        sample, target = tuple(input_shape[1:]), self.target_shape
        if None not in sample:  # the sample's size is known: -1 is worked out, sizes checked
            size = int(np.prod(sample, dtype=np.int64))
            known = int(np.prod([d for d in target if d != -1], dtype=np.int64))
            if size % known if -1 in target else size != known:
                raise ValueError(f"{self.name}: a sample of shape {sample} ({size} values) "
                                 f"cannot be reshaped to {target}; give a target_shape of "
                                 f"the same size.")
            target = tuple(size // known if d == -1 else d for d in target)
        return (input_shape[0],) + tuple(None if d == -1 else d for d in target)

    def get_config(self):
        return {**super().get_config(), "target_shape": self.target_shape}


class Concatenate(Layer):
    """Concatenates a list of inputs along ``axis`` (the last by default)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"{self.name}: Concatenate takes a list of tensors, got "
                             f"{type(inputs).__name__}.")
        return concat(list(inputs), axis=self.axis)

    def compute_mask(self, inputs, mask=None):
        # Joined along the features, a step is real where every masked input has it real;
        # joined along another axis, the masks would have to be joined too (not done yet).
        if mask is None or not isinstance(mask, (list, tuple)) or \
                all(m is None for m in mask):
            return None
        rank = len(inputs[0].shape) if getattr(inputs[0], "shape", None) is not None else None
        if rank is None or self.axis not in (-1, rank - 1):
            raise NotImplementedError(f"{self.name}: masked inputs joined along axis "
                                      f"{self.axis} are not supported yet by rt.keras (only "
                                      f"the last axis).")
        return combined_mask(mask)

    def get_config(self):
        return {**super().get_config(), "axis": self.axis}


class Add(Layer):
    def call(self, inputs):
        return add_n(list(inputs))

    def compute_mask(self, inputs, mask=None):
        return combined_mask(mask)


def concatenate(inputs, axis=-1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)``."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)
