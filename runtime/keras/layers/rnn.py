"""``RNN(cell)``: a cell (``SimpleRNNCell``, ``LSTMCell``, ``GRUCell``, or one of the user's
with ``state_size`` and ``call(inputs, states) -> (output, new_states)``) run over the steps
of a sequence with ``rt.scan``, as the recurrent layers are."""

from __future__ import annotations

from runtime import nest
from runtime.functional_ops import scan
from runtime.keras.layers.base import Layer
from runtime.ops.array_ops import (cast, convert_to_tensor, expand_dims, transpose, zeros,
                                   zeros_like)
from runtime.ops.layout_ops import reverse


class RNN(Layer):
    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            raise NotImplementedError("RNN: a list of cells (StackedRNNCells) is not supported "
                                      "yet by rt.keras; stack RNN layers instead.")
        if stateful:
            raise NotImplementedError("RNN: stateful=True is not supported yet by rt.keras (it "
                                      "would be ignored).")
        if not hasattr(cell, "state_size"):
            raise TypeError(f"RNN: the cell must have a state_size (and call(inputs, states)), "
                            f"got {type(cell).__name__}.")
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.zero_output_for_mask = go_backwards, zero_output_for_mask

    def build(self, input_shape):
        if not getattr(self.cell, "built", True):
            self.cell.build((input_shape[0], input_shape[-1]))
            self.cell.built = True
        self.built = True

    def _sizes(self) -> list[int]:
        size = self.cell.state_size
        return [int(s) for s in size] if isinstance(size, (list, tuple)) else [int(size)]

    def call(self, inputs, initial_state=None, training=None, mask=None):
        inputs = convert_to_tensor(inputs)
        steps = transpose(inputs, [1, 0] + list(range(2, inputs.ndim)))  # time first
        if mask is not None:
            mask = transpose(cast(convert_to_tensor(mask), inputs.dtype), [1, 0])
        if self.go_backwards:
            steps = reverse(steps, [0])
            mask = None if mask is None else reverse(mask, [0])
        column = zeros_like(steps[0, :, :1])  # (batch, 1): states of a known rank

        def zeros_of(size):
            return column + zeros((size,), inputs.dtype)

        sizes = self._sizes()
        states = [zeros_of(s) for s in sizes] if initial_state is None else \
            [convert_to_tensor(s) for s in nest.flatten(initial_state)]
        output_size = int(getattr(self.cell, "output_size", sizes[0]))
        carried = (zeros_of(output_size),) + tuple(states)

        def one_step(carried, x):
            x, real = (x, None) if mask is None else x
            output, new = self.cell(x, list(carried[1:]))
            new = tuple(nest.flatten(new))
            if real is None:
                return (output,) + new
            keep = expand_dims(real, -1)
            return tuple(keep * n + (1.0 - keep) * c for n, c in zip((output,) + new, carried))

        history = scan(one_step, steps if mask is None else (steps, mask), initializer=carried)
        outputs = history[0]
        if mask is not None and self.zero_output_for_mask:
            outputs = outputs * expand_dims(mask, -1)
        last = [value[-1] for value in history]
        output = transpose(outputs, [1, 0, 2]) if self.return_sequences else last[0]
        return [output] + last[1:] if self.return_state else output

    def compute_mask(self, inputs, mask=None):
        output_mask = mask if self.return_sequences else None
        return [output_mask] + [None] * len(self._sizes()) if self.return_state \
            else output_mask

    def get_config(self):
        raise NotImplementedError(f"{self.name}: model.save does not store RNN layers yet; save "
                                  f"the weights with save_weights.")
