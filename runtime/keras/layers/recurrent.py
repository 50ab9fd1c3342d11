"""What ``SimpleRNN``, ``LSTM`` and ``GRU`` share: the loop over time steps.

A recurrent layer takes a batch of sequences (batch, steps, features) and carries a state
from step to step: ``state = step(inputs_t, state)``. The input projection (``x @ kernel``)
of every step is one matmul before the loop; the loop itself is ``rt.scan`` over the steps
(time first), so in a traced function (``fit``'s step, a ``tf.function``) it is one graph
``while_loop`` whatever the sequence length, traced once, with gradients through time.

A subclass names its gates (``gates``: the kernels hold that many blocks of ``units``
columns, in Keras' order), how many states it carries, and writes ``step``.
"""

from __future__ import annotations

import copy

from runtime import nest
from runtime.functional_ops import scan
from runtime.keras import activations, initializers, regularizers
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import cast, convert_to_tensor, expand_dims, transpose, zeros_like
from runtime.ops.layout_ops import reverse
from runtime.ops.linalg_ops import matmul


class Recurrent(Layer):
    """Base class of the recurrent layers (see the module docstring)."""

    gates = 1
    state_count = 1

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 recurrent_constraint=None, bias_constraint=None, dropout=0.0,
                 recurrent_dropout=0.0, return_sequences=False, return_state=False,
                 go_backwards=False, stateful=False, unroll=False, seed=None,
                 zero_output_for_mask=False, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        name = type(self).__name__
        unsupported = [option for option, value in (
            ("dropout", dropout or None), ("recurrent_dropout", recurrent_dropout or None),
            ("stateful", stateful or None), ("kernel_constraint", kernel_constraint),
            ("recurrent_constraint", recurrent_constraint), ("bias_constraint", bias_constraint))
            if value is not None]
        if unsupported:
            raise NotImplementedError(f"{name}: {', '.join(unsupported)} is not supported yet by "
                                      f"rt.keras (it would be ignored).")
        if isinstance(units, bool) or not isinstance(units, int) or units <= 0:
            raise ValueError(f"{name}: units must be a positive integer, got {units!r}.")
        self.units = units
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.recurrent_regularizer = regularizers.get(recurrent_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.unroll = go_backwards, unroll
        self.zero_output_for_mask = zero_output_for_mask

    # -- weights -----------------------------------------------------------------------------

    def build(self, input_shape):
        if len(input_shape) != 3 or input_shape[-1] is None:
            raise ValueError(f"{self.name}: a recurrent layer takes sequences of shape (batch, "
                             f"steps, features) with known features, got {input_shape}.")
        columns = self.gates * self.units
        self.kernel = self.add_weight("kernel", (input_shape[-1], columns),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", (self.units, columns),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer)
        self.bias = self.add_weight("bias", self.bias_shape(), initializer=self.bias_values,
                                    regularizer=self.bias_regularizer) if self.use_bias else None
        self.built = True

    def bias_shape(self) -> tuple:
        return (self.gates * self.units,)

    def bias_values(self, shape, dtype=None):
        return self.bias_initializer(shape, dtype=dtype)

    # -- the loop ----------------------------------------------------------------------------

    def project(self, inputs):
        """``inputs @ kernel`` for every step at once (plus what else the step does not need
        to repeat): (batch, steps, features) -> (batch, steps, gates * units)."""
        return matmul(inputs, self.kernel)  # batched over (batch, steps)

    def step(self, projected, states: tuple) -> tuple:
        """The states after one step, from this step's projected input; the first state is
        the step's output."""
        raise NotImplementedError

    def call(self, inputs, initial_state=None, training=None, mask=None):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype != self.kernel.dtype:
            inputs = cast(inputs, self.kernel.dtype)
        steps = transpose(self.project(inputs), [1, 0, 2])  # time first, for scan
        if mask is not None:
            mask = transpose(cast(convert_to_tensor(mask), steps.dtype), [1, 0])
        if self.go_backwards:
            steps = reverse(steps, [0])
            mask = None if mask is None else reverse(mask, [0])
        states = self._initial_states(steps, initial_state)
        if mask is None:
            history = scan(lambda carried, x: self.step(x, tuple(carried)), steps,
                           initializer=states)
            outputs = history[0]
        else:
            # A padded step keeps the states it was given, and repeats the last output (or
            # gives zeros, with zero_output_for_mask, as Bidirectional asks).
            history = scan(lambda carried, x: self._masked_step(x[0], x[1], tuple(carried)),
                           (steps, mask), initializer=states)
            outputs = history[0] * expand_dims(mask, -1) if self.zero_output_for_mask \
                else history[0]
        last = [state[-1] for state in history]
        output = transpose(outputs, [1, 0, 2]) if self.return_sequences else last[0]
        return [output] + last if self.return_state else output

    def _masked_step(self, projected, real, states: tuple) -> tuple:
        new = self.step(projected, states)
        keep = expand_dims(real, -1)
        return tuple(keep * n + (1.0 - keep) * s for n, s in zip(new, states))

    def compute_mask(self, inputs, mask=None):
        output_mask = mask if self.return_sequences else None
        return [output_mask] + [None] * self.state_count if self.return_state else output_mask

    def _initial_states(self, steps, initial_state) -> tuple:
        if initial_state is None:
            zeros = zeros_like(steps[0, :, :self.units])
            return tuple(zeros for _ in range(self.state_count))
        given = [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        if len(given) != self.state_count:
            raise ValueError(f"{self.name}: initial_state must hold {self.state_count} "
                             f"tensor(s) of shape (batch, {self.units}), got {len(given)}.")
        return tuple(cast(s, steps.dtype) if s.dtype != steps.dtype else s for s in given)

    def reversed_copy(self, name: str) -> "Recurrent":
        """The same layer, unbuilt, reading sequences the other way (for Bidirectional)."""
        twin = copy.copy(self)
        for attribute in ("_own_weights", "_weight_regularizers", "_call_losses"):
            object.__setattr__(twin, attribute, [])
        for attribute in ("kernel", "recurrent_kernel", "bias"):
            twin.__dict__.pop(attribute, None)
        twin._name, twin.built, twin.go_backwards = name, False, not self.go_backwards
        return twin

    def compute_output_shape(self, input_shape):
        batch, steps = input_shape[0], input_shape[1]
        output = (batch, steps, self.units) if self.return_sequences else (batch, self.units)
        if self.return_state:
            return [output] + [(batch, self.units)] * self.state_count
        return output

    def get_config(self):
        return {**super().get_config(), "units": self.units,
                "activation": activations.serialize(self.activation),
                "recurrent_activation": activations.serialize(self.recurrent_activation),
                "use_bias": self.use_bias, "return_sequences": self.return_sequences,
                "return_state": self.return_state, "go_backwards": self.go_backwards}
