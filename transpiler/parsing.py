"""Read the source of a user function and parse it into a gast tree.

Why parse the file's own text rather than ``inspect.getsource(fn)``: the file
is what the interpreter compiled, so its lines give the absolute line numbers
and original column offsets that error messages must point at. It also avoids
dedenting (which breaks on methods and on multi-line strings) and lets us find
a lambda that sits in the middle of a larger expression. A def is found by
parsing only its own lines (its code object says where they are), the whole
file only when that cannot tell; lambdas always parse the whole file. Parsed
files are cached, and the node handed back is a fresh tree, so converters may
edit it freely.

Every node of the returned tree carries its ``Anno.ORIGIN``, except the few gast makes up
(an argument's ``Param`` context): what reads origins takes the parent's there.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import functools
import inspect
import linecache
import types
from typing import Any, Callable, Optional, Union

import gast

from transpiler import syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.errors import SourceUnavailableError, UnsupportedSyntaxError

FunctionNode = Union[gast.FunctionDef, gast.Lambda]

_NO_SOURCE_HINT = (
    "Functions typed into an interactive shell or created with exec() have no source file;"
    " define it in a .py file, or mark it with @transpiler.do_not_convert to run it as"
    " plain Python.")


@dataclasses.dataclass(frozen=True)
class Origin:
    """Where a node came from in the user's code, for error messages and source maps."""

    filename: str
    lineno: int  # Absolute line in the user's file, 1-based.
    col_offset: int  # Column in that line, 0-based (UTF-8 bytes, like ast), as in the file.
    function_name: str  # Innermost def (or "<lambda>") containing the node.
    source_line: str  # The stripped text of that line.

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno}"


@dataclasses.dataclass(frozen=True)
class SourceInfo:
    """Facts about the source a function was parsed from."""

    filename: str
    first_lineno: int  # Absolute line of the ``def`` or ``lambda`` keyword.
    source: str  # The function's text, dedented; its line 1 is ``first_lineno``.


def parse_function(fn: Callable[..., Any]) -> tuple[FunctionNode, SourceInfo]:
    """Parse a Python function, method or lambda into a gast tree.

    Decorators are removed from the returned ``FunctionDef``: the converted
    function is re-decorated by whoever installs it, and decorators must not be
    applied twice.

    Raises:
      SourceUnavailableError: if ``fn`` is not a Python function or its source
        file cannot be read or no longer matches the running code.
      UnsupportedSyntaxError: for ``async def`` functions.
    """
    fn = getattr(fn, "__func__", fn)  # Bound methods, staticmethod, classmethod.
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    if not inspect.isfunction(fn):
        if inspect.isbuiltin(fn) or inspect.ismethoddescriptor(fn):
            reason = "it is a built-in function implemented in C, not in Python"
        else:
            reason = f"it is a {type(fn).__name__} object, not a Python function"
        raise SourceUnavailableError(
            f"Cannot read the source code of {name} ({reason}). Only functions written in"
            f" Python can be converted; call {name} unconverted (it runs as plain Python),"
            " or wrap the call in a Python function.")

    code = fn.__code__
    filename = code.co_filename
    linecache.checkcache(filename)  # Like inspect: pick up a file rewritten at the same path.
    lines = linecache.getlines(filename, fn.__globals__)
    if not lines:
        raise SourceUnavailableError(
            _no_source_message(name, f"no source text is available for file {filename!r}"))
    text = "".join(lines)
    if code.co_name == "<lambda>":
        node = copy.deepcopy(_find_lambda(_parse_file(filename, text), code, name, filename))
    else:
        found = _find_def_alone(code, lines) or _find_def(_parse_file(filename, text, ast), code,
                                                          name, filename)
        # a new tree, with the absolute positions of `found`, annotated as it is made
        node = _ToGastWithOrigins(filename, lines, fn.__name__).visit(found)
    if isinstance(node, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError(
            f"Cannot convert {name} at {filename}:{node.lineno}: async functions are not"
            " supported. Call it as plain Python, or make it a regular def.")
    if isinstance(node, gast.FunctionDef):
        node.decorator_list = []
        source = _dedent(lines[node.lineno - 1:node.end_lineno], node.col_offset)
    else:
        source = _lambda_text(lines, node)
        _annotate_origins(node, filename, lines, fn.__name__)
    return node, SourceInfo(filename=filename, first_lineno=node.lineno, source=source)


def parse_source(source: str, filename: str = "<string>", first_lineno: int = 1) -> gast.Module:
    """Parse Python source text whose first line is line ``first_lineno`` of ``filename``.

    The text may be uniformly indented (e.g. a method cut out of a class); it
    is parsed without dedenting, so column offsets and string literals stay as
    written. Node line numbers are shifted to be absolute in ``filename``.

    Raises:
      SyntaxError: located at the absolute line in ``filename``.
    """
    text_lines = source.splitlines(keepends=True)
    first_code = next((ln for ln in text_lines if ln.strip() and not ln.lstrip().startswith("#")),
                      "")
    indented = first_code[:1] in (" ", "\t")
    try:
        if indented:
            tree = gast.parse("if True:\n" + source).body[0]
            module = gast.Module(body=tree.body, type_ignores=[])
            shift = first_lineno - 2
        else:
            module = gast.parse(source)
            shift = first_lineno - 1
    except SyntaxError as e:
        # Report the error against the user's file and line, not the snippet's.
        line = (e.lineno or 1) - (1 if indented else 0) + first_lineno - 1
        raise SyntaxError(e.msg, (filename, line, e.offset, e.text)) from None
    for node in syntax_tree.walk(module):
        if getattr(node, "lineno", None) is not None:
            node.lineno += shift
            node.end_lineno += shift
    padding = [""] * (first_lineno - 1)
    _annotate_origins(module, filename, padding + text_lines, "<module>")
    return module


def _no_source_message(name: str, reason: str) -> str:
    return f"Cannot read the source code of {name} ({reason}). {_NO_SOURCE_HINT}"


@functools.lru_cache(maxsize=32)
def _parse_file(filename: str, text: str, parser=gast):
    """The whole file parsed by ``parser``: ``ast`` (C-fast) to find a def, whose own lines
    are then converted to gast (slow per node); ``gast`` to find lambdas inside expressions."""
    try:
        return parser.parse(text)
    except SyntaxError as e:
        raise SourceUnavailableError(
            f"Cannot parse {filename}:{e.lineno} ({e.msg}); the file probably changed since"
            " it was imported. Reload the module and try again.") from None


def _stale_message(name: str, filename: str, line: int) -> str:
    return (f"Cannot find the source code of {name} at {filename}:{line}: the file does not"
            " match the running code (it may have been edited since it was imported, or the"
            " function was compiled from a string under that file name). Reload the module,"
            " or mark the function with @transpiler.do_not_convert.")


def _find_def(module: ast.Module, code, name: str, filename: str) -> ast.AST:
    """The def whose first line (first decorator, if any) is ``co_firstlineno``."""
    target, found = code.co_firstlineno, []
    for node in _statements_spanning(module, target):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name == code.co_name:
            first = min([d.lineno for d in node.decorator_list] + [node.lineno])
            if first == target:
                found.append(node)
    if len(found) != 1:
        raise SourceUnavailableError(_stale_message(name, filename, code.co_firstlineno))
    return found[0]


# How many lines past the last one its code points at a def may still run (``pass``, ``...``,
# the closing lines of a literal): beyond that, the whole file is parsed instead.
_MAX_TRAILING_LINES = 50


def _find_def_alone(code, lines: list[str]) -> Optional[ast.AST]:
    """The def that compiled to ``code``, found by parsing only its own lines (a whole file
    costs milliseconds per thousand lines); None when that cannot tell, and the caller then
    parses the whole file. The node's ``lineno``/``end_lineno`` are absolute.

    The def starts at ``co_firstlineno`` (its first decorator) and ends at or after the last
    line its code objects point at. From there lines are added one at a time until the text
    parses and the next line of code is not indented deeper than the def (a deeper one would
    still be in its body). The result must be exactly one def of that name starting there."""
    first, last = code.co_firstlineno, last_code_line(code)
    if first < 1 or last is None or last > len(lines):
        return None
    column = _indentation(lines[first - 1])
    block = "if True:\n" if column else ""  # an indented def parses inside a block
    # Blank lines before it give the def its absolute positions (no ast.increment_lineno).
    prefix = "\n" * (first - 1 - block.count("\n")) + block
    shift = first - 1 - prefix.count("\n")  # 0, unless line 1 of a file is indented
    for end in range(max(first, last), min(len(lines), last + _MAX_TRAILING_LINES) + 1):
        try:
            module = ast.parse(prefix + "".join(lines[first - 1:end]))
        except (SyntaxError, ValueError):
            continue  # the def goes on: an open bracket or string, a block just begun
        following = next((line for line in lines[end:]
                          if line.strip() and not line.lstrip().startswith("#")), None)
        if following is not None and _indentation(following) > column:
            continue
        body = module.body[0].body if block else module.body
        if len(body) != 1 or len(module.body) != 1:
            return None
        node = body[0]
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                or node.name != code.co_name \
                or min([d.lineno for d in node.decorator_list] + [node.lineno]) + shift != first:
            return None
        if shift:
            ast.increment_lineno(node, shift)
        return node
    return None


def last_code_line(code) -> Optional[int]:
    """The last line that ``code`` or a code object nested in it has an instruction on (the
    def ends there or after)."""
    if hasattr(code, "co_positions"):
        lines = [end for _, end, _, _ in code.co_positions() if end is not None]
    else:
        lines = [line for _, _, line in code.co_lines() if line is not None]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            nested = last_code_line(const)
            if nested is not None:
                lines.append(nested)
    return max(lines, default=None)


def _indentation(line: str) -> int:
    expanded = line.expandtabs(8)
    return len(expanded) - len(expanded.lstrip())


def _statements_spanning(root: ast.AST, line: int):
    """Statements whose lines (decorators included) contain ``line``, outermost first: only
    the path down to the def is visited, not the whole file."""
    for child in syntax_tree.child_nodes(root):
        if isinstance(child, ast.stmt):
            first = min([d.lineno for d in getattr(child, "decorator_list", ())] + [child.lineno])
            if first <= line <= child.end_lineno:
                yield child
                yield from _statements_spanning(child, line)
        elif isinstance(child, (ast.excepthandler, ast.match_case)):
            yield from _statements_spanning(child, line)


def _find_lambda(module: gast.Module, code, name: str, filename: str) -> gast.Lambda:
    """The lambda that compiled to ``code``: same line, same parameters, same span."""
    line = code.co_firstlineno
    candidates = [n for n in syntax_tree.walk(module)
                  if isinstance(n, gast.Lambda) and n.lineno == line]
    params = _code_params(code)
    candidates = [n for n in candidates if _lambda_params(n) == params]
    if len(candidates) > 1 and hasattr(code, "co_positions"):
        spans = [p for p in code.co_positions()
                 if None not in p and (p[0], p[2]) != (p[1], p[3])]
        candidates = [n for n in candidates if _owns_positions(n, spans)]
    if not candidates:
        raise SourceUnavailableError(_stale_message(name, filename, line))
    if len(candidates) > 1:
        raise SourceUnavailableError(
            f"Cannot tell apart the lambdas with parameters ({', '.join(params)}) at"
            f" {filename}:{line}. Define the lambda on its own line, or give it parameter"
            " names that differ from the other lambdas on that line.")
    return candidates[0]


def _code_params(code) -> tuple[str, ...]:
    count = code.co_argcount + code.co_kwonlyargcount
    count += bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return tuple(code.co_varnames[:count])


def _lambda_params(node: gast.Lambda) -> tuple[str, ...]:
    args = node.args
    # Same order as co_varnames: positional, keyword-only, *args, **kwargs.
    names = [a.id for a in args.posonlyargs + args.args + args.kwonlyargs]
    names += [a.id for a in (args.vararg, args.kwarg) if a is not None]
    return tuple(names)


def _span(node: gast.AST) -> tuple[tuple[int, int], tuple[int, int]]:
    return (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)


def _within(pos: tuple, span: tuple) -> bool:
    start, end = span
    return start <= (pos[0], pos[2]) and (pos[1], pos[3]) <= end


def _owns_positions(node: gast.Lambda, positions: list[tuple]) -> bool:
    """True if the instructions lie in the lambda's body but not in a nested lambda's body.

    (A lambda returning a lambda compiles its body to instructions spanning
    the inner lambda, so the outer one is told apart by its body.)
    """
    body = _span(node.body)
    inner = [_span(n.body) for n in syntax_tree.walk(node.body) if isinstance(n, gast.Lambda)]
    return all(_within(p, body) and not any(_within(p, s) for s in inner) for p in positions)


def _dedent(lines: list[str], indent: int) -> str:
    """Remove ``indent`` leading characters from lines that start with that much whitespace."""
    out = []
    for ln in lines:
        out.append(ln[indent:] if ln[:indent].isspace() else ln)
    return "".join(out)


def _lambda_text(lines: list[str], node: gast.Lambda) -> str:
    # AST columns count UTF-8 bytes, not characters.
    text = "".join(lines[node.lineno - 1:node.end_lineno]).encode("utf-8")
    last_line_start = len("".join(lines[node.lineno - 1:node.end_lineno - 1]).encode("utf-8"))
    return text[node.col_offset:last_line_start + node.end_col_offset].decode("utf-8")


class _Origins:
    """Origins of nodes: nodes without a position inherit their parent's. Nodes that start at
    the same place share one (a statement and its call, ``a.b`` and ``a``)."""

    def __init__(self, filename: str, lines: list[str]):
        self.filename, self.lines = filename, lines
        self.made: dict[tuple, Origin] = {}

    def of(self, node: ast.AST, fn_name: str, inherited: Optional[Origin]) -> Optional[Origin]:
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return inherited
        key = lineno, node.col_offset, fn_name
        origin = self.made.get(key)
        if origin is None:
            lines = self.lines
            text = lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
            origin = self.made[key] = Origin(self.filename, lineno, node.col_offset, fn_name,
                                             text)
        return origin


def _inner_name(node: ast.AST, fn_name: str) -> str:
    """The name of the function the children of ``node`` are in."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, gast.FunctionDef,
                         gast.AsyncFunctionDef)):
        return node.name
    if isinstance(node, (ast.Lambda, gast.Lambda)):
        return "<lambda>"
    return fn_name


def _annotate_origins(root: gast.AST, filename: str, lines: list[str], outer_name: str) -> None:
    """Give every node of ``root`` an Origin (see ``_Origins``)."""
    origins = _Origins(filename, lines)

    def visit(node: gast.AST, fn_name: str, origin: Optional[Origin]) -> None:
        origin = origins.of(node, fn_name, origin)
        if origin is not None:
            anno.set(node, Anno.ORIGIN, origin)
        fn_name = _inner_name(node, fn_name)
        for child in syntax_tree.child_nodes(node):
            visit(child, fn_name, origin)

    visit(root, outer_name, None)


class _ToGastWithOrigins(syntax_tree.ToGast):
    """``syntax_tree.to_gast`` that gives the nodes it makes their Origin as it makes them, as
    ``_annotate_origins`` would after it (the walk that saves was a tenth of a conversion).
    The few nodes gast makes up (the ``Param`` context of an argument) have none; what reads
    origins takes the parent's there."""

    def __init__(self, filename: str, lines: list[str], outer_name: str):
        self.origins = _Origins(filename, lines)
        self._fn_name, self._origin = outer_name, None

    def visit(self, node):
        outer = self._fn_name, self._origin
        origin = self._origin = self.origins.of(node, self._fn_name, self._origin)
        self._fn_name = _inner_name(node, self._fn_name)
        translated = super().visit(node)
        if translated is not None and origin is not None:
            anno.set(translated, Anno.ORIGIN, origin)
        self._fn_name, self._origin = outer
        return translated
