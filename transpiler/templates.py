"""Code templates: generated code written as Python text with explicit placeholders.

A placeholder is an identifier starting with ``__tpl_`` (so it can never collide with a user's
name), replaced by an expression node, a list of statements (spliced where the placeholder is
a statement of its own), or a string (an identifier). An unfilled placeholder or an unused
replacement is an error, so templates cannot silently go stale.
"""

from __future__ import annotations

import copy
import functools
import textwrap

import gast

from transpiler import syntax_tree

PREFIX = "__tpl_"


class _Replacer(syntax_tree.NodeTransformer):
    def __init__(self, replacements: dict):
        self.replacements = replacements
        self.used: set[str] = set()

    def _take(self, name: str):
        self.used.add(name)
        return self.replacements[name]

    def _key(self, identifier: str) -> str | None:
        if identifier.startswith(PREFIX):
            key = identifier[len(PREFIX):]
            if key not in self.replacements:
                raise KeyError(f"template placeholder {identifier!r} has no replacement")
            return key
        return None

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Name):
            key = self._key(node.value.id)
            if key is not None and isinstance(self.replacements[key], list):
                return list(self._take(key))
        return self.generic_visit(node)

    def visit_Name(self, node):
        key = self._key(node.id)
        if key is None:
            return node
        value = self._take(key)
        if isinstance(value, str):
            return gast.Name(value, node.ctx, None, None)
        return _with_context(value, node.ctx)

    def visit_FunctionDef(self, node):
        key = self._key(node.name)
        if key is not None:
            node.name = self._take(key)
        return self.generic_visit(node)

    def visit_arg(self, node):
        return node

    def visit_Nonlocal(self, node):
        node.names = self._expand_names(node.names)
        return None if not node.names else node

    def visit_Global(self, node):
        node.names = self._expand_names(node.names)
        return None if not node.names else node

    def _expand_names(self, names: list[str]) -> list[str]:
        result = []
        for name in names:
            key = self._key(name)
            if key is None:
                result.append(name)
            else:
                result.extend(self._take(key))
        return result


def _with_context(node, ctx):
    """A replacement placed in store/load position gets that context (recursively)."""
    if isinstance(node, (gast.Name, gast.Attribute, gast.Subscript, gast.Starred)):
        node.ctx = type(ctx)()
    if isinstance(node, (gast.Tuple, gast.List)):
        node.ctx = type(ctx)()
        for element in node.elts:
            _with_context(element, ctx)
    return node


@functools.lru_cache(maxsize=None)
def _parsed(template: str) -> gast.Module:
    """Each template is parsed once (parsing dominates a small function's conversion)."""
    return gast.parse(textwrap.dedent(template))


def replace(template: str, **replacements) -> list[gast.stmt]:
    """The statements of ``template`` with its ``__tpl_<key>`` placeholders replaced."""
    module = copy.deepcopy(_parsed(template))
    replacer = _Replacer(replacements)
    module = replacer.visit(module)
    unused = set(replacements) - replacer.used
    if unused:
        raise KeyError(f"template replacements {sorted(unused)} are not used by the template")
    return module.body


def replace_as_expression(template: str, **replacements) -> gast.expr:
    statements = replace(template, **replacements)
    if len(statements) != 1 or not isinstance(statements[0], gast.Expr):
        raise ValueError("replace_as_expression needs a template that is one expression")
    return statements[0].value
