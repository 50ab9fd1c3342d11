"""Tests for transpiler.analysis.reaching_definitions."""

import textwrap

import gast

from transpiler import parsing
from transpiler.analysis import annotations as anno
from transpiler.analysis import reaching_definitions
from transpiler.analysis.annotations import Anno


def resolve(source: str) -> gast.FunctionDef:
    fn = parsing.parse_source(textwrap.dedent(source)).body[0]
    reaching_definitions.resolve(fn)
    return fn


def defined(stmt: gast.stmt) -> set[str]:
    return {str(q) for q in anno.get(stmt, Anno.DEFINED_IN)}


def maybe(stmt: gast.stmt) -> set[str]:
    return {str(q) for q in anno.get(stmt, Anno.MAYBE_DEFINED_IN)}


def reads(fn: gast.AST) -> list[tuple[str, int, object]]:
    """(name, line, DEFINED_AT_READ or None) for every Name load, in source order."""
    loads = [n for n in gast.walk(fn) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    loads.sort(key=lambda n: (n.lineno, n.col_offset))
    return [(n.id, n.lineno, anno.get(n, Anno.DEFINED_AT_READ, None)) for n in loads]


def test_if_else_both_branches_define():
    fn = resolve("""
        def f(c):
            if c:
                x = 1
                y = 1
            else:
                x = 2
            return x, y
    """)
    ret = fn.body[1]
    assert defined(ret) == {"c", "x"} and maybe(ret) == {"c", "x", "y"}
    assert reads(ret) == [("x", 8, True), ("y", 8, False)]


def test_elif_chain():
    fn = resolve("""
        def f(c):
            if c > 0:
                x = 1
            elif c < 0:
                x = 2
            else:
                x = 3
            return x
    """)
    assert defined(fn.body[1]) == {"c", "x"}


def test_loop_body_definitions_are_only_maybe_defined_after_the_loop():
    fn = resolve("""
        def f(xs, n):
            total = 0
            for x in xs:
                y = x
            while n:
                z = n
                n -= 1
            return total, x, y, z
    """)
    for_stmt, while_stmt, ret = fn.body[1:]
    assert defined(for_stmt) == {"xs", "n", "total"}
    assert maybe(for_stmt) == {"xs", "n", "total"}  # On entry: the back edge is not "entry".
    assert defined(for_stmt.body[0]) == {"xs", "n", "total", "x"}
    assert defined(while_stmt.body[0]) == {"xs", "n", "total"}
    assert defined(ret) == {"xs", "n", "total"} and maybe(ret) == {"xs", "n", "total", "x",
                                                                   "y", "z"}


def test_read_of_a_loop_carried_variable_defined_later_in_the_body():
    fn = resolve("""
        def f(n):
            while n:
                if n > 1:
                    print(prev)
                prev = n
                n -= 1
    """)
    assert ("prev", 5, False) in reads(fn)
    assert "prev" in maybe(fn.body[0].body[0]) and "prev" not in defined(fn.body[0].body[0])


def test_while_true_with_break_defines_after_loop():
    fn = resolve("""
        def f(g):
            while True:
                x = g()
                if x:
                    break
            return x
    """)
    assert reads(fn)[-1] == ("x", 7, True)


def test_del_kills_definitions():
    fn = resolve("""
        def f(a):
            x = a
            del x
            return x
    """)
    assert defined(fn.body[2]) == {"a"} and maybe(fn.body[2]) == {"a"}
    assert reads(fn)[-1] == ("x", 5, False)


def test_composites_and_rebinding_the_base():
    fn = resolve("""
        def f(a):
            a.b = 1
            a.c = a.b
            a = g()
            return a.b
    """)
    assert defined(fn.body[2]) == {"a", "a.b", "a.c"}
    assert defined(fn.body[3]) == {"a"}  # After `a = g()`, nothing is known about a.b.


def test_try_except_and_finally():
    fn = resolve("""
        def f(fh):
            try:
                data = fh.read()
            except OSError as e:
                data = None
                err = e
            finally:
                fh.close()
            return data, err, e
    """)
    ret = fn.body[1]
    assert defined(ret) == {"fh", "data"}  # A failed try does not continue after the finally.
    assert maybe(ret) == {"fh", "data", "err"}  # `e` is deleted at the end of the handler.
    finally_stmt = fn.body[0].finalbody[0]
    assert defined(finally_stmt) == {"fh"}  # Reached by an exception from the try body.
    assert reads(ret) == [("data", 10, True), ("err", 10, False), ("e", 10, False)]


def test_params_are_defined_and_globals_free_vars_builtins_are_not_annotated():
    fn = resolve("""
        def f(a, *args, k=1, **kw):
            global g
            g = a
            return len(a) + g + free + k + args + kw
    """)
    assert defined(fn.body[0]) == {"a", "args", "k", "kw"}
    annotated = {name: flag for name, _, flag in reads(fn)}
    assert annotated == {"a": True, "len": None, "g": None, "free": None, "k": True,
                         "args": True, "kw": True}


def test_comprehension_and_lambda_names_are_not_locals():
    fn = resolve("""
        def f(xs):
            t = 0
            ys = [t for t in xs if t]
            h = lambda x: x + t
            return ys, h
    """)
    flags = {(name, line): flag for name, line, flag in reads(fn)}
    assert flags[("xs", 4)] is True
    assert flags[("t", 4)] is None  # The comprehension's own `t`.
    assert flags[("x", 5)] is None and flags[("t", 5)] is None  # Lambda body: another scope.


def test_unreachable_code_has_nothing_defined():
    fn = resolve("""
        def f(a):
            return a
            b = a
    """)
    assert defined(fn.body[1]) == set() and reads(fn)[-1] == ("a", 4, False)


def test_nested_function_is_resolved_separately():
    fn = resolve("""
        def f(a):
            def g(b):
                return a + b
            return g
    """)
    assert defined(fn.body[1]) == {"a", "g"}
    inner = fn.body[0]
    assert not anno.has(inner.body[0], Anno.DEFINED_IN)
    reaching_definitions.resolve(inner)
    assert defined(inner.body[0]) == {"b"}
    assert [(n, flag) for n, _, flag in reads(inner)] == [("a", None), ("b", True)]


def test_resolve_again_after_a_converter_edit():
    fn = resolve("""
        def f(a):
            x = a
            return x
    """)
    ret = fn.body[1]
    fn.body.insert(1, gast.Delete(targets=[gast.Name(id="x", ctx=gast.Del(), annotation=None,
                                                     type_comment=None)]))
    reaching_definitions.resolve(fn)
    assert defined(ret) == {"a"} and reads(ret) == [("x", 4, False)]
