"""Where in the user's code a graph node was created, for printing and for error messages.

Nodes record the first stack frame outside the runtime (and outside any directory registered as
internal, such as the transpiler's operators). Generated code registers a line map so that a
node created by converted code points at the user's original file and line.

A location read from a saved graph is only data: its file name came from whoever wrote the
file, so its source line is never read (it could name ``/etc/passwd`` or ``/dev/zero``).
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import warnings
import weakref
from dataclasses import dataclass
from types import CodeType, FrameType, ModuleType, TracebackType

from runtime.errors import OperatorNotAllowedInGraphError

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_internal_prefixes: list[str] = [_RUNTIME_DIR]
_internal_cache: dict[str, bool] = {}
_line_maps: dict[str, dict[int, "Location"]] = {}
_unconverted: "weakref.WeakKeyDictionary[CodeType, str]" = weakref.WeakKeyDictionary()


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


def is_internal_file(filename: str) -> bool:
    """Whether frames of ``filename`` belong to eager2graph (or Python's frozen modules)."""
    internal = _internal_cache.get(filename)
    if internal is None:
        internal = filename.startswith(tuple(_internal_prefixes)) or filename.startswith("<frozen")
        _internal_cache[filename] = internal
    return internal


def user_location() -> Location | None:
    """The innermost frame of user code on the current stack. Asked once per traced op,
    through several runtime frames each: the cache is read inline, without a call per frame."""
    frame = sys._getframe(1)
    cached = _internal_cache.get
    while frame is not None:
        filename = frame.f_code.co_filename
        internal = cached(filename)
        if internal is None:
            internal = is_internal_file(filename)
        if not internal:
            break
        frame = frame.f_back
    if frame is None:
        return None
    code = frame.f_code
    # A frame's line number is found by scanning its code's line table up to the current
    # instruction (a cost that grows with the function's length): each instruction's
    # location is found once per code object.
    entry = _by_code.get(id(code))
    if entry is None or entry[0]() is not code:
        entry = _by_code[id(code)] = (weakref.ref(code, _forget_code(id(code))), {})
    locations = entry[1]
    location = locations.get(frame.f_lasti, _NOT_FOUND)
    if location is _NOT_FOUND:
        location = locations[frame.f_lasti] = translate(code.co_filename, frame.f_lineno,
                                                        code.co_name)
    return location


# id(code) -> (weak reference to the code, {instruction offset: its Location}); an entry goes
# with its code (converted code is collected with its functions, see transpiler's
# generated_sources). A line map is registered before its code runs and removed after it
# dies, so an instruction's location never changes while its code lives.
_by_code: dict[int, tuple] = {}
_NOT_FOUND = object()


def _forget_code(key: int):
    def forget(reference) -> None:
        entry = _by_code.get(key)
        if entry is not None and entry[0] is reference:
            del _by_code[key]
    return forget


def user_expression() -> str | None:
    """The text of the expression running in the innermost frame of user code (of generated
    code, for a converted function), if it fits on one line: what the user wrote that called
    into the runtime, for messages that explain a mistake in it."""
    frame = sys._getframe(1)
    while frame is not None and is_internal_file(frame.f_code.co_filename):
        frame = frame.f_back
    return None if frame is None else _expression_text(frame.f_code, frame.f_lasti)


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by the caller point at user code."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and is_internal_file(frame.f_code.co_filename):
        level, frame = level + 1, frame.f_back
    return level


# -- warnings at the user's line ----------------------------------------------------------------
#
# ``warnings.warn(stacklevel=...)`` can only name a frame, and the innermost frame outside
# eager2graph may be generated code (a converted function, ``ag__.converted(...)``). These
# issue the warning with ``warn_explicit`` at the user's file and line instead, with the
# module name and ``__warningregistry__`` that ``warnings.warn`` would have used, so filters
# and "once per location" behave as for a warning of the user's own code.


def is_user_frame(frame: FrameType) -> bool:
    """Whether ``frame`` runs user code: not eager2graph's files, not its plans or entry
    stubs (``<eager2graph ...>`` without a line map); converted code counts as the user's."""
    filename = frame.f_code.co_filename
    if is_internal_file(filename):
        return False
    return not filename.startswith("<eager2graph ") or filename in _line_maps


def warn_at_user_code(message: str, category: type[Warning]) -> None:
    """Issues a warning at the innermost frame of user code on the stack (generated code
    mapped back to the user's line), like ``warnings.warn`` with a stacklevel that skips
    eager2graph's frames."""
    frame = sys._getframe(1)
    while frame is not None and not is_user_frame(frame):
        frame = frame.f_back
    if frame is None:
        warnings.warn(message, category, stacklevel=2)
    else:
        warn_in_frame(frame, message, category)


def warn_in_frame(frame: FrameType, message: str, category: type[Warning]) -> None:
    """Issues a warning at the line ``frame`` is running, or at the user's line it came from
    when ``frame`` runs generated code."""
    code, lineno = frame.f_code, frame.f_lineno
    module_globals = frame.f_globals
    filename = code.co_filename
    if filename in _line_maps:
        location = generated_line_origin(filename, lineno)
        if location is not None:
            filename, lineno = location.filename, location.lineno
    registry = module_globals.get("__warningregistry__")
    if not isinstance(registry, dict):
        registry = module_globals["__warningregistry__"] = {}
    module = module_globals.get("__name__")
    warnings.warn_explicit(message, category, filename, lineno,
                           module=module if isinstance(module, str) else _module_name(filename),
                           registry=registry)


def warn_at(location: Location, message: str, category: type[Warning]) -> None:
    """Issues a warning at ``location`` (where a graph op was written, say), with the module
    and warning registry of the module loaded from that file, if any."""
    module = _module_of(location.filename)
    if module is not None:
        name, namespace = module.__name__, vars(module)
        registry = namespace.get("__warningregistry__")
        if not isinstance(registry, dict):
            registry = namespace["__warningregistry__"] = {}
    else:
        name = _module_name(location.filename)
        registry = _registries.setdefault(location.filename, {})
    warnings.warn_explicit(message, category, location.filename, location.lineno,
                           module=name, registry=registry)


def _module_name(filename: str) -> str:
    """The module name ``warn_explicit`` derives from a file name (given explicitly: given
    None, the C implementation drops the warning)."""
    return filename[:-3] if filename.lower().endswith(".py") else filename or "<unknown>"


_module_names: dict[str, str | None] = {}  # file name -> name of the module loaded from it
_registries: dict[str, dict] = {}  # warning registries of files that are no module's


def _module_of(filename: str) -> ModuleType | None:
    if filename in _module_names:
        name = _module_names[filename]
        module = sys.modules.get(name) if name is not None else None
        if name is None or getattr(module, "__file__", None) == filename:
            return module
    for module in list(sys.modules.values()):
        if getattr(module, "__file__", None) == filename:
            _module_names[filename] = module.__name__
            return module
    _module_names[filename] = None
    return None


# -- tracebacks that show the user's code -------------------------------------------------------
#
# An exception that leaves a traced or converted function has passed through many frames of
# the runtime and of generated code. The public entry points (``Function.__call__`` and
# friends) rebuild its traceback before it reaches the user: frames of internal files are
# dropped, and a frame of generated code is replaced by a frame in the user's own file, at the
# user's line, with a caret under the same expression. Python cannot make a frame for an
# arbitrary file and line directly, so one is obtained by running a tiny stub compiled under
# the user's file name whose only expression fails at exactly that line and column.



def user_traceback(error: BaseException) -> TracebackType | None:
    """``error``'s traceback with only the user's frames (generated code mapped back to the
    user's lines); the tracebacks of its causes and contexts are rewritten the same way."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        current.__traceback__ = _filtered(current.__traceback__, getattr(current, "node", None))
        pending += [current.__cause__, current.__context__]
    _name_the_misuse(error)
    return error.__traceback__


def _name_the_misuse(error: BaseException) -> None:
    """A symbolic tensor used as a Python value: its message says where the tensor was made;
    the innermost user frame is where it was used, which is the line to change, and the
    expression running there is what the user wrote (``range(n)``, ``[0.0] * n``): Python
    called the protocol (``__index__``, ``__bool__``, ...) on the user's behalf."""
    if not isinstance(error, OperatorNotAllowedInGraphError) or not error.args \
            or not isinstance(error.args[0], str) or getattr(error, "_e2g_misuse_named", False):
        return
    traceback, innermost = error.__traceback__, None
    while traceback is not None:
        innermost, traceback = traceback, traceback.tb_next
    if innermost is not None:
        error._e2g_misuse_named = True
        code = innermost.tb_frame.f_code
        where = Location(code.co_filename, innermost.tb_lineno)
        expression = _expression_text(code, innermost.tb_lasti)
        written = f", in `{expression.strip()}`" if expression and expression.strip() else ""
        text = f"{error.args[0]} The tensor was used this way at {where}{written}."
        reason = _unconverted.get(code)
        if reason is not None:
            text += (f" {code.co_name}() was not converted, so its if/while/and/or/not on "
                     f"tensors could not become graph control flow: {reason}")
        error.args = (text, *error.args[1:])


def register_unconverted(code: CodeType, reason: str) -> None:
    """Records that the function of ``code`` runs unconverted, and why (its source could not
    be read), for the error its tensor conditions then raise."""
    _unconverted[code] = reason


def _filtered(traceback: TracebackType | None, node) -> TracebackType | None:
    entries: list[tuple] = []
    while traceback is not None:
        filename = traceback.tb_frame.f_code.co_filename
        if filename in _line_maps:
            entry = _generated_entry(traceback)
            if entry is not None:
                entries.append(entry)
        elif not is_internal_file(filename):
            entries.append((traceback.tb_frame, traceback.tb_lasti, traceback.tb_lineno))
        traceback = traceback.tb_next
    location = getattr(node, "location", None)  # a run-time error: where its op was created
    if location is not None and location.readable and location.lineno > 0:
        entries.append(_stub_entry(location, location.function_name, None))
    rebuilt = None
    for frame, lasti, lineno in reversed(entries):
        rebuilt = TracebackType(rebuilt, frame, lasti, lineno)
    return rebuilt


def is_generated_file(filename: str) -> bool:
    """Whether ``filename`` is generated code with a line map back to the user's source."""
    return filename in _line_maps


def generated_line_origin(filename: str, lineno: int) -> Location | None:
    """The user's line that line ``lineno`` of generated code came from: the nearest mapped
    line at or above it (None: scaffolding before any mapped line)."""
    line_map = _line_maps.get(filename)
    if not line_map:
        return None
    mapped = [line for line in line_map if line <= lineno]
    return line_map[max(mapped)] if mapped else None


def _generated_entry(traceback: TracebackType) -> tuple | None:
    """A frame in the user's file standing for a frame of generated code (None: the line is
    scaffolding that maps to no line of the user's)."""
    code = traceback.tb_frame.f_code
    location = generated_line_origin(code.co_filename, traceback.tb_lineno)
    if location is None:
        return None
    frame = traceback.tb_frame
    return _stub_entry(location, location.function_name or code.co_name,
                       _expression_text(code, traceback.tb_lasti),
                       {**frame.f_globals, **frame.f_locals})


def _expression_text(code: CodeType, lasti: int) -> str | None:
    """The generated text of the expression that was running, if it fits on one line."""
    positions = list(code.co_positions())
    if lasti < 0 or lasti // 2 >= len(positions):
        return None
    line, end_line, column, end_column = positions[lasti // 2]
    if line is None or line != end_line or column is None or end_column is None:
        return None
    text = linecache.getline(code.co_filename, line).encode()[column:end_column].decode(
        errors="replace")
    return text or None


def _stub_entry(location: Location, function_name: str, expression: str | None,
                names: dict | None = None) -> tuple:
    """(frame, lasti, lineno) of a frame at ``location``; the caret goes under ``expression``
    where the user's line holds that text, else it spans the line (and Python omits it)."""
    user_line = linecache.getline(location.filename, location.lineno).rstrip("\r\n")
    start = user_line.find(expression) if expression else -1
    if start < 0:
        start, expression = len(user_line) - len(user_line.lstrip()), user_line.strip() or "x"
    column, width = len(user_line[:start].encode()), len(expression.encode())
    code = _stub(location.filename, location.lineno, function_name or "<module>", column, width)
    try:
        # The stub frame sees the names the user's frame saw, so that Python's "Did you
        # mean ...?" for a NameError suggests what it would have suggested there.
        exec(code, _without(names or {}, code.co_names[0]))
    except NameError as raised:
        stub = raised.__traceback__.tb_next  # the stub's own frame, below this one
        return stub.tb_frame, stub.tb_lasti, location.lineno
    raise AssertionError("an eager2graph traceback stub did not fail")  # pragma: no cover


def _without(names: dict, name: str) -> dict:
    """A copy of the namespace ``names`` (builtins included) in which ``name`` is undefined."""
    namespace = dict(names)
    namespace.pop(name, None)
    builtin_names = namespace.get("__builtins__", {})
    if isinstance(builtin_names, ModuleType):
        builtin_names = vars(builtin_names)
    namespace["__builtins__"] = {key: value for key, value in builtin_names.items()
                                 if key != name}
    return namespace


@functools.lru_cache(maxsize=512)
def _stub(filename: str, lineno: int, name: str, column: int, width: int) -> CodeType:
    """Code whose one expression, a name ``width`` bytes long at ``column`` of ``lineno``, fails."""
    name_text = "_" * width
    line = f"({' ' * (column - 1)}{name_text})" if column else name_text
    return compile("\n" * (lineno - 1) + line, filename, "exec").replace(co_name=name,
                                                                         co_qualname=name)
