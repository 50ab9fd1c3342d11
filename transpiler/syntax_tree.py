"""Walking, visiting and translating syntax trees (``ast`` and ``gast`` alike), about twice as
fast as ``ast.walk``, ``ast.iter_child_nodes``, ``ast.NodeVisitor`` and ``gast.gast_to_ast``:
the converters walk a function's tree many times, and those walks were a third of the time a
first call spends converting."""

from __future__ import annotations

import ast
from collections import deque
from typing import Iterator

import gast
from gast import ast3  # gast's own translators, which know what differs per Python version


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """The direct children of ``node``, in ``ast.iter_child_nodes``' order."""
    children = []
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            children.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    children.append(item)
    return children


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``node`` and every node below it, in ``ast.walk``'s (breadth-first) order."""
    todo = deque([node])
    while todo:
        node = todo.popleft()
        todo.extend(child_nodes(node))
        yield node


class NodeVisitor(ast.NodeVisitor):
    """``ast.NodeVisitor`` with the same results, faster: the ``visit_<Class>`` method is looked
    up once per node class, not per node, and fields are read without ``ast.iter_fields``
    (converters and analyses visit every node of a function several times)."""

    _methods: dict  # per subclass: node class -> its visit_<Class> function, or None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._methods = {}

    def visit(self, node: ast.AST):
        kind = node.__class__
        try:
            method = self._methods[kind]
        except KeyError:
            method = self._methods[kind] = getattr(type(self), "visit_" + kind.__name__, None)
        return self.generic_visit(node) if method is None else method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for child in child_nodes(node):
            self.visit(child)


class NodeTransformer(NodeVisitor):
    """``ast.NodeTransformer`` with the same results, on ``NodeVisitor``'s faster dispatch."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                new = self.visit(value)
                if new is None:
                    delattr(node, name)
                elif new is not value:
                    setattr(node, name, new)
            elif isinstance(value, list):
                items, changed = [], False
                for item in value:
                    new = self.visit(item) if isinstance(item, ast.AST) else item
                    if new is not item:
                        changed = True
                        if new is None:
                            continue
                        if not isinstance(new, ast.AST):
                            items.extend(new)
                            continue
                    items.append(new)
                if changed:
                    value[:] = items
        return node


_MISSING = object()


class _Translator(NodeVisitor):
    """gast's translator between ``ast`` and ``gast`` trees (its ``visit_<Class>`` methods handle
    the nodes that differ) with ``NodeVisitor``'s dispatch, and a generic translation that looks
    up each node class's counterpart once and reads each field once."""

    _module = None  # whose node classes the translation makes: ast or gast

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._classes = {}  # node class -> its counterpart in _module, or None

    def _visit(self, value):
        if isinstance(value, ast.AST):
            return self.visit(value)
        if isinstance(value, list):
            return [self._visit(item) for item in value]
        return value

    def generic_visit(self, node):
        kind = node.__class__
        try:
            counterpart = self._classes[kind]
        except KeyError:
            counterpart = self._classes[kind] = getattr(self._module, kind.__name__, None)
        if counterpart is None:
            return None  # not a node of the language (gast does the same)
        fields = {}
        for name in node._fields:  # self._visit, inlined: most fields are names or constants
            value = getattr(node, name, _MISSING)
            if isinstance(value, ast.AST):
                value = self.visit(value)
            elif isinstance(value, list):
                value = [self._visit(item) for item in value]
            elif value is _MISSING:
                continue
            fields[name] = value
        translated = counterpart(**fields)
        for name in node._attributes:
            value = getattr(node, name, _MISSING)
            if value is not _MISSING:
                setattr(translated, name, value)
        return translated


class ToGast(_Translator, ast3.Ast3ToGAst):
    _module = gast


class ToAst(_Translator, ast3.GAstToAst3):
    _module = ast


def to_gast(node: ast.AST) -> gast.AST:
    """``gast.ast_to_gast(node)``, faster."""
    return ToGast().visit(node)


def to_ast(node: gast.AST) -> ast.AST:
    """``gast.gast_to_ast(node)``, faster."""
    return ToAst().visit(node)
