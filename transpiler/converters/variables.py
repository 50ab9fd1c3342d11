"""Loads of variables that may be undefined go through ``ag__.ld``, which raises like Python.

Runs last, on the whole converted tree: reaching definitions marked each read of a local that
might be unbound there (``DEFINED_AT_READ = False``); only those reads are wrapped. ``del x``
becomes ``x = ag__.Undefined('x', deleted=True)`` so generated closures sharing ``x`` stay
valid (and messages can say that the variable was deleted).
"""

from __future__ import annotations

import gast

from transpiler import syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.converters.base import constant, name
from transpiler.converters.unsupported import is_generator


class _Loads(syntax_tree.NodeTransformer):
    def visit_FunctionDef(self, node):
        # A nested generator function is not converted: its code stays as the user wrote it.
        return node if is_generator(node) else self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and anno.get(node, Anno.DEFINED_AT_READ, True) is False:
            anno.delete(node, Anno.DEFINED_AT_READ)
            return gast.Call(gast.Attribute(name("ag__"), "ld", gast.Load()), [node], [])
        return node

    def visit_Delete(self, node):
        if all(isinstance(t, gast.Name) for t in node.targets):
            return [gast.Assign([name(t.id, store=True)], gast.Call(
                gast.Attribute(name("ag__"), "Undefined", gast.Load()), [constant(t.id)],
                [gast.keyword("deleted", constant(True))]), None)
                for t in node.targets]
        return self.generic_visit(node)


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    if not anno.get(fn_node, Anno.ANALYSED, True):
        return  # no read marked, no `del`; nested functions were done when they were converted
    fn_node.body = [s for statement in fn_node.body
                    for s in _as_list(_Loads().visit(statement))]


def _as_list(result) -> list:
    if result is None:
        return []
    return result if isinstance(result, list) else [result]
