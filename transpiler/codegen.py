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
import re
import textwrap
from dataclasses import dataclass
from types import CodeType

import gast

from runtime.source_location import Location, register_line_map
from transpiler import generated_sources, syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.converters.base import COMMENT_MARKER

_COMMENT_LINE = re.compile(r"^(\s*)" + re.escape(COMMENT_MARKER) + r"\((.*)\)$")


@dataclass(frozen=True)
class GeneratedModule:
    filename: str
    module_source: str
    function_source: str
    factory: object
    line_map: dict


def _propagate_origins(root: gast.AST) -> dict[int, object]:
    """Every node gets an origin (its parent's if it has none) and the user's line number as
    its ``lineno``, so lines survive unparsing; returns user line -> origin."""
    origins: dict[int, object] = {}

    def visit(node, inherited):
        origin = anno.get(node, Anno.ORIGIN, None) or inherited
        # Nodes built by converters have no position attributes yet: test the class, not the
        # instance, or they would inherit the enclosing function's line when unparsed.
        if origin is not None and "lineno" in node._attributes:
            node.lineno, node.col_offset = origin.lineno, 0
            node.end_lineno, node.end_col_offset = origin.lineno, 0
            origins[origin.lineno] = origin
        for child in syntax_tree.child_nodes(node):
            visit(child, origin)
    visit(root, None)
    return origins


def _unparse(tree: ast.AST) -> str:
    ast.fix_missing_locations(tree)
    return ast.unparse(tree)


def _line_map(tree: ast.AST, text: str, origins: dict) -> dict[int, object]:
    """Generated line -> user origin, by walking the tree and its re-parse side by side."""
    reparsed = ast.parse(text)
    mapping = {}
    for original, generated in zip(syntax_tree.walk(tree), syntax_tree.walk(reparsed)):
        if type(original) is not type(generated):
            break
        if isinstance(original, ast.stmt) and original.lineno in origins:
            mapping.setdefault(generated.lineno, origins[original.lineno])
    return mapping


def _with_comments(text: str) -> str:
    """Marker statements become comments; blank lines only separate converted statements.

    Line count is preserved (removed blank lines become part of the neighbouring layout only
    where a comment follows), so the line map computed on ``text`` stays valid."""
    lines = []
    for line in text.splitlines():
        match = _COMMENT_LINE.match(line)
        if match:
            line = f"{match.group(1)}# {ast.literal_eval(match.group(2))}"
        lines.append(line)
    return "\n".join(lines) + "\n"


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
    origins = _propagate_origins(fn_node)
    factory_name = f"create_{fn_node.name}"
    params = ["ag__"] + free_vars
    factory = gast.FunctionDef(
        factory_name,
        gast.arguments([gast.Name(p, gast.Param(), None, None) for p in params], [], None, [], [],
                       None, []),
        [fn_node, gast.Return(gast.Name(fn_node.name, gast.Load(), None, None))], [], None, None)
    module = gast.Module([factory], [])
    tree = gast.gast_to_ast(module)
    text = _unparse(tree)
    line_map = _line_map(tree, text, origins)
    source = _with_comments(text)
    filename = generated_sources.register(source, fn_node.name)
    namespace: dict = {}
    exec(compile(_without_defaults(module, fn_node, source), filename, "exec"), namespace)
    register_line_map(filename, {
        line: Location(origin.filename, origin.lineno, origin.function_name)
        for line, origin in line_map.items()})
    factory = namespace[factory_name]
    # Every converted function made by the factory shares this code object: the source is
    # kept while one of them (or the factory) is alive.
    generated_sources.release_with(_inner_code(factory.__code__, fn_node.name), filename)
    return GeneratedModule(filename, source, _function_text(source), factory, line_map)


def _without_defaults(module: gast.Module, fn_node: gast.FunctionDef, source: str) -> str:
    """``source`` as it is compiled: the converted function's default values written as
    ``None``. Its defaults are the original function's own objects (see ``api``); evaluating
    their expressions again in the factory would fail for a name local to the code that
    defined the function (``lambda x, big=big: ...``) and would make new objects."""
    arguments = fn_node.args
    if not arguments.defaults and not any(arguments.kw_defaults):
        return source
    saved = arguments.defaults, arguments.kw_defaults
    arguments.defaults = [gast.Constant(None, None) for _ in saved[0]]
    arguments.kw_defaults = [None if d is None else gast.Constant(None, None) for d in saved[1]]
    try:
        compiled = _with_comments(_unparse(gast.gast_to_ast(module)))
    finally:
        arguments.defaults, arguments.kw_defaults = saved
    assert compiled.count("\n") == source.count("\n"), "defaults changed the line numbers"
    return compiled


def _inner_code(factory_code: CodeType, name: str) -> CodeType:
    return next(const for const in factory_code.co_consts
                if isinstance(const, CodeType) and const.co_name == name)


def _function_text(module_source: str) -> str:
    """The converted function alone (the factory around it is an implementation detail)."""
    lines = module_source.splitlines()[1:-1]  # drop `def create_...:` and the final return
    return _compact(textwrap.dedent("\n".join(lines)))
