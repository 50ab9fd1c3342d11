"""A module ``__getattr__`` for Keras names ``rt.keras`` does not have yet: the error names
the Keras name asked for, instead of Python's "module has no attribute"."""

from __future__ import annotations


def missing(module: str):
    def __getattr__(name: str):
        if name.startswith("__"):  # Python's and tools' own probes (__path__, __wrapped__, ...)
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        raise AttributeError(f"{module}.{name} is not supported by rt.keras yet (Keras' name "
                             f"has no equivalent in the runtime; the README's 'Keras' section "
                             f"lists what is there).")
    return __getattr__
