"""Keras masks: which steps of a batch of sequences are real (True) and which are padding.

Keras 3 attaches a mask to the tensor a layer returns (``Embedding(mask_zero=True)`` marks the
ids 0, ``Masking`` the steps equal to ``mask_value``) and the next layer whose ``call`` takes
``mask=`` receives it: recurrent layers carry their state over padded steps, pooling leaves
them out, and a loss averages over the real steps only. Runtime tensors have no room for an
attribute, so the masks are held here, by tensor, for the tensors made since the outermost
layer call began (``Layer.__call__`` clears them then, after reading its input's mask), which
is what a model's call and the loss computed right after it need.
"""

from __future__ import annotations

import threading

from runtime.tensor import Tensor


class _Masks(threading.local):
    def __init__(self):
        self.by_id: dict[int, tuple] = {}  # id(tensor) -> (tensor, mask); the tensor kept alive


_state = _Masks()


def active() -> bool:
    return bool(_state.by_id)


def clear(keep=()) -> None:
    """Forgets every mask but those of the values in ``keep``."""
    kept = [(value, mask_of(value)) for value in keep]
    _state.by_id.clear()
    for value, mask in kept:
        if mask is not None:
            _state.by_id[id(value)] = (value, mask)


def mask_of(value):
    """The mask of ``value``, or None."""
    entry = _state.by_id.get(id(value))
    return entry[1] if entry is not None and entry[0] is value else None


def input_mask(inputs):
    """The mask of a layer's input, or a list of masks (None for unmasked tensors) for a list
    of inputs of which some are masked."""
    if isinstance(inputs, (list, tuple)):
        found = [mask_of(value) for value in inputs]
        return found if any(m is not None for m in found) else None
    return mask_of(inputs)


def set_masks(outputs, mask) -> None:
    """Remembers ``mask`` (a mask, or a list of them for a list of outputs) for ``outputs``."""
    if mask is None:
        return
    if isinstance(outputs, (list, tuple)):
        masks = mask if isinstance(mask, (list, tuple)) else [mask] * len(outputs)
        for output, each in zip(outputs, masks):
            set_masks(output, each)
        return
    if isinstance(outputs, Tensor):
        _state.by_id[id(outputs)] = (outputs, mask)
