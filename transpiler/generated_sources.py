"""Where the source of converted functions lives: in memory, under a pseudo file name.

Generated modules are never written to disk. A file in a shared temporary directory can be
replaced or pre-planted by another user (a symlink there made the transpiler write through
it), and files written per conversion pile up in a long-lived process. Instead each module
gets a name like ``<eager2graph converted 7: f>`` and its text goes into ``linecache``, which
is what tracebacks, ``inspect.getsource`` and ``pdb`` read. The ``<...>`` form matters:
``linecache`` never tries to load such a name from disk or from the user module's loader, so
a missing entry shows no line rather than a wrong one.

The entry lives as long as the code compiled from it: when the last function made from a
module is collected, its ``linecache`` entry and line map go too.
"""

from __future__ import annotations

import itertools
import linecache
import weakref
from types import CodeType

from runtime import source_location

_PREFIX = "<eager2graph converted "
_module_ids = itertools.count(1)


def register(source: str, name: str) -> str:
    """Puts ``source`` into ``linecache`` under a new pseudo file name, and returns the name."""
    filename = f"{_PREFIX}{next(_module_ids)}: {name}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    return filename


def release_with(code: CodeType, filename: str) -> None:
    """Forgets ``filename`` (its source and line map) once ``code`` is collected."""
    weakref.finalize(code, _forget, filename)


def _forget(filename: str) -> None:
    linecache.cache.pop(filename, None)
    source_location.unregister_line_map(filename)


def is_generated(code: CodeType) -> bool:
    """True for code compiled from a converted module (functions nested in it included)."""
    return code.co_filename.startswith(_PREFIX)
