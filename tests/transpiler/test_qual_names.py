"""Tests for transpiler.analysis.qual_names."""

import ast
import copy

import gast
import pytest

from transpiler.analysis import annotations as anno
from transpiler.analysis import qual_names
from transpiler.analysis.annotations import Anno
from transpiler.analysis.qual_names import QN


def _expr(text: str) -> gast.expr:
    return gast.parse(text, mode="eval").body


@pytest.mark.parametrize("text", ["x", "a.b.c", "a[0]", "d['k']", "a.b[0].c", "m[0, 1]",
                                  "m[-1]", "d[None]", "d[True]", "t[0,]", "d[b'k']"])
def test_from_string_round_trips_through_str_and_ast(text):
    qn = QN.from_string(text)
    assert str(qn) == ast.unparse(ast.parse(text, mode="eval").body)
    assert ast.unparse(gast.gast_to_ast(qn.ast())) == str(qn)
    assert qual_names.from_node(qn.ast()) == qn


@pytest.mark.parametrize("text", ["a[i]", "a[1:2]", "f().x", "a[0][i].b", "(a + b).c", "d[k, 0]"])
def test_non_qualified_names(text):
    assert qual_names.from_node(_expr(text)) is None
    with pytest.raises(ValueError, match="not a qualified name"):
        QN.from_string(text)


def test_structure_properties():
    qn = QN.from_string("a.b[0]")
    assert qn.is_composite and not qn.is_simple and qn.has_subscript and not qn.has_attr
    assert qn.key == 0 and qn.parent == QN.from_string("a.b") and qn.parent.attr == "b"
    assert qn.base == QN("a") and qn.base.is_simple and qn.base.name == "a"
    assert {str(q) for q in qn.owner_set} == {"a", "a.b"}
    assert qn.support_set == {QN("a")}
    assert QN("x").parent is None and QN("x").owner_set == frozenset()


def test_equality_hashing_and_order_follow_the_text():
    assert QN.attribute(QN("a"), "b") == QN.from_string("a.b")
    assert len({QN("a"), QN("a"), QN.from_string("a.b")}) == 2
    assert QN.subscript(QN("d"), 1) != QN.subscript(QN("d"), True)  # 1 == True in Python.
    ac = QN.from_string("a.c")
    assert sorted([QN("b"), ac, QN("a")]) == [QN("a"), ac, QN("b")]
    assert QN("a") != "a"


def test_immutable_and_copyable():
    qn = QN.from_string("a['k']")
    with pytest.raises(AttributeError):
        qn.x = 1
    assert copy.deepcopy(qn) == qn


def test_invalid_construction():
    with pytest.raises(ValueError, match="identifier"):
        QN("a.b")
    with pytest.raises(ValueError, match="not a constant"):
        QN.subscript(QN("a"), [1])


def test_resolve_annotates_qualified_names_only():
    tree = gast.parse("y = a.b[i].c + d['k']")
    qual_names.resolve(tree)
    found = {str(anno.get(n, Anno.QN)) for n in gast.walk(tree) if anno.has(n, Anno.QN)}
    assert found == {"y", "a", "a.b", "i", "d", "d['k']"}


def test_resolve_again_drops_stale_annotations():
    tree = gast.parse("a[0]")
    qual_names.resolve(tree)
    subscript = tree.body[0].value
    subscript.slice = gast.Name(id="i", ctx=gast.Load(), annotation=None, type_comment=None)
    qual_names.resolve(tree)
    assert not anno.has(subscript, Anno.QN)
    assert anno.get(subscript.slice, Anno.QN) == QN("i")
