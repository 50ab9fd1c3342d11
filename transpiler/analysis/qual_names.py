"""Qualified names: the unit every analysis reasons about.

A qualified name (QN) is an expression that denotes a storage location and
can be tracked without evaluating anything: a simple name ``x``, an attribute
chain ``a.b.c``, or a subscript by a constant key ``a[0]``, ``d['k']``,
``m[0, 1]``. ``a[i]`` is *not* a QN, because which location it denotes
depends on ``i`` at run time; code that reads or writes it still reads ``a``.

QNs are immutable and hashable, compare by the Python text they denote, and
sort by it, so analyses can keep them in sets and converters can emit them in
a stable order.
"""

from __future__ import annotations

import functools
from typing import Optional, Union

import gast

from transpiler import syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno

Key = Union[int, float, str, bytes, bool, None, tuple]
_SCALAR_KEY_TYPES = (int, float, str, bytes, bool, type(None))


def _key_text(key: Key) -> str:
    if isinstance(key, tuple):
        if len(key) == 1:
            return _key_text(key[0]) + ","
        return ", ".join(_key_text(k) for k in key)
    return repr(key)


def _key_ast(key: Key) -> gast.expr:
    if isinstance(key, tuple):
        return gast.Tuple(elts=[_key_ast(k) for k in key], ctx=gast.Load())
    return gast.Constant(value=key, kind=None)


_SIMPLE: dict = {}  # name -> its QN
_MAX_SIMPLE = 10_000


class QN:
    """An immutable qualified name such as ``x``, ``a.b`` or ``d['k']``.

    Build simple names with ``QN('x')`` and composites with
    :meth:`attribute` and :meth:`subscript`, or parse text with
    :meth:`from_string`.

    >>> qn = QN.from_string("a.b['k']")
    >>> str(qn.parent), str(qn.base), qn.is_composite
    ('a.b', 'a', True)
    """

    __slots__ = ("_parent", "_name", "_attr", "_key", "_is_subscript", "_text")

    def __new__(cls, name: str):
        # The analyses make simple names all the time; being immutable, each is made once.
        qn = _SIMPLE.get(name)
        if qn is None:
            if not name.isidentifier():
                raise ValueError(f"QN({name!r}): a simple qualified name must be an identifier.")
            qn = object.__new__(cls)
            qn._init(None, name, None, None, False, name)
            if len(_SIMPLE) >= _MAX_SIMPLE:  # a process may convert ever new names
                _SIMPLE.clear()
            _SIMPLE[name] = qn
        return qn

    def _init(self, parent, name, attr, key, is_subscript, text) -> None:
        object.__setattr__(self, "_parent", parent)
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_attr", attr)
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_is_subscript", is_subscript)
        object.__setattr__(self, "_text", text)

    @classmethod
    def attribute(cls, parent: QN, attr: str) -> QN:
        """The QN ``parent.attr``."""
        qn = object.__new__(cls)
        qn._init(parent, None, attr, None, False, f"{parent}.{attr}")
        return qn

    @classmethod
    def subscript(cls, parent: QN, key: Key) -> QN:
        """The QN ``parent[key]``; ``key`` must be a constant (or tuple of constants)."""
        if not _is_constant_key(key):
            raise ValueError(f"QN subscript key {key!r} is not a constant; use int, str, ....")
        qn = object.__new__(cls)
        qn._init(parent, None, None, key, True, f"{parent}[{_key_text(key)}]")
        return qn

    @classmethod
    def from_string(cls, text: str) -> QN:
        """Parse Python text such as ``"a.b['k']"`` into a QN."""
        return _from_string(text)

    def __setattr__(self, name, value):
        raise AttributeError("QN is immutable.")

    # Structure -------------------------------------------------------------

    @property
    def is_simple(self) -> bool:
        """True for a plain name like ``x``."""
        return self._parent is None

    @property
    def is_composite(self) -> bool:
        """True for attributes and subscripts like ``a.b`` or ``a[0]``."""
        return self._parent is not None

    @property
    def has_attr(self) -> bool:
        """True if the last step is an attribute access (``a[0].b``)."""
        return self._attr is not None

    @property
    def has_subscript(self) -> bool:
        """True if the last step is a subscript (``a.b[0]``)."""
        return self._is_subscript

    @property
    def parent(self) -> Optional[QN]:
        """The QN one step up (``a.b`` for ``a.b.c``), or None for a simple name."""
        return self._parent

    @property
    def base(self) -> QN:
        """The simple name at the root (``a`` for ``a.b[0]``)."""
        qn = self
        while qn._parent is not None:
            qn = qn._parent
        return qn

    @property
    def name(self) -> Optional[str]:
        """The identifier of a simple name; None for composites."""
        return self._name

    @property
    def attr(self) -> Optional[str]:
        """The attribute of the last step, if it is an attribute access."""
        return self._attr

    @property
    def key(self) -> Key:
        """The constant key of the last step, if it is a subscript."""
        return self._key

    @property
    def owner_set(self) -> frozenset[QN]:
        """All strict prefixes: ``{a, a.b}`` for ``a.b.c``.

        Rebinding any owner changes what this QN denotes.
        """
        owners = []
        qn = self._parent
        while qn is not None:
            owners.append(qn)
            qn = qn._parent
        return frozenset(owners)

    @property
    def support_set(self) -> frozenset[QN]:
        """The simple names whose values are needed to evaluate this QN.

        Keys are constants, so this is just the base.
        """
        return frozenset({self.base})

    def ast(self) -> gast.expr:
        """A fresh gast expression (Load context) that evaluates this QN."""
        if self._parent is None:
            return gast.Name(id=self._name, ctx=gast.Load(), annotation=None, type_comment=None)
        if self._attr is not None:
            return gast.Attribute(value=self._parent.ast(), attr=self._attr, ctx=gast.Load())
        return gast.Subscript(value=self._parent.ast(), slice=_key_ast(self._key),
                              ctx=gast.Load())

    # Value semantics -------------------------------------------------------

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"QN({self._text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, QN) and self._text == other._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __lt__(self, other: QN) -> bool:
        return self._text < other._text

    def __reduce__(self):
        return (QN.from_string, (self._text,))


@functools.lru_cache(maxsize=4096)
def _from_string(text: str) -> QN:
    """Cached: QNs are immutable, and converters turn the same names back into QNs often."""
    try:
        expr = gast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise ValueError(f"{text!r} is not a Python expression: {e.msg}.") from None
    qn = from_node(expr)
    if qn is None:
        raise ValueError(f"{text!r} is not a qualified name (name, attribute or constant key).")
    return qn


def _is_constant_key(key: object) -> bool:
    if isinstance(key, tuple):
        return all(isinstance(k, _SCALAR_KEY_TYPES) for k in key)
    return isinstance(key, _SCALAR_KEY_TYPES)


_NOT_A_KEY = object()


def _constant_key(node: gast.expr) -> object:
    """The constant a subscript slice denotes, or _NOT_A_KEY."""
    if isinstance(node, gast.Constant) and isinstance(node.value, _SCALAR_KEY_TYPES):
        return node.value
    if (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.Constant)
            and type(node.operand.value) in (int, float)):
        return -node.operand.value
    if isinstance(node, gast.Tuple):
        keys = tuple(_constant_key(e) for e in node.elts)
        if all(k is not _NOT_A_KEY and not isinstance(k, tuple) for k in keys):
            return keys
    return _NOT_A_KEY


def from_node(node: gast.AST) -> Optional[QN]:
    """The QN an expression node denotes, or None if it is not a qualified name.

    Computed from the node's structure, so it is correct even on trees that
    were modified after :func:`resolve` ran.
    """
    if isinstance(node, gast.Name):
        return QN(node.id)
    if isinstance(node, gast.Attribute):
        parent = from_node(node.value)
        return None if parent is None else QN.attribute(parent, node.attr)
    if isinstance(node, gast.Subscript):
        parent = from_node(node.value)
        key = _constant_key(node.slice)
        if parent is None or key is _NOT_A_KEY:
            return None
        return QN.subscript(parent, key)
    return None


def resolve(node: gast.AST) -> gast.AST:
    """Annotate every Name/Attribute/Subscript under ``node`` that forms a QN.

    Nodes that do not (``a[i]``, ``f().x``) lose any stale ``Anno.QN``, so the
    function can be called again after a converter edited the tree.
    Returns ``node`` for chaining.
    """
    for child in syntax_tree.walk(node):
        if isinstance(child, (gast.Name, gast.Attribute, gast.Subscript)):
            qn = from_node(child)
            if qn is None:
                anno.delete(child, Anno.QN)
            else:
                anno.set(child, Anno.QN, qn)
    return node
