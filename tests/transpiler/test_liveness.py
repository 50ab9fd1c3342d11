"""Tests for transpiler.analysis.liveness.

Live sets include every name that may still be read, globals and builtins
too (``print`` below); converters intersect them with what a block modifies.
"""

import textwrap

import gast

from transpiler import parsing
from transpiler.analysis import annotations as anno
from transpiler.analysis import liveness
from transpiler.analysis.annotations import Anno


def resolve(source: str) -> gast.FunctionDef:
    fn = parsing.parse_source(textwrap.dedent(source)).body[0]
    liveness.resolve(fn)
    return fn


def live_in(stmt: gast.stmt) -> set[str]:
    return {str(q) for q in anno.get(stmt, Anno.LIVE_IN)}


def live_out(stmt: gast.stmt) -> set[str]:
    return {str(q) for q in anno.get(stmt, Anno.LIVE_OUT)}


def test_if_elif_else():
    fn = resolve("""
        def f(a, b, c):
            x = 0
            if a > 0:
                x = b
                y = 1
            elif a < 0:
                y = c
            else:
                y = x
            return y
    """)
    stmt = fn.body[1]
    assert live_in(stmt) == {"a", "b", "c", "x"}
    assert live_out(stmt) == {"y"}
    assert live_in(stmt.orelse[0]) == {"a", "c", "x"}
    assert live_out(fn.body[0]) == {"a", "b", "c", "x"}


def test_while_loop_carried_variables_are_live_at_the_head():
    fn = resolve("""
        def f(n):
            i = 0
            total = 0
            while i < n:
                tmp = i * 2
                total += tmp
                i += 1
            return total
    """)
    loop = fn.body[2]
    assert live_in(loop) == {"i", "n", "total"}  # Not `tmp`: written before read.
    assert live_out(loop) == {"total"}
    assert live_out(loop.body[0]) == {"i", "n", "tmp", "total"}


def test_while_with_break_and_continue():
    fn = resolve("""
        def f(n, limit):
            while n:
                if n == limit:
                    found = n
                    break
                if n % 2:
                    n -= 3
                    continue
                n -= 1
            else:
                found = None
            return found
    """)
    loop = fn.body[0]
    assert live_in(loop) == {"n", "limit"}
    assert live_out(loop) == {"found"}
    break_stmt = loop.body[0].body[1]
    assert live_out(break_stmt) == {"found"}
    continue_stmt = loop.body[1].body[1]
    assert live_out(continue_stmt) == {"n", "limit"}


def test_for_with_else_and_loop_target():
    fn = resolve("""
        def f(xs, default):
            best = default
            for x in xs:
                if x > best:
                    best = x
            else:
                print(best)
            return best
    """)
    loop = fn.body[1]
    assert live_in(loop) == {"xs", "best", "print"}  # `xs` is read once, before the head.
    assert live_out(loop) == {"best"}
    assert live_in(loop.body[0]) == {"x", "best", "print"}
    assert live_out(loop.body[0]) == {"best", "print"}  # Back to the head: `xs` is done.


def test_nested_loops():
    fn = resolve("""
        def f(rows):
            acc = 0
            for row in rows:
                j = 0
                while j < row:
                    acc = acc + j
                    j += 1
            return acc
    """)
    outer = fn.body[1]
    inner = outer.body[1]
    assert live_in(outer) == {"rows", "acc"}
    assert live_in(inner) == {"j", "row", "acc"}
    assert live_out(inner) == {"acc"}  # Next outer iteration, or the return.


def test_return_inside_loop():
    fn = resolve("""
        def f(xs, target):
            for i in xs:
                if i == target:
                    return i
                last = i
            return last
    """)
    loop = fn.body[0]
    assert live_in(loop) == {"xs", "target", "last"}  # `last` if xs is empty.
    assert live_out(loop.body[0]) == {"i", "target"}  # `last` is written next.
    assert live_in(loop.body[0].body[0]) == {"i"}
    assert live_out(loop.body[0].body[0]) == set()


def test_try_except_finally():
    fn = resolve("""
        def f(fh, fallback):
            result = fallback
            try:
                result = fh.read()
            except OSError as e:
                log = e
            finally:
                fh.close()
            return result
    """)
    assert live_out(fn.body[0]) == {"fh", "fh.read", "fh.close", "OSError", "result"}
    try_stmt = fn.body[1]
    # `result` is live into the try: the read may fail, and the handler keeps it.
    assert live_in(try_stmt) == {"fh", "fh.read", "fh.close", "OSError", "result"}
    assert live_out(try_stmt.body[0]) == {"fh", "fh.close", "OSError", "result"}
    assert live_out(try_stmt.handlers[0].body[0]) == {"fh", "fh.close", "result"}
    assert live_out(try_stmt) == {"result"}


def test_del_and_augmented_assignment():
    fn = resolve("""
        def f(x, y):
            x += y
            del y
            return x
    """)
    assert live_in(fn.body[0]) == {"x", "y"}
    assert live_out(fn.body[0]) == {"x"}  # `del` does not read its target.
    assert live_in(fn.body[1]) == {"x"}


def test_composites_keep_their_base_live_and_are_killed_by_rebinding():
    fn = resolve("""
        def f(a, b):
            if b:
                t = 1
            x = a.c
            a = b
            return x
    """)
    assert live_out(fn.body[0]) == {"a", "a.c", "b"}
    assert live_out(fn.body[1]) == {"b", "x"}


def test_modified_composites_and_globals_are_live_at_exit():
    fn = resolve("""
        def f(self, c):
            global counter
            if c:
                self.x = c
                counter = c
                local = c
    """)
    stmt = fn.body[1]
    assert live_out(stmt) == {"self.x", "counter"}
    assert live_in(stmt) == {"c", "self", "self.x", "counter"}


def test_nonlocal_is_live_at_exit():
    fn = resolve("""
        def outer():
            n = 0
            def f(c):
                nonlocal n
                if c:
                    n = c
            return f
    """).body[1]
    liveness.resolve(fn)
    assert live_out(fn.body[1]) == {"n"}


def test_comprehension_and_lambda_names_do_not_leak():
    fn = resolve("""
        def f(xs, k):
            if xs:
                t = 5
            ys = [t * k for t in xs]
            g = lambda t: t + k
            return ys, g
    """)
    assert live_out(fn.body[0]) == {"xs", "k"}  # Not `t`: the comprehension's own.


def test_nested_function_free_vars_are_live_after_the_def():
    fn = resolve("""
        def f(xs):
            scale = 2
            def g(v):
                return v * scale
            for x in xs:
                scale = x
                print(g(x))
            return g
    """)
    loop = fn.body[2]
    assert "scale" in live_out(loop.body[0])  # Read by g when called.
    assert "scale" in live_out(loop)  # g escapes; it may be called after the loop.
    assert live_out(fn.body[0]) == {"xs", "scale", "print"}


def test_resolve_again_after_a_converter_edit():
    fn = resolve("""
        def f(a, b):
            if a:
                b = 1
            return a
    """)
    assert live_out(fn.body[0]) == {"a"}
    ret = fn.body[1]
    ret.value = gast.Name(id="b", ctx=gast.Load(), annotation=None, type_comment=None)
    liveness.resolve(fn)
    assert live_out(fn.body[0]) == {"b"}
