"""``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``: one step of the recurrent layers, for ``RNN``
or for a loop written by hand (``output, states = cell(x, states)``). Each is its layer with
the loop left out: same weights, same formulas (``step``), so a cell and its layer given the
same weights agree."""

from __future__ import annotations

from runtime.keras.layers.gru import GRU
from runtime.keras.layers.lstm import LSTM
from runtime.keras.layers.simple_rnn import SimpleRNN
from runtime.ops.array_ops import cast, convert_to_tensor


class _Cell:
    """What a cell adds to its layer: a build from (batch, features) and one step."""

    @property
    def state_size(self):
        return self.units if self.state_count == 1 else [self.units] * self.state_count

    @property
    def output_size(self) -> int:
        return self.units

    def build(self, input_shape):
        super().build((None, None, input_shape[-1]))

    def call(self, inputs, states, training=None):
        inputs = convert_to_tensor(inputs)
        if inputs.dtype != self.kernel.dtype:
            inputs = cast(inputs, self.kernel.dtype)
        states = tuple(states) if isinstance(states, (list, tuple)) else (states,)
        new = self.step(self.project(inputs), states)
        return new[0], list(new)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        for key in ("return_sequences", "return_state", "go_backwards"):
            config.pop(key, None)
        return config


class SimpleRNNCell(_Cell, SimpleRNN):
    pass


class LSTMCell(_Cell, LSTM):
    pass


class GRUCell(_Cell, GRU):
    pass
