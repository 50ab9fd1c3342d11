"""Lowers ``return`` inside control flow to a flag and a value, returned at the end.

A function whose only ``return`` is its last statement is left as it is, and so is one whose
returns all end the branches of ``if`` statements that end the function (each such ``if``
then returns its branch's value). Otherwise, first the
code after an ``if`` whose branch always returns moves into the other branch (so both paths
are explicit; a function that can run off its end gets a final ``return None``), then every ``return v`` becomes ``retval = v; do_return = True``, code after a
statement that may have returned is guarded by ``if not do_return:``, loops stop once
``do_return`` is set, and the function ends with ``return ag__.return_value(retval)``.
"""

from __future__ import annotations

import gast

from transpiler.converters.base import (add_extra_test, assign, constant, contains, name, not_,
                                        own_scope_walk)
from transpiler.converters.continue_statements import guard_rest
from transpiler.operators.variables import RETURN_VALUE_NAME
from transpiler.templates import replace, replace_as_expression


def _always_leaves(statements: list) -> bool:
    """Whether ``statements`` never run to their end: each path returns, raises or loops
    forever (``while True`` without a ``break``; breaks are already lowered to flags here),
    also from inside a ``with`` or a ``try`` (whose handlers leave too, or whose ``finally``
    leaves)."""
    for statement in statements:
        if isinstance(statement, (gast.Return, gast.Raise)):
            return True
        if isinstance(statement, gast.If) and _always_leaves(statement.body) \
                and _always_leaves(statement.orelse):
            return True
        if isinstance(statement, gast.While) and isinstance(statement.test, gast.Constant) \
                and statement.test.value:
            return True
        if isinstance(statement, gast.With) and _always_leaves(statement.body):
            return True
        if isinstance(statement, gast.Try) and (_always_leaves(statement.finalbody) or (
                _always_leaves(statement.body) and all(_always_leaves(handler.body)
                                                       for handler in statement.handlers))):
            return True
    return False


def _make_returns_explicit(statements: list) -> list:
    """``if c: return a`` followed by more code: the code moves into the ``else``."""
    result = []
    for index, statement in enumerate(statements):
        if isinstance(statement, gast.If):
            rest = statements[index + 1:]
            statement.body = _make_returns_explicit(statement.body)
            statement.orelse = _make_returns_explicit(statement.orelse)
            if rest and _always_leaves(statement.body) and not _always_leaves(statement.orelse):
                statement.orelse = _make_returns_explicit(statement.orelse + rest)
                result.append(statement)
                return result
            if rest and _always_leaves(statement.orelse) and not _always_leaves(statement.body):
                statement.body = _make_returns_explicit(statement.body + rest)
                result.append(statement)
                return result
        elif isinstance(statement, (gast.While, gast.For, gast.With, gast.Try)):
            for block in ("body", "orelse", "finalbody"):
                if hasattr(statement, block):
                    setattr(statement, block, _make_returns_explicit(getattr(statement, block)))
        result.append(statement)
    return result


def _returns_only_at_tails(statements: list) -> bool:
    """Whether the last statement returns, or is an ``if`` whose branches both end this way,
    and no other statement returns."""
    if not statements:
        return False
    *rest, last = statements
    if any(isinstance(node, gast.Return) for node in own_scope_walk(rest, blocks_only=True)):
        return False
    if isinstance(last, gast.Return):
        return True
    return isinstance(last, gast.If) and _returns_only_at_tails(last.body) \
        and _returns_only_at_tails(last.orelse)


def _only_tail_return(body: list) -> bool:
    returns = [node for node in own_scope_walk(body, blocks_only=True)
               if isinstance(node, gast.Return)]
    return not returns or (len(returns) == 1 and body and body[-1] is returns[0])


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    if isinstance(fn_node, gast.Lambda) or _only_tail_return(fn_node.body):
        return
    body = fn_node.body
    if not _always_leaves(body):
        # Python returns None after the last statement; saying so gives every path a return
        # value, so a graph never returns a value that no `return` produced.
        body = body + [gast.Return(value=None)]
    body = _make_returns_explicit(body)
    if _returns_only_at_tails(body):
        # Every return ends a branch of an `if` that ends the function: the control-flow
        # converter makes each such `if` return its branch's value, no flags needed.
        fn_node.body = body
        return
    do_return, retval = ctx.namer.new("do_return"), ctx.namer.new(RETURN_VALUE_NAME)

    def lower(statement: gast.Return) -> list:
        # The value first: if computing it raises (and the exception is caught), no return
        # happened, as in Python.
        value = statement.value if statement.value is not None else constant(None)
        return [assign(retval, value), assign(do_return, constant(True))]

    _stop_loops(body, do_return)
    lowered = guard_rest(body, do_return, gast.Return, lower, loops_own_jumps=False)
    docstring = _docstring(fn_node.body)
    fn_node.body = docstring + replace(
        """
        __tpl_do_return = False
        __tpl_retval = ag__.UndefinedReturnValue()
        """, do_return=do_return, retval=retval) + [
        s for s in lowered if not (docstring and s is docstring[0])] + [
        gast.Return(replace_as_expression("ag__.return_value(__tpl_retval)", retval=retval))]


def _stop_loops(statements: list, do_return: str) -> None:
    """Loops containing a return stop iterating once it ran."""
    for node in own_scope_walk(statements, blocks_only=True):
        if isinstance(node, (gast.While, gast.For)) and contains(node.body, gast.Return):
            if isinstance(node, gast.While):
                node.test = gast.BoolOp(gast.And(), [not_(name(do_return)), node.test])
            else:
                add_extra_test(node, not_(name(do_return)))


def _docstring(body: list) -> list:
    first = body[0] if body else None
    if isinstance(first, gast.Expr) and isinstance(first.value, gast.Constant) \
            and isinstance(first.value.value, str):
        return [first]
    return []
