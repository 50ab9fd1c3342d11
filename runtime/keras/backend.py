"""``keras.backend``: ``clear_session`` (layer names start again from ``dense``)."""

from __future__ import annotations

from runtime.keras.layers import base as _base
from runtime.keras.missing import missing as _missing


def clear_session() -> None:
    """Forgets the layer names given so far, so the next ``Dense`` is ``dense`` again."""
    with _base._name_lock:
        _base._name_counts.clear()


def floatx() -> str:
    return "float32"


def epsilon() -> float:
    """The fuzz factor losses and metrics use (clipping probabilities, dividing)."""
    return 1e-7


def image_data_format() -> str:
    """Images are channels last, the only layout the layers take."""
    return "channels_last"


def int_shape(x) -> tuple:
    """The static shape of a tensor, variable or Keras tensor, None for unknown dimensions."""
    return tuple(x.shape)


__getattr__ = _missing("keras.backend")
