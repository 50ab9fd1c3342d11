"""The logits behind a sigmoid or softmax output, so a cross-entropy can use them.

Keras computes ``binary_crossentropy(y, sigmoid(z))`` as the cross-entropy of the logits
``z`` (exact where the probability rounds to 0 or 1), not of the clipped probabilities. The
activations record their input here; the losses look their ``y_pred`` up. Tensors take no
attributes, so the record is a small table by identity that keeps the last outputs alive
(so an identity is never reused while it is in the table).
"""

from __future__ import annotations

import threading
from collections import OrderedDict

_CAPACITY = 256
_lock = threading.Lock()
_table: "OrderedDict[int, tuple]" = OrderedDict()


def remember(output, logits, kind: str):
    """Records that ``output`` is ``kind`` ("sigmoid" or "softmax") of ``logits``."""
    with _lock:
        _table[id(output)] = (output, logits, kind)
        if len(_table) > _CAPACITY:
            _table.popitem(last=False)
    return output


def logits_of(output, kind: str):
    """The logits ``output`` was computed from by ``kind``, or ``None``."""
    entry = _table.get(id(output))
    if entry is None or entry[0] is not output or entry[2] != kind:
        return None
    return entry[1]
