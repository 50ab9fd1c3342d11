"""Rejects what conversion cannot keep exact, with the user's file and line."""

from __future__ import annotations

import gast

from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.converters.base import own_scope_walk
from transpiler.errors import UnsupportedSyntaxError

_REJECTED = {
    gast.Yield: ("a generator (yield; generators are not converted)", "return a list or "
                 "tensor instead, or mark the function with @transpiler.do_not_convert"),
    gast.YieldFrom: ("a generator (yield from; generators are not converted)", "return a list "
                     "or tensor instead, or mark the function with @transpiler.do_not_convert"),
    gast.Await: ("await", "convert only synchronous functions"),
}


def is_generator(fn_node: gast.FunctionDef) -> bool:
    """Whether ``fn_node`` is a generator function (a ``yield`` in its own body)."""
    return any(isinstance(node, (gast.Yield, gast.YieldFrom))
               for node in own_scope_walk(fn_node.body))


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    for node in own_scope_walk(fn_node.body):
        rejected = _REJECTED.get(type(node))
        if rejected is not None:
            what, fix = rejected
            origin = anno.get(node, Anno.ORIGIN, None)
            where = f" at {origin.filename}:{origin.lineno} (`{origin.source_line}`)" if origin else ""
            raise UnsupportedSyntaxError(
                f"{fn_node.name} cannot be converted: it uses {what}{where}, which a graph "
                f"cannot express. To fix it, {fix}.")
