"""Typed annotations attached to AST nodes.

Analyses and converters exchange facts about nodes (where a node came from,
which names a block modifies, ...). Rather than ad-hoc attributes, every fact
has a key in :class:`Anno` whose value documents what is stored, and is read
and written through the small accessors below.

Annotations live in a plain per-node dict attribute, ``_e2g_anno``. It is not
listed in ``_fields``, so it is invisible to ``gast.dump`` and to unparsing,
and it is lost when a tree is converted to the standard ``ast`` module (which
is only done to emit code). ``copy.deepcopy`` of a node copies it.
"""

from __future__ import annotations

import enum
from typing import Any

import gast

_ATTR = "_e2g_anno"
_MISSING = object()


class Anno(enum.Enum):
    """Annotation keys; each value says what the annotation holds."""

    ORIGIN = "Origin of the node in the user's source (parsing.Origin)."
    QN = "Qualified name formed by a Name/Attribute/Subscript node (qual_names.QN)."
    SCOPE = "Names read/modified by a whole statement (activity.Scope)."
    BODY_SCOPE = "Scope of the body of If/While/For/FunctionDef/Lambda (activity.Scope)."
    ORELSE_SCOPE = "Scope of the else block of If/While/For (activity.Scope)."
    COND_SCOPE = "Scope of the test expression of If/While (activity.Scope)."
    ITERATE_SCOPE = "Scope of the target and iter of a For (activity.Scope)."
    ARGS_SCOPE = "Scope of the arguments of a Call (activity.Scope)."
    LIVE_IN = "Names live just before a statement runs (frozenset of QN)."
    LIVE_OUT = "Names live right after a statement completes (frozenset of QN)."
    DEFINED_IN = "Local names defined on all paths into a statement (frozenset of QN)."
    MAYBE_DEFINED_IN = "Local names defined on some path into a statement (frozenset of QN)."
    DEFINED_AT_READ = "On a Name load of a local: True if it is surely defined there (bool)."
    ANALYSED = "On a FunctionDef: whether reaching definitions marked its reads (bool)."

    # Members are unique, and equal only to themselves: hashing them by identity is done in C,
    # Enum's own __hash__ in Python (annotations are read and written very often).
    __hash__ = object.__hash__


def get(node: gast.AST, key: Anno, default: Any = _MISSING) -> Any:
    """Return the annotation ``key`` of ``node``.

    Raises:
      KeyError: if the node has no such annotation and no default is given.
    """
    annos = getattr(node, _ATTR, None)
    if annos is not None and key in annos:
        return annos[key]
    if default is _MISSING:
        raise KeyError(f"{type(node).__name__} node has no annotation {key.name}.")
    return default


def set(node: gast.AST, key: Anno, value: Any) -> None:  # noqa: A001 - mirrors get/has
    """Attach ``value`` to ``node`` under ``key``, replacing any previous value."""
    annos = getattr(node, _ATTR, None)
    if annos is None:
        annos = {}
        setattr(node, _ATTR, annos)
    annos[key] = value


def has(node: gast.AST, key: Anno) -> bool:
    """Tell whether ``node`` carries the annotation ``key``."""
    return key in getattr(node, _ATTR, {})


def copy(src: gast.AST, dst: gast.AST, key: Anno) -> None:
    """Copy annotation ``key`` from ``src`` to ``dst``; do nothing if ``src`` lacks it.

    Converters build new nodes from old ones and call this to carry facts
    over; a missing fact on the source is normal for synthesized nodes.
    """
    if has(src, key):
        set(dst, key, get(src, key))


def delete(node: gast.AST, key: Anno) -> None:
    """Remove annotation ``key`` from ``node`` if present."""
    annos = getattr(node, _ATTR, None)
    if annos is not None:
        annos.pop(key, None)
