"""Converted functions kept between runs (in ``runtime.code_cache``): a script's functions are
converted on its first run, and read back by the runs after it.

A conversion depends on four things:

- the text of the user's file;
- where the function sits in it;
- the converter's own code;
- what some names meant in the function's globals when it was converted (``print`` the
  built-in or another function, ``math.exp``, whether a callee is library code).

The key covers the first three: a digest of the file's text, and the size and modification
time of the converter's files (``_converter_fingerprint``).
The last is kept in the entry: every name the converters looked up, with a description of what
it named (``describe``). An entry is used only when each name still describes the same.
A conversion that fails is not kept: it fails again, with its message, in the next process.
"""

from __future__ import annotations

import builtins
import linecache
import os
import sys
import types

from runtime import code_cache, config
from transpiler import parsing

_fingerprint: str | None = None
_CONVERTER_PACKAGES = ("transpiler", "gast")
# file -> (its lines in linecache, their digest): a file whose lines linecache still holds is
# not hashed again.
_file_digests: dict[str, tuple[list, str]] = {}


def global_value(namespace: dict, name: str) -> object | None:
    """What ``name`` means in a function whose globals are ``namespace``: a global, else a
    built-in, else None."""
    if name in namespace:
        return namespace[name]
    return getattr(builtins, name, None)


def describe(value: object) -> tuple | None:
    """What a converter saw in a name, as text that is the same in every process: a module's
    name; else the value's class, its own module and qualified name, and its code's file. None
    for a value that cannot say (its attributes raise): a conversion that saw one is not kept."""
    if value is None:
        return ("nothing",)
    if isinstance(value, types.ModuleType):
        return ("module", value.__name__)
    try:
        module = getattr(value, "__module__", None)
        name = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
        code = getattr(value, "__code__", None)
    except Exception:
        return None
    kind = type(value)
    return ("object", kind.__module__, kind.__qualname__,
            module if isinstance(module, str) else "", name if isinstance(name, str) else "",
            code.co_filename if isinstance(code, types.CodeType) else "")


def key(fn: types.FunctionType) -> str | None:
    """The cache key of ``fn``'s conversion, or None when the cache is off or ``fn``'s file
    has no text (the conversion then fails as it would without a cache)."""
    if config.code_cache_directory() is None:
        return None
    code = fn.__code__
    file_digest = _file_digest(code.co_filename, fn.__globals__)
    if file_digest is None:
        return None
    # A def is the one of its name that starts on its first line; lambdas on one line are
    # told apart by the columns of their code.
    where = str(list(code.co_positions())) if code.co_name == "<lambda>" else ""
    return code_cache.digest("conversion", _converter_fingerprint(), code.co_filename,
                             file_digest, str(code.co_firstlineno), code.co_name, fn.__name__,
                             " ".join(code.co_freevars), str(parsing.last_code_line(code)),
                             where)


def load(key: str, fn: types.FunctionType):
    """The kept conversion of ``fn`` (a ``codegen.GeneratedModule``), or None if there is none
    or the names it depends on mean something else now."""
    from transpiler import codegen
    entry = code_cache.load("conversion", key)
    if entry is None:
        return None
    try:
        source, code, line_map, name, resolved = entry
        if not isinstance(code, types.CodeType) or not all(
                _describe_now(looked_up, fn.__globals__) == seen for looked_up, seen in resolved):
            return None
        origins = {line: parsing.Origin(*origin) for line, *origin in line_map}
    except (TypeError, ValueError):  # nothing kept, or not an entry of this format
        return None
    return codegen.load(name, source, code, origins)


def keep(key: str, generated, name: str, resolved: dict) -> None:
    """Keeps a conversion made now (``codegen.GeneratedModule`` of the function ``name`` and
    what its names meant: ``Context.resolved``) for later processes."""
    if any(seen is None for seen in resolved.values()):
        return
    line_map = [(line, o.filename, o.lineno, o.col_offset, o.function_name, o.source_line)
                for line, o in generated.line_map.items()]
    code_cache.store("conversion", key, (generated.module_source, generated.code, line_map,
                                         name, list(resolved.items())))


def _describe_now(looked_up: tuple, namespace: dict) -> tuple | None:
    if len(looked_up) == 1:
        return describe(global_value(namespace, looked_up[0]))
    module = sys.modules.get(looked_up[0])
    if module is None:
        return ("no module",)
    return describe(getattr(module, looked_up[1], None))


def _file_digest(filename: str, module_globals: dict) -> str | None:
    """The digest of the file's text as ``parsing`` reads it (``linecache``), once per text
    in a process. By content, not by size and modification time: a copy that keeps an older
    file's time (``cp -p``, ``tar``, a wheel's fixed dates) must not bring its conversion back."""
    linecache.checkcache(filename)
    lines = linecache.getlines(filename, module_globals)
    if not lines:
        return None
    known = _file_digests.get(filename)
    if known is not None and known[0] is lines:
        return known[1]
    digest = code_cache.digest("".join(lines))
    _file_digests[filename] = (lines, digest)
    return digest


def _converter_fingerprint() -> str:
    """The converter's version. Installed (in ``site-packages``), its package's first file's
    size and modification time: an installation writes every file anew. Otherwise (a working
    copy, perhaps being edited), those of every ``transpiler`` and ``gast`` module loaded."""
    global _fingerprint
    if _fingerprint is None:
        modules = sys.modules
        names = ["transpiler", "gast"] if _installed(getattr(modules.get("transpiler"),
                                                              "__file__", None)) \
            else sorted(name for name in list(modules) if name.startswith(_CONVERTER_PACKAGES))
        stats = []
        for name in names:
            path = getattr(modules.get(name), "__file__", None)
            if path:
                try:
                    info = os.stat(path)
                except OSError:
                    continue
                stats.append(f"{name} {info.st_size} {info.st_mtime_ns}")
        _fingerprint = code_cache.digest("\n".join(stats))
    return _fingerprint


def _installed(path: str | None) -> bool:
    parts = os.path.normpath(path or "").split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts
