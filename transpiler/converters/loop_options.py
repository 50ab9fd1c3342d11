"""Moves ``set_loop_options(...)`` from the top of a loop body into the loop's call.

    while i < n:                                      ag__.while_stmt(...,
        set_loop_options(shape_invariants=[      ->       opts=ag__.loop_options(
            (v, [None])])                                     shape_invariants=[(v, [None])]))
        v = rt.concat([v, v], 0)

The options are evaluated once, where the loop starts (so ``v`` names the value the loop
variable enters with). Anywhere else the call would do nothing, so it is an error.
"""

from __future__ import annotations

import gast

from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.converters.base import own_scope_walk
from transpiler.errors import UnsupportedSyntaxError

LOOP_OPTIONS = "_e2g_loop_options"
_NAME = "set_loop_options"


def loop_options(loop: gast.AST) -> gast.expr | None:
    """The ``ag__.loop_options(...)`` call for ``loop``, if its body set options."""
    return getattr(loop, LOOP_OPTIONS, None)


def _is_set_loop_options(statement: gast.AST, ctx) -> bool:
    if not (isinstance(statement, gast.Expr) and isinstance(statement.value, gast.Call)):
        return False
    func = statement.value.func
    if isinstance(func, gast.Name):
        resolved = ctx.global_value(func.id)
        return func.id == _NAME if resolved is None else _is_ours(resolved)
    return isinstance(func, gast.Attribute) and func.attr == _NAME


def _is_ours(value) -> bool:
    return getattr(value, "__module__", "").startswith("transpiler") \
        and getattr(value, "__name__", "") == _NAME


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    for node in own_scope_walk(fn_node.body, blocks_only=True):
        if isinstance(node, (gast.While, gast.For)) and node.body \
                and _is_set_loop_options(node.body[0], ctx):
            call = node.body.pop(0).value
            call.func = gast.Attribute(gast.Name("ag__", gast.Load(), None, None), "loop_options",
                                       gast.Load())
            setattr(node, LOOP_OPTIONS, call)
            if not node.body:
                node.body = [gast.Pass()]
        # The walk enters a loop after the lines above moved its options away: any call left
        # is not the first statement of a loop.
        elif isinstance(node, gast.stmt) and _is_set_loop_options(node, ctx):
            origin = anno.get(node, Anno.ORIGIN, None)
            where = f" at {origin.filename}:{origin.lineno}" if origin else ""
            raise UnsupportedSyntaxError(
                f"set_loop_options(...){where} is not the first statement of a loop body, where "
                f"it would have no effect. Move it to the top of the body of the loop it is "
                f"meant for.")
