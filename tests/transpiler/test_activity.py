"""Tests for transpiler.analysis.activity."""

import textwrap

import gast
import pytest

from transpiler import parsing
from transpiler.analysis import activity
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno


def resolve(source: str) -> gast.FunctionDef:
    fn = parsing.parse_source(textwrap.dedent(source)).body[0]
    activity.resolve(fn)
    return fn


def sets(scope: activity.Scope) -> dict[str, set[str]]:
    """The non-empty sets of a scope, as text; `bound` included."""
    fields = ["read", "modified", "deleted", "params", "globals", "nonlocals"]
    out = {f: {str(q) for q in getattr(scope, f)} for f in fields}
    out["bound"] = {str(q) for q in scope.bound}
    return {k: v for k, v in out.items() if v}


def stmt_scope(source: str) -> dict[str, set[str]]:
    """The scope of the only statement in the body of a one-statement function."""
    return sets(anno.get(resolve(source).body[0], Anno.SCOPE))


@pytest.mark.parametrize("statement, expected", [
    ("x = y", {"read": {"y"}, "modified": {"x"}, "bound": {"x"}}),
    ("x += y", {"read": {"x", "y"}, "modified": {"x"}, "bound": {"x"}}),
    ("a.b = c", {"read": {"a", "c"}, "modified": {"a.b"}, "bound": {"a.b"}}),
    ("a.b += 1", {"read": {"a", "a.b"}, "modified": {"a.b"}, "bound": {"a.b"}}),
    ("d['k'] = v[0]", {"read": {"v", "v[0]", "d"}, "modified": {"d['k']"}, "bound": {"d['k']"}}),
    ("a[i] = 1", {"read": {"a", "i"}}),
    ("a[i] += 1", {"read": {"a", "i"}}),
    ("x = a.b.c", {"read": {"a", "a.b", "a.b.c"}, "modified": {"x"}, "bound": {"x"}}),
    ("del x, a.b", {"read": {"a"}, "deleted": {"x", "a.b"}, "bound": {"x", "a.b"}}),
    ("x: int", {}),
    ("x: int = y", {"read": {"y"}, "modified": {"x"}, "bound": {"x"}}),
    ("import os.path, numpy as np", {"modified": {"os", "np"}, "bound": {"os", "np"}}),
    ("from m import a as b, c", {"modified": {"b", "c"}, "bound": {"b", "c"}}),
    ("global g", {"globals": {"g"}}),
    ("print((n := 1) + n)", {"read": {"print", "n"}, "modified": {"n"}, "bound": {"n"}}),
    ("a, *b = c", {"read": {"c"}, "modified": {"a", "b"}, "bound": {"a", "b"}}),
])
def test_simple_statements(statement, expected):
    assert stmt_scope(f"def f():\n    {statement}\n") == expected


def test_comprehension_internals_do_not_leak():
    assert stmt_scope("""
        def f():
            y = [t + k for t in u if t for s in t]
    """) == {"read": {"k", "u"}, "modified": {"y"}, "bound": {"y"}}


def test_walrus_in_comprehension_binds_in_the_function():
    assert stmt_scope("""
        def f():
            y = {t: (last := t) for t in u}
    """) == {"read": {"u"}, "modified": {"y", "last"}, "bound": {"y", "last"}}


def test_lambda_internals_do_not_leak_but_free_reads_count():
    fn = resolve("""
        def f(w):
            z = lambda p, q=d: p + w
    """)
    assert sets(anno.get(fn.body[0], Anno.SCOPE)) == {
        "read": {"d", "w"}, "modified": {"z"}, "bound": {"z"}}
    lam = fn.body[0].value
    assert sets(anno.get(lam, Anno.BODY_SCOPE)) == {
        "read": {"p", "w"}, "params": {"p", "q"}, "bound": {"p", "q"}}


def test_nested_function_binds_its_name_and_reads_its_free_variables():
    fn = resolve("""
        def f(a):
            @deco
            def inner(r, s=dflt):
                nonlocal y
                y = r
                t = r + a.b + k
                return t
    """)
    inner = fn.body[0]
    assert sets(anno.get(inner, Anno.SCOPE)) == {
        "read": {"deco", "dflt", "a", "a.b", "k", "y"}, "modified": {"inner"},
        "bound": {"inner"}}
    body = anno.get(inner, Anno.BODY_SCOPE)
    assert {str(q) for q in body.free_vars} == {"a", "a.b", "k", "y"}
    assert not anno.has(inner.body[1], Anno.SCOPE)  # Its own statements are not annotated.


def test_class_definition():
    assert stmt_scope("""
        def f():
            class C(Base):
                attr = value
                def m(self):
                    return attr
    """) == {"read": {"Base", "value"}, "modified": {"C"}, "bound": {"C"}}


def test_if_scopes():
    fn = resolve("""
        def f(x):
            if x > 0:
                y = 1
            elif x < 0:
                z = w
            else:
                del q
    """)
    stmt = fn.body[0]
    assert sets(anno.get(stmt, Anno.COND_SCOPE)) == {"read": {"x"}}
    assert sets(anno.get(stmt, Anno.BODY_SCOPE)) == {"modified": {"y"}, "bound": {"y"}}
    assert sets(anno.get(stmt, Anno.ORELSE_SCOPE)) == {
        "read": {"x", "w"}, "modified": {"z"}, "deleted": {"q"}, "bound": {"z", "q"}}
    assert sets(anno.get(stmt, Anno.SCOPE)) == {
        "read": {"x", "w"}, "modified": {"y", "z"}, "deleted": {"q"}, "bound": {"y", "z", "q"}}
    elif_stmt = stmt.orelse[0]
    assert sets(anno.get(elif_stmt.body[0], Anno.SCOPE)) == {
        "read": {"w"}, "modified": {"z"}, "bound": {"z"}}


def test_while_scopes():
    stmt = resolve("""
        def f(n):
            while n > 0:
                n -= 1
            else:
                done = True
    """).body[0]
    assert sets(anno.get(stmt, Anno.COND_SCOPE)) == {"read": {"n"}}
    assert sets(anno.get(stmt, Anno.BODY_SCOPE)) == {"read": {"n"}, "modified": {"n"},
                                                     "bound": {"n"}}
    assert sets(anno.get(stmt, Anno.ORELSE_SCOPE)) == {"modified": {"done"}, "bound": {"done"}}


def test_for_scopes():
    stmt = resolve("""
        def f(xs):
            for i, a.b in enumerate(xs):
                total = i
            else:
                total = 0
    """).body[0]
    assert sets(anno.get(stmt, Anno.ITERATE_SCOPE)) == {
        "read": {"enumerate", "xs", "a"}, "modified": {"i", "a.b"}, "bound": {"i", "a.b"}}
    assert sets(anno.get(stmt, Anno.BODY_SCOPE)) == {
        "read": {"i"}, "modified": {"total"}, "bound": {"total"}}


def test_try_with_and_match_bind_their_names():
    fn = resolve("""
        def f(p):
            try:
                with open(p) as fh:
                    data = fh.read()
            except OSError as e:
                data = e
            match data:
                case [x, *rest] if x:
                    pass
                case {"k": v, **others}:
                    pass
    """)
    assert sets(anno.get(fn.body[0], Anno.SCOPE))["modified"] == {"fh", "data", "e"}
    assert sets(anno.get(fn.body[1], Anno.SCOPE)) == {
        "read": {"data", "x"}, "modified": {"x", "rest", "v", "others"},
        "bound": {"x", "rest", "v", "others"}}


def test_function_body_scope_has_params_and_declarations():
    fn = resolve("""
        def f(a, /, b, *args, c=1, **kw):
            global g
            free = h
            g = a
    """)
    body = activity.resolve(fn)  # Returns the BODY_SCOPE it sets.
    assert anno.get(fn, Anno.BODY_SCOPE) is body
    params = {"a", "b", "args", "c", "kw"}
    assert sets(body) == {"read": {"a", "h"}, "modified": {"g", "free"}, "params": params,
                          "globals": {"g"}, "bound": params | {"g", "free"}}
    assert {str(q) for q in body.local_names} == params | {"free"}
    assert {str(q) for q in body.free_vars} == {"h"}


def test_call_args_scope():
    fn = resolve("""
        def f():
            g(x, key=y.z)
    """)
    call = fn.body[0].value
    assert sets(anno.get(call, Anno.ARGS_SCOPE)) == {"read": {"x", "y", "y.z"}}


def test_resolve_again_after_a_converter_edit():
    fn = resolve("""
        def f(x):
            y = x
    """)
    new = gast.Assign(targets=[gast.Name(id="z", ctx=gast.Store(), annotation=None,
                                         type_comment=None)],
                      value=gast.Name(id="y", ctx=gast.Load(), annotation=None,
                                      type_comment=None), type_comment=None)
    fn.body.append(new)  # No Origin, no location.
    activity.resolve(fn)
    assert sets(anno.get(new, Anno.SCOPE)) == {"read": {"y"}, "modified": {"z"}, "bound": {"z"}}
    assert "z" in sets(anno.get(fn, Anno.BODY_SCOPE))["modified"]
