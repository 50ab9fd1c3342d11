"""Lowers ``continue`` to a flag that guards the rest of the loop body.

    for i in range(10):            for i in range(10):
        if i > 3:                      continue_ = False
            continue       ==>         if i > 3:
        s += i                             continue_ = True
                                       if not continue_:
                                           s += i
"""

from __future__ import annotations

import gast

from transpiler.converters.base import (StatementTransformer, assign, constant, contains, name,
                                        not_, stamp_origin)


def guard_rest(statements: list, flag: str, jump: type, lower, loops_own_jumps: bool = True) -> list:
    """Rewrites a block so that nothing after a possible ``jump`` runs once ``flag`` is set.

    ``lower(statement)`` returns the replacement of a jump statement itself. Jumps inside a
    nested loop belong to that loop when ``loops_own_jumps`` (break/continue), not for return.
    """
    result = []
    for index, statement in enumerate(statements):
        if isinstance(statement, jump):
            result.extend(stamp_origin(lower(statement), statement))
            return result  # the rest of the block is unreachable in Python
        jumps = contains([statement], jump, stop_at_loops=loops_own_jumps)
        if jumps:
            _guard_inside(statement, flag, jump, lower, loops_own_jumps)
        result.append(statement)
        rest = statements[index + 1:]
        if jumps and rest:
            result.append(gast.If(not_(name(flag)),
                                  guard_rest(rest, flag, jump, lower, loops_own_jumps), []))
            return result
    return result


def _guard_inside(statement, flag: str, jump: type, lower, loops_own_jumps: bool) -> None:
    for block in ("body", "orelse", "finalbody"):
        if loops_own_jumps and isinstance(statement, (gast.While, gast.For)) and block == "body":
            continue  # a nested loop owns the breaks and continues in its body
        statements = getattr(statement, block, None)
        if isinstance(statements, list) and statements:
            setattr(statement, block, guard_rest(statements, flag, jump, lower, loops_own_jumps))
    for handler in getattr(statement, "handlers", []) or []:
        handler.body = guard_rest(handler.body, flag, jump, lower, loops_own_jumps)


class _ContinueLowering(StatementTransformer):
    def _loop(self, node):
        node.body = self.visit_block(node.body)
        if not contains(node.body, gast.Continue, stop_at_loops=True):
            return node
        flag = self.ctx.namer.new("continue_")
        node.body = [assign(flag, constant(False))] + guard_rest(
            node.body, flag, gast.Continue, lambda _: [assign(flag, constant(True))])
        return node

    visit_While = _loop
    visit_For = _loop


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    fn_node.body = _ContinueLowering(ctx).visit_block(fn_node.body)
