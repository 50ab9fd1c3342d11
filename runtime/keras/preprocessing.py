"""``keras.preprocessing``: where older programs find ``sequence.pad_sequences`` (Keras 3 still
has it there, next to ``keras.utils.pad_sequences``)."""

from __future__ import annotations

import types

from runtime.keras.missing import missing as _missing
from runtime.keras.utils import pad_sequences

sequence = types.SimpleNamespace(pad_sequences=pad_sequences)

__getattr__ = _missing("keras.preprocessing")
