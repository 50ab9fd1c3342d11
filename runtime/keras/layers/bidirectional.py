"""``Bidirectional``: a recurrent layer run over the sequence both ways, the two outputs
merged (concatenated by default). The backward layer is a copy of the forward one reading
from the last step (``go_backwards``); with ``return_sequences`` its outputs are put back in
the order of the steps before merging, as Keras does. Weights: the forward layer's, then the
backward layer's."""

from __future__ import annotations

from runtime.keras.layers.base import Layer
from runtime.keras.layers.recurrent import Recurrent
from runtime.ops.array_ops import concat
from runtime.ops.layout_ops import reverse

_MERGES = {"concat": lambda a, b: concat([a, b], axis=-1), "sum": lambda a, b: a + b,
           "mul": lambda a, b: a * b, "ave": lambda a, b: (a + b) / 2.0}


class Bidirectional(Layer):
    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None,
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(layer, Recurrent):
            raise TypeError(f"Bidirectional wraps a recurrent layer (SimpleRNN, LSTM, GRU), got "
                            f"{type(layer).__name__}.")
        if merge_mode not in _MERGES and merge_mode is not None:
            raise ValueError(f"Bidirectional: merge_mode must be one of {', '.join(_MERGES)} or "
                             f"None, got {merge_mode!r}.")
        if weights is not None:
            raise NotImplementedError("Bidirectional: weights= is not supported; call "
                                      "set_weights once the layer is built.")
        self.merge_mode = merge_mode
        self.forward_layer = layer.reversed_copy(f"forward_{layer.name}")
        self.forward_layer.go_backwards = layer.go_backwards
        self.backward_layer = backward_layer if backward_layer is not None else \
            layer.reversed_copy(f"backward_{layer.name}")
        self.return_sequences = layer.return_sequences
        self.return_state = layer.return_state
        for direction in (self.forward_layer, self.backward_layer):  # as Keras forces it
            direction.zero_output_for_mask = direction.return_sequences

    def build(self, input_shape) -> None:
        """Builds both directions, so that the weights exist (and ``set_weights`` works)
        before the first call, as in Keras."""
        for direction in (self.forward_layer, self.backward_layer):
            if not direction.built:
                direction.build(tuple(input_shape))
        self.built = True

    def call(self, inputs, initial_state=None, training=None, mask=None):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        forward = self.forward_layer(inputs, initial_state=forward_state, mask=mask)
        backward = self.backward_layer(inputs, initial_state=backward_state, mask=mask)
        states = []
        if self.return_state:
            forward, states = forward[0], list(forward[1:]) + list(backward[1:])
            backward = backward[0]
        if self.return_sequences:
            backward = reverse(backward, [1])
        output = [forward, backward] if self.merge_mode is None else \
            _MERGES[self.merge_mode](forward, backward)
        if self.return_state:
            return (output if isinstance(output, list) else [output]) + states
        return output

    def compute_mask(self, inputs, mask=None):
        output_mask = mask if self.return_sequences else None
        if not self.return_state:
            return output_mask
        states = 2 * self.forward_layer.state_count
        return ([output_mask] if self.merge_mode is not None else [output_mask] * 2) + \
            [None] * states

    def get_config(self):
        raise NotImplementedError(f"{self.name}: model.save does not store Bidirectional "
                                  f"layers yet; save the weights with save_weights.")
