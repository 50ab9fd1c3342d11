"""Turns a converted tree into a real Python module, with a map back to the user's lines.

The module holds a factory ``def create_<name>(ag__, <free variables>)`` that defines the
converted function; the loader rebuilds that function over the user's own globals and closure
cells, so it sees the same module state as the original. The source stays in memory
(``generated_sources``: never a file on disk) and in ``linecache`` so tracebacks, ``inspect``
and ``pdb`` work; marker statements become the ``# <original line>`` comments that make the
output readable.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from dataclasses import dataclass
from types import CodeType
from typing import Iterable, Optional

import gast

from runtime import code_cache
from runtime.source_location import Location, register_line_map
from transpiler import generated_sources, syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.converters.base import COMMENT_MARKER


@dataclass(frozen=True)
class GeneratedModule:
    filename: str
    module_source: str
    factory: object
    line_map: dict  # generated line -> the user's ``parsing.Origin``
    code: CodeType  # the module's, compiled: it defines the factory

    @functools.cached_property
    def function_source(self) -> str:
        """The converted function alone (the factory around it is an implementation detail);
        made when ``to_code`` asks, not for every conversion."""
        lines = self.module_source.splitlines()[1:-1]  # drop `def create_...:` and the return
        return _compact(textwrap.dedent("\n".join(lines)))


class _ToAstWithPositions(syntax_tree.ToAst):
    """``syntax_tree.to_ast`` that, in the same walk, gives every statement and expression an
    origin (its parent's if it has none) and the user's line number as its position, so lines
    survive unparsing; nodes with no origin at all (the factory around the function) get their
    parent's position, as ``ast.fix_missing_locations`` would give them. ``origins``: user line
    -> origin, for the line map."""

    def __init__(self):
        self.origins: dict[int, object] = {}
        self._origin = None
        self._position = (1, 0, 1, 0)

    def visit(self, node):
        outer = self._origin, self._position
        origin = anno.get(node, Anno.ORIGIN, None) or self._origin
        # Test the class, not the instance: nodes built by converters have no positions yet.
        positioned = "lineno" in node._attributes
        if positioned and origin is not None:
            self._position = (origin.lineno, 0, origin.lineno, 0)
            self.origins[origin.lineno] = origin
        self._origin = origin
        translated = super().visit(node)
        if positioned and translated is not None:
            (translated.lineno, translated.col_offset, translated.end_lineno,
             translated.end_col_offset) = self._position
        self._origin, self._position = outer
        return translated


try:  # Python 3.14 moved ast.unparse's class out of ast, which imports it when first used
    from _ast_unparse import Unparser as _AstUnparser
except ImportError:
    _AstUnparser = ast._Unparser


class _Unparser(_AstUnparser):
    """``ast.unparse`` that writes marker statements as comments and notes, as it writes them,
    the generated line of every statement (so the line map needs no re-parse of the text) and
    where the converted function's default values are (so the compiled text, with those defaults
    ``None``, needs no second unparse)."""

    def __init__(self, origins: Optional[dict] = None, defaults: Iterable = (), **options):
        super().__init__(**options)  # f-string parts: type(self)(_avoid_backslashes=True)
        self.origins = origins or {}
        self.line_map: dict[int, object] = {}
        self.defaults = set(defaults)
        self.default_spans: list[tuple[int, int]] = []  # index ranges in self._source
        self._statement = None  # traversed, its first line not written yet
        self._elifs: list[list[ast.If]] = []  # per `if` being written, its `elif`s to come
        self._newlines = 0  # in self._source[:self._counted]
        self._counted = 0

    def traverse(self, node):  # ast's own, plus the notes (statements come in lists)
        if isinstance(node, list):
            for item in node:
                if isinstance(item, ast.stmt):
                    self._statement = item
                self.traverse(item)
        elif node in self.defaults:
            start = len(self._source)
            ast.NodeVisitor.visit(self, node)
            self.default_spans.append((start, len(self._source)))
        else:
            ast.NodeVisitor.visit(self, node)

    def visit_If(self, node):
        # ast._Unparser writes an `if` alone in an `else` as `elif`, without traversing it.
        elifs, branch = [], node
        while len(branch.orelse) == 1 and isinstance(branch.orelse[0], ast.If):
            branch = branch.orelse[0]
            elifs.append(branch)
        self._elifs.append(elifs)
        super().visit_If(node)
        self._elifs.pop()

    def _write_docstring_and_traverse_body(self, node):
        if self.get_raw_docstring(node):  # written without traversing its statement
            self._statement = node.body[0]
        super()._write_docstring_and_traverse_body(node)

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) \
                and call.func.id == COMMENT_MARKER:
            self.fill("# " + call.args[0].value)  # a marker statement: its comment
        else:
            super().visit_Expr(node)

    def fill(self, text="", **kwargs):
        super().fill(text, **kwargs)
        if text == "elif ":
            statement = self._elifs[-1].pop(0)
        elif self._statement is not None and text != "@":  # a decorator's line is not the def's
            statement, self._statement = self._statement, None
        else:
            return
        if statement.lineno in self.origins:
            self.line_map.setdefault(self._line(), self.origins[statement.lineno])

    def _line(self) -> int:
        """The line being written."""
        source = self._source
        self._newlines += "".join(source[self._counted:]).count("\n")
        self._counted = len(source)
        return self._newlines + 1

    def without_defaults(self) -> str:
        """The text written, with each default value of the converted function as ``None``."""
        parts, start = [], 0
        for begin, end in self.default_spans:
            parts += self._source[start:begin] + ["None"]
            start = end
        return "".join(parts + self._source[start:])


def _compact(text: str) -> str:
    """For display: no blank lines except one before each ``# <original line>`` comment."""
    out = []
    for line in text.splitlines():
        if not line.strip():
            continue
        if line.lstrip().startswith("# ") and out and not out[-1].rstrip().endswith(":"):
            out.append("")
        out.append(line)
    return "\n".join(out) + "\n"


def generate(fn_node: gast.FunctionDef, free_vars: list[str], user_filename: str) -> GeneratedModule:
    factory_name = f"create_{fn_node.name}"
    params = ["ag__"] + free_vars
    factory = gast.FunctionDef(
        factory_name,
        gast.arguments([gast.Name(p, gast.Param(), None, None) for p in params], [], None, [], [],
                       None, []),
        [fn_node, gast.Return(gast.Name(fn_node.name, gast.Load(), None, None))], [], None, None)
    module = gast.Module([factory], [])
    translator = _ToAstWithPositions()
    tree = translator.visit(module)
    origins = translator.origins
    arguments = tree.body[0].body[0].args  # the converted function's, in the factory
    defaults = arguments.defaults + [d for d in arguments.kw_defaults if d is not None]
    unparser = _Unparser(origins, defaults)
    source = unparser.visit(tree) + "\n"
    filename = generated_sources.register(source, fn_node.name)
    code = compile(_without_defaults(unparser, source), filename, "exec")
    return load(fn_node.name, source, code, unparser.line_map, filename)


def load(name: str, source: str, code: CodeType, line_map: dict, filename: str | None = None
         ) -> GeneratedModule:
    """The module of a converted function named ``name`` from its text, the code compiled from
    it (by ``generate`` now, or by an earlier process: see ``transpiler.conversion_cache``) and
    its map from generated lines to the user's; ``filename``: the text's ``linecache`` name,
    if registered already."""
    if filename is None:
        filename = generated_sources.register(source, name)
    namespace: dict = {}
    exec(code_cache.renamed(code, filename), namespace)
    register_line_map(filename, {
        line: Location(origin.filename, origin.lineno, origin.function_name)
        for line, origin in line_map.items()})
    factory = namespace[f"create_{name}"]
    # Every converted function made by the factory shares this code object: the source is
    # kept while one of them (or the factory) is alive.
    generated_sources.release_with(_inner_code(factory.__code__, name), filename)
    return GeneratedModule(filename, source, factory, line_map, code)


def _without_defaults(unparser: _Unparser, source: str) -> str:
    """``source`` as it is compiled: the converted function's default values written as
    ``None``. Its defaults are the original function's own objects (see ``api``); evaluating
    their expressions again in the factory would fail for a name local to the code that
    defined the function (``lambda x, big=big: ...``) and would make new objects."""
    if not unparser.default_spans:
        return source
    compiled = unparser.without_defaults() + "\n"
    assert compiled.count("\n") == source.count("\n"), "defaults changed the line numbers"
    return compiled


def _inner_code(factory_code: CodeType, name: str) -> CodeType:
    return next(const for const in factory_code.co_consts
                if isinstance(const, CodeType) and const.co_name == name)

