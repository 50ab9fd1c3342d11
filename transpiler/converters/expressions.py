"""Expression-level rewrites: ternaries, ``and``/``or``/``not``, chained comparisons, ``assert``.

    a if c else b     ->  ag__.if_exp(c, lambda: a, lambda: b)
    a and b           ->  ag__.and_(lambda: a, lambda: b)        (``b`` stays lazy)
    not a             ->  ag__.not_(a)
    a < b < c         ->  ag__.and_(lambda: a < b, lambda: b < c)
    a < f() < c       ->  ag__.chained_compare(a, '<', lambda: f(), '<', lambda: c)
                          (each operand evaluated once, lazily)
    x in t            ->  ag__.contains(t, x)
    assert t, msg     ->  ag__.assert_stmt(t, lambda: msg)

Operands that bind a variable (``a and (b := f(x))``) stay Python's: in a lambda, ``:=`` would
bind it in the lambda, not in the function.
"""

from __future__ import annotations

import gast

from transpiler.converters.base import (EXTRA_TEST, THUNK, ScopeTransformer, binds, extra_test,
                                        name, stamp_origin)


_OPERATOR_TEXT = {
    gast.Lt: "<", gast.LtE: "<=", gast.Gt: ">", gast.GtE: ">=", gast.Eq: "==", gast.NotEq: "!=",
    gast.Is: "is", gast.IsNot: "is not", gast.In: "in", gast.NotIn: "not in",
}


def _thunk(expression: gast.expr) -> gast.Lambda:
    arguments = gast.arguments([], [], None, [], [], None, [])
    thunk = gast.Lambda(arguments, expression)
    setattr(thunk, THUNK, True)
    return thunk


def _call(attribute: str, args: list) -> gast.Call:
    return gast.Call(gast.Attribute(name("ag__"), attribute, gast.Load()), args, [])


class _Expressions(ScopeTransformer):
    def visit_Lambda(self, node):
        return self.generic_visit(node)  # lambdas are expressions of this scope

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if binds(node.body, node.orelse):
            return node
        return _call("if_exp", [node.test, _thunk(node.body), _thunk(node.orelse)])

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if binds(*node.values):
            return node
        operator = "and_" if isinstance(node.op, gast.And) else "or_"
        result = node.values[-1]
        for value in reversed(node.values[:-1]):
            result = _call(operator, [_thunk(value), _thunk(result)])
        return result

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Not):
            return _call("not_", [node.operand])
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1:
            if isinstance(node.ops[0], (gast.In, gast.NotIn)):
                # `x in t` on a tensor `t` has no Python answer while tracing.
                found = _call("contains", [node.comparators[0], node.left])
                return _call("not_", [found]) if isinstance(node.ops[0], gast.NotIn) else found
            return node
        if binds(*node.comparators):
            return node
        if all(isinstance(c, (gast.Name, gast.Constant)) for c in node.comparators[:-1]):
            # Reading a name twice is harmless, and `and_` reads best.
            return self._compare_with_and(node)
        args = [node.left]
        for op, right in zip(node.ops, node.comparators):
            args += [gast.Constant(_OPERATOR_TEXT[type(op)], None), _thunk(right)]
        return _call("chained_compare", args)

    @staticmethod
    def _compare_with_and(node):
        parts = []
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            parts.append(gast.Compare(left, [op], [right]))
            left = right
        result = parts[-1]
        for part in reversed(parts[:-1]):
            result = _call("and_", [_thunk(part), _thunk(result)])
        return result

    def visit_For(self, node):
        self.generic_visit(node)
        condition = extra_test(node)
        if condition is not None:
            setattr(node, EXTRA_TEST, self.visit(condition))
        return node

    def visit_Assert(self, node):
        self.generic_visit(node)
        args = [node.test] + ([_thunk(node.msg)] if node.msg is not None else [])
        return stamp_origin([gast.Expr(_call("assert_stmt", args))], node)[0]


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    fn_node.body = _Expressions(ctx).visit_block(fn_node.body)
