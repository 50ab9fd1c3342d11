"""``keras.saving.register_keras_serializable`` (also ``keras.utils``) and
``get_custom_objects``: classes and functions a program registers once, so that
``load_model``, ``model_from_json`` and ``from_config`` find them without ``custom_objects``.

Keras keys a registered object by ``"package>name"``; a saved configuration names it by its
class or function name, which is what loading looks up. Objects added to
``get_custom_objects()`` under a plain name are found by that name.
"""

from __future__ import annotations

from typing import Callable

_REGISTERED: dict[str, object] = {}


def register_keras_serializable(package: str = "Custom", name: str | None = None) -> Callable:
    """A decorator that registers a class or function under ``package>name`` (``name``: its
    own name by default) and gives it back unchanged."""
    def register(obj):
        key = f"{package}>{name or obj.__name__}"
        if key in _REGISTERED and _REGISTERED[key] is not obj:
            raise ValueError(f"{key} has already been registered to {_REGISTERED[key]!r}; "
                             f"give this one another package or name.")
        _REGISTERED[key] = obj
        return obj
    return register


def get_custom_objects() -> dict:
    """The registry itself, as in Keras: a program may add entries to it."""
    return _REGISTERED


def with_registered(custom_objects: dict | None) -> dict:
    """``custom_objects`` over the registered objects, keyed by the names a saved
    configuration gives them."""
    registered = {key.split(">")[-1]: obj for key, obj in _REGISTERED.items()}
    return {**registered, **(custom_objects or {})}
