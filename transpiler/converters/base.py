"""What every converter shares: the conversion context, scope-aware traversal, small helpers."""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Iterable

import gast

from transpiler import syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.conversion_cache import describe, global_value
from transpiler.naming import Namer


@dataclass
class Context:
    """Facts about the function being converted that converters consult."""

    namer: Namer
    globals: dict
    free_vars: frozenset[str]
    # Names bound anywhere in the function; a local shadows a builtin of the same name.
    local_names: frozenset[str] = field(default_factory=frozenset)
    # Locals of the converted functions this one is nested in: their objects live no longer
    # than the call being converted, unlike globals and the variables of other enclosing code.
    enclosing_locals: frozenset[str] = field(default_factory=frozenset)
    # What the names looked up while converting meant, (name,) or (module, attribute) ->
    # ``conversion_cache.describe`` of the value: a kept conversion is valid while they hold.
    # Shared by the contexts of nested functions.
    resolved: dict = field(default_factory=dict)

    def global_value(self, name: str) -> object | None:
        """What ``name`` means in the function's globals, else among the built-ins (None: it
        is neither, yet)."""
        value = global_value(self.globals, name)
        self.resolved[(name,)] = describe(value)
        return value

    def module_attribute(self, module: types.ModuleType, attribute: str) -> object | None:
        """``module.attribute``, or None if the module has no such attribute."""
        value = getattr(module, attribute, None)
        self.resolved[(module.__name__, attribute)] = describe(value)
        return value


class ScopeTransformer(syntax_tree.NodeTransformer):
    """Visits one function scope: nested defs and classes are converted on their own."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def visit_FunctionDef(self, node):
        return node

    def visit_AsyncFunctionDef(self, node):
        return node

    def visit_ClassDef(self, node):
        return node

    def visit_block(self, statements: list) -> list:
        result = []
        for statement in statements:
            replaced = self.visit(statement)
            if replaced is None:
                continue
            result.extend(replaced if isinstance(replaced, list) else [replaced])
        return result


class StatementTransformer(ScopeTransformer):
    """A ``ScopeTransformer`` that visits statements only, for converters of statements: it
    does not descend into expressions, which hold none."""

    def generic_visit(self, node):
        for name in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                block[:] = self.visit_block(block)
        return node


_SCOPES = (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)
_BLOCKS = frozenset({"body", "handlers", "orelse", "finalbody", "cases"})


def _block_items(node: gast.AST) -> list:
    """The statements in ``node``'s blocks (and its except clauses and match cases)."""
    items = []
    for name in node._fields:
        if name in _BLOCKS:
            items += getattr(node, name)
    return items


def own_scope_walk(statements: Iterable[gast.AST], stop_at_loops: bool = False,
                   blocks_only: bool = False):
    """Nodes of these statements in the current scope (not inside nested defs, lambdas,
    classes and, if asked, nested loops). With ``blocks_only``, the same statements in the
    same order, but no expressions (nor except clauses and match cases' patterns): for the
    converters that look for statements."""
    children_of = _block_items if blocks_only else syntax_tree.child_nodes
    stack = list(statements)
    stack.reverse()
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue  # a scope of its own: yielded, not entered
        children = children_of(node)
        if stop_at_loops:
            children = [c for c in children if not isinstance(c, (gast.While, gast.For))]
        children.reverse()
        stack += children


def contains(statements: Iterable[gast.AST], kind: type, stop_at_loops: bool = False) -> bool:
    """Whether a statement of class ``kind`` is among them, in the current scope."""
    return any(isinstance(node, kind)
               for node in own_scope_walk(statements, stop_at_loops, blocks_only=True))


def stamp_origin(nodes: list, source: gast.AST, stamped: set | None = None) -> list:
    """Generated statements map back to the user's statement they replace. Nodes in
    ``stamped`` were stamped by an earlier call, their subtrees too: those are not walked
    again (``nodes`` join them), so stamping nested blocks inside out stays linear."""
    if anno.has(source, Anno.ORIGIN):
        origin = anno.get(source, Anno.ORIGIN)
        todo = list(nodes)
        while todo:
            node = todo.pop()
            if stamped is not None and node in stamped:
                continue
            if not anno.has(node, Anno.ORIGIN):
                anno.set(node, Anno.ORIGIN, origin)
            todo.extend(syntax_tree.child_nodes(node))
        if stamped is not None:
            stamped.update(nodes)
    return nodes


COMMENT_MARKER = "__e2g_comment__"


def comment_for(node: gast.AST) -> list:
    """A marker statement (``__e2g_comment__('<line>')``) that codegen turns into a comment."""
    if not anno.has(node, Anno.ORIGIN):
        return []
    line = anno.get(node, Anno.ORIGIN).source_line
    return [gast.Expr(gast.Call(name(COMMENT_MARKER), [gast.Constant(line, None)], []))]


def name(identifier: str, store: bool = False) -> gast.Name:
    return gast.Name(identifier, gast.Store() if store else gast.Load(), None, None)


def not_(expression: gast.expr) -> gast.expr:
    return gast.UnaryOp(gast.Not(), expression)


def binds(*nodes: gast.AST) -> bool:
    """Whether an assignment expression (``:=``) is among ``nodes``: it binds in the
    function, so converters may not move it into a function of its own."""
    return any(isinstance(part, gast.NamedExpr) for node in nodes
               for part in syntax_tree.walk(node))


def assign(target: str, value: gast.expr) -> gast.Assign:
    return gast.Assign([name(target, store=True)], value, None)


def constant(value) -> gast.Constant:
    return gast.Constant(value, None)


# Marks the lambdas conversion makes for lazy operands (``ag__.and_(lambda: a, lambda: b)``):
# called at once, unlike the user's own lambdas, which may outlive the statement.
THUNK = "_e2g_thunk"

EXTRA_TEST = "_e2g_extra_test"


def extra_test(loop: gast.For):
    """The condition a ``for`` loop checks before each further iteration (break, return)."""
    return getattr(loop, EXTRA_TEST, None)


def add_extra_test(loop: gast.For, condition: gast.expr) -> None:
    existing = extra_test(loop)
    combined = condition if existing is None else gast.BoolOp(gast.And(), [condition, existing])
    setattr(loop, EXTRA_TEST, combined)
