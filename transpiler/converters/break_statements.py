"""Lowers ``break`` to a flag: ``break_ = True`` plus a ``continue``, and the loop tests the flag.

    while test:                  break_ = False
        if x:                    while not break_ and test:
            break        ==>         if x:
        y()                              break_ = True
    else:                                continue
        z()                          y()
                                 if not break_:
                                     z()

(The ``continue`` is lowered next. A ``for`` loop gets ``not break_`` as its extra test.)
Loop ``else`` blocks run exactly when Python runs them: after a loop that did not break.
"""

from __future__ import annotations

import gast

from transpiler.converters.base import (StatementTransformer, add_extra_test, assign,
                                        constant, contains, name, not_, stamp_origin)


class _BreakLowering(StatementTransformer):
    def _loop(self, node):
        node.body = self.visit_block(node.body)
        node.orelse = self.visit_block(node.orelse)
        orelse, node.orelse = node.orelse, []
        if not contains(node.body, gast.Break, stop_at_loops=True):
            return [node] + orelse
        flag = self.ctx.namer.new("break_")
        node.body = _Replace(flag).visit_block(node.body)
        if isinstance(node, gast.While):
            node.test = gast.BoolOp(gast.And(), [not_(name(flag)), node.test])
        else:
            add_extra_test(node, not_(name(flag)))
        result = [assign(flag, constant(False)), node]
        if orelse:
            result.append(gast.If(not_(name(flag)), orelse, []))
        return result

    visit_While = _loop
    visit_For = _loop


class _Replace(StatementTransformer):
    """``break`` at this loop's level becomes ``flag = True; continue``."""

    def __init__(self, flag: str):
        self.flag = flag

    def visit_Break(self, node):
        return stamp_origin([assign(self.flag, constant(True)), gast.Continue()], node)

    def visit_While(self, node):
        return node

    visit_For = visit_While


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    fn_node.body = _BreakLowering(ctx).visit_block(fn_node.body)
