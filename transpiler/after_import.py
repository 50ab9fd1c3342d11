"""Running a function right after a module is imported, without importing it.

Functions converted while PyTorch is imported need ``torch._dynamo`` to be kept out of what
``torch.compile`` traces, and importing it takes about a second: a program that never compiles
should not pay for it. Dynamo is imported before it traces anything, so wrapping the functions
right after that import (``when_imported``) is in time.
"""

from __future__ import annotations

import importlib.abc
import sys
import threading
import warnings
from typing import Callable

_lock = threading.Lock()
_waiting: dict[str, list[Callable[[], None]]] = {}  # module name -> callbacks


def when_imported(name: str, callback: Callable[[], None]) -> None:
    """Calls ``callback()`` now if module ``name`` is imported, else once its import ends
    (once: a callback registered twice runs once)."""
    with _lock:
        if name not in sys.modules:
            callbacks = _waiting.setdefault(name, [])
            if callback not in callbacks:
                callbacks.append(callback)
            if _FINDER not in sys.meta_path:
                sys.meta_path.insert(0, _FINDER)
            return
    callback()


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the modules waited for with the finders after it, and has their loader run the
    callbacks after the module's code."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in _waiting:
            return None
        finders = sys.meta_path[sys.meta_path.index(self) + 1:] if self in sys.meta_path else []
        for finder in finders:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find is not None else None
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    _notify_after(spec.loader, fullname)
                return spec
        return None


def _notify_after(loader, name: str) -> None:
    """Makes this loader object (made for this one import) run ``name``'s callbacks after it
    has run the module's code."""
    execute = loader.exec_module

    def exec_module(module):
        execute(module)
        with _lock:
            callbacks = _waiting.pop(name, [])
            if not _waiting and _FINDER in sys.meta_path:
                sys.meta_path.remove(_FINDER)
        for callback in callbacks:
            try:
                callback()
            except Exception as error:  # noqa: BLE001 - the importer's import must not fail
                warnings.warn(f"a callback waiting for the import of {name} failed "
                              f"({type(error).__name__}: {error}); please report this.",
                              RuntimeWarning, stacklevel=2)
    loader.exec_module = exec_module


_FINDER = _Finder()
