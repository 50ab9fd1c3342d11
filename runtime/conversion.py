"""The converter for user functions the runtime calls itself: dataset functions (``map``,
``filter``, ``flat_map``, ``reduce``) and Keras layers' ``call``.

TensorFlow applies AutoGraph to the functions its libraries call, so a ``map`` function or a
layer's ``call`` with a Python ``if`` on a tensor works in a graph. The runtime cannot import
the transpiler (the layering is one-way), so the transpiler registers its ``convert`` here
when it is imported; until then, and for anything the converter declines, functions run as
they are.
"""

from __future__ import annotations

from typing import Callable

Converter = Callable[[Callable], Callable]

_converter: Converter | None = None


def set_converter(converter: Converter | None) -> None:
    """Makes ``converted`` pass functions through ``converter`` (None: run them as given)."""
    global _converter
    _converter = converter


def converted(fn: Callable) -> Callable:
    """``fn`` as the registered converter makes it (``fn`` itself when none is registered)."""
    return fn if _converter is None else _converter(fn)
