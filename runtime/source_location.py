"""Where in the user's code a graph node was created, for printing and for error messages.

Nodes record the first stack frame outside the runtime (and outside any directory registered as
internal, such as the transpiler's operators). Generated code registers a line map so that a
node created by converted code points at the user's original file and line.

A location read from a saved graph is only data: its file name came from whoever wrote the
file, so its source line is never read (it could name ``/etc/passwd`` or ``/dev/zero``).
"""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_internal_prefixes: list[str] = [_RUNTIME_DIR]
_internal_cache: dict[str, bool] = {}
_line_maps: dict[str, dict[int, "Location"]] = {}


@dataclass(frozen=True)
class Location:
    filename: str
    lineno: int
    function_name: str = ""
    # False for locations loaded from a file: the named file is never opened.
    readable: bool = True

    @property
    def source_line(self) -> str:
        if not self.readable:
            return ""
        return linecache.getline(self.filename, self.lineno).strip()

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.lineno}"

    def describe(self) -> str:
        """``File "f.py", line 3, in fn`` plus the source line, as in a traceback."""
        text = f'File "{self.filename}", line {self.lineno}'
        if self.function_name:
            text += f", in {self.function_name}"
        line = self.source_line
        return text + (f"\n    {line}" if line else "")


def register_internal_directory(path: str) -> None:
    """Frames from files under ``path`` are skipped when looking for the user's location."""
    prefix = os.path.abspath(path) + os.sep
    if prefix not in _internal_prefixes:
        _internal_prefixes.append(prefix)
        _internal_cache.clear()


def register_line_map(filename: str, line_map: dict[int, Location]) -> None:
    """Maps lines of a generated file back to the user's original source."""
    _line_maps[filename] = line_map


def unregister_line_map(filename: str) -> None:
    """Forgets the line map of generated code that is gone (its functions were collected)."""
    _line_maps.pop(filename, None)


def translate(filename: str, lineno: int, function_name: str = "") -> Location:
    line_map = _line_maps.get(filename)
    if line_map is not None and lineno in line_map:
        return line_map[lineno]
    return Location(filename, lineno, function_name)


def _is_internal(filename: str) -> bool:
    internal = _internal_cache.get(filename)
    if internal is None:
        internal = filename.startswith(tuple(_internal_prefixes)) or filename.startswith("<frozen")
        _internal_cache[filename] = internal
    return internal


def user_location() -> Location | None:
    """The innermost frame of user code on the current stack."""
    frame = sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    return translate(code.co_filename, frame.f_lineno, code.co_name)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by the caller point at user code."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and _is_internal(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    return level
