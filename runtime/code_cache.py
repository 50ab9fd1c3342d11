"""Generated Python compiled once per machine, as ``__pycache__`` keeps compiled modules.

A first call spends most of its time making Python: converting the user's function (parsing,
the converters' passes, unparsing) and compiling the plan's source (about 12 us per line). Both
are pure functions of text that stays the same from one run of a script to the next, so their
results are kept on disk and read back (``marshal``, tens of microseconds) by later processes:

- ``compiled(source, filename)``: the code object of a plan's source, keyed by the text;
- ``load``/``store``: any ``marshal``-able value under a key its caller makes with ``digest``
  (the transpiler keeps converted functions so, see ``transpiler.conversion_cache``).

Entries live in ``rt.config.code_cache_directory()``, a private directory (mode 0700, refused
if another user owns it or can write to it) with the same trust as ``__pycache__``: what is
read there was written there by this user's processes. Files are written under a temporary
name and renamed into place, so a reader never sees half an entry; a file that is not a whole
entry of this format and Python version is a miss, never an error. A directory that cannot be
made (a read-only home) turns the cache off for the process, and one another user could write
to turns it off with one warning; the results never depend on it.
"""

from __future__ import annotations

import atexit
import collections
import hashlib
import importlib.util
import marshal
import os
import threading
import time
import types
import warnings

from runtime import config
from runtime.private_directory import private_directory

# Format and Python version: marshal's format and code objects change between Python versions.
_MAGIC = b"eager2graph code cache 1\n" + importlib.util.MAGIC_NUMBER
_MAX_BYTES = 16 << 20  # no entry of ours is larger: a larger file is read no further
# Plans shorter than this compile in a fraction of a millisecond: not worth a file each.
_MIN_LINES_ON_DISK = 40
_IN_PROCESS = 256  # code objects kept in memory, by source text (retraces make the same text)
_MAX_ENTRIES = 4096  # files on disk; about one store in _PRUNE_EVERY looks how many there are
_PRUNE_EVERY = 64

_lock = threading.Lock()
_pending: dict[str, bytes] = {}  # path -> entry, written by ``flush``
_MAX_PENDING = 64
_flush_at_exit = False
_recent: "collections.OrderedDict[str, types.CodeType]" = collections.OrderedDict()
_usable: set[str] = set()  # directories checked this process
_unusable: set[str] = set()  # directories found unusable, warned about once


def digest(*parts: bytes | str) -> str:
    """A key for ``load``/``store``: the SHA-256 of ``parts``, each length-prefixed (so no two
    different sequences of parts give the same text to hash)."""
    hasher = hashlib.sha256(_MAGIC)
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        hasher.update(len(data).to_bytes(8, "little"))
        hasher.update(data)
    return hasher.hexdigest()[:48]


def load(kind: str, key: str) -> object | None:
    """The value stored under ``kind`` and ``key``, or None (never stored, the cache is off,
    or the file is not a whole entry of this format)."""
    path = _path(kind, key)
    if path is None:
        return None
    data = _pending.get(path)
    if data is None:
        try:
            with open(path, "rb") as file:
                data = file.read(_MAX_BYTES + 1)
        except OSError:
            return None
    if len(data) > _MAX_BYTES or not data.startswith(_MAGIC):
        return None
    try:
        return marshal.loads(memoryview(data)[len(_MAGIC):])
    except (ValueError, EOFError, TypeError):
        return None


def store(kind: str, key: str, value: object) -> None:
    """Keeps ``value`` (anything ``marshal`` writes: code, str, bytes, numbers, tuples, lists,
    dicts) under ``kind`` and ``key`` for later processes. The file is written when the process
    exits (or once many wait), not during the first call that made it; a failure to write is
    ignored."""
    path = _path(kind, key)
    if path is None:
        return
    try:
        data = _MAGIC + marshal.dumps(value)
    except ValueError:  # not marshal-able: the caller's bug, but the cache is only a cache
        return
    if len(data) > _MAX_BYTES:
        return
    global _flush_at_exit
    with _lock:
        _pending[path] = data
        if not _flush_at_exit:
            _flush_at_exit = True
            atexit.register(flush)
        full = len(_pending) >= _MAX_PENDING
    if full:
        flush()


def flush() -> None:
    """Writes the entries stored so far (at exit, or when ``_MAX_PENDING`` wait)."""
    with _lock:
        entries = list(_pending.items())
        _pending.clear()
    for path, data in entries:
        _write(path, data)


def _write(path: str, data: bytes) -> None:
    if os.urandom(1)[0] < 256 // _PRUNE_EVERY:
        _prune(os.path.dirname(path))
    temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            with os.fdopen(handle, "wb") as file:
                file.write(data)
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
    except OSError:
        pass


def _forget_pending() -> None:
    """A forked child leaves its parent's entries to the parent (and has a lock of its own:
    another thread of the parent may have held it at the fork)."""
    global _lock
    _lock = threading.Lock()
    _pending.clear()


def _prune(directory: str) -> None:
    """Keeps the directory from growing without end: past ``_MAX_ENTRIES`` entries, the older
    half goes (the next process that needs one makes it again), with files left half-written
    by a process that died."""
    try:
        entries = [entry for entry in os.scandir(directory) if entry.is_file()]
        stale = time.time() - 3600
        for entry in entries:
            if entry.name.endswith(".tmp") and entry.stat().st_mtime < stale:
                os.unlink(entry.path)
        kept = [entry for entry in entries if entry.name.endswith(".bin")]
        if len(kept) > _MAX_ENTRIES:
            kept.sort(key=lambda entry: entry.stat().st_mtime)
            for entry in kept[:len(kept) - _MAX_ENTRIES // 2]:
                os.unlink(entry.path)
    except OSError:
        pass


def compiled(source: str, filename: str) -> types.CodeType:
    """``compile(source, filename, "exec")``, from memory or disk when this text was compiled
    before (by this process, or by an earlier one for longer sources)."""
    with _lock:
        code = _recent.get(source)
        if code is not None:
            _recent.move_to_end(source)
    if code is None:
        on_disk = source.count("\n") >= _MIN_LINES_ON_DISK
        key = digest(source) if on_disk else None
        stored = load("code", key) if on_disk else None
        code = stored if isinstance(stored, types.CodeType) else compile(source, filename, "exec")
        if on_disk and stored is None:
            store("code", key, code)
        with _lock:
            _recent[source] = code
            if len(_recent) > _IN_PROCESS:
                _recent.popitem(last=False)
    return renamed(code, filename)


def renamed(code: types.CodeType, filename: str) -> types.CodeType:
    """``code`` and the code objects nested in it said to come from ``filename`` (tracebacks
    and ``linecache`` look a line up by it)."""
    if code.co_filename == filename:
        return code
    consts = tuple(renamed(const, filename) if isinstance(const, types.CodeType) else const
                   for const in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _path(kind: str, key: str) -> str | None:
    directory = config.code_cache_directory()
    if directory is None or directory in _unusable:
        return None
    if directory not in _usable:
        try:
            private_directory(directory, "code cache", "rt.config.set_code_cache_directory")
        except OSError as error:
            with _lock:
                if directory in _unusable:
                    return None
                _unusable.add(directory)
            # A directory that cannot be made (a read-only home) only costs speed; one that
            # others could plant code in is worth a word.
            if error.errno is None:
                warnings.warn(f"eager2graph's code cache is off for this process: {error}",
                              RuntimeWarning, stacklevel=4)
            return None
        _usable.add(directory)
    return os.path.join(directory, f"{kind}-{key}.bin")


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pending)
