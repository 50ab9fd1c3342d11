"""Where a plan's generated code is said to come from: its function's name and its file.

The name is a Python identifier made from any function name (loaded graphs have any string:
``"x²"``). The source is registered with ``linecache`` under a file name of its own, so
tracebacks and warnings show the generated line that ran.
"""

from __future__ import annotations

import itertools
import linecache
import threading
import weakref

_plan_ids = itertools.count(1)


def function_name(name: str) -> str:
    """``name`` as a Python identifier (names of loaded functions are any string: ``"x²"``)."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    return "plan_" + cleaned


class SharedSource:
    """The ``linecache`` entry of a plan's source. Plans with the same text share one: a
    function retraced for each value of a Python number makes the same text every time (its
    values are globals of the plan, its names are numbered per plan), and a file name per
    trace would pile up in caches that outlive the plans (``tracemalloc`` keeps every file
    name that ever ran)."""

    __slots__ = ("filename", "__weakref__")

    def __init__(self, filename: str, source: str):
        self.filename = filename
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)

    def __del__(self):
        cache = getattr(linecache, "cache", None)  # None while the interpreter shuts down
        if cache is not None:
            cache.pop(self.filename, None)


# (name, source) -> its entry, while a plan made from that text lives.
_sources: "weakref.WeakValueDictionary[tuple[str, str], SharedSource]" = \
    weakref.WeakValueDictionary()
_sources_lock = threading.Lock()


def shared_source(name: str, source: str) -> SharedSource:
    with _sources_lock:
        entry = _sources.get((name, source))
        if entry is None:
            entry = SharedSource(f"<eager2graph plan {next(_plan_ids)}: {name}>", source)
            _sources[name, source] = entry
        return entry
