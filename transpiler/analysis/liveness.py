"""Which names are live (may still be read) at each point of a function.

Converters use this to pick the state a block must produce: a variable the
block modifies is an output only if it is live after the block, and a loop
variable is carried only if it is live at the loop head.

A backward dataflow analysis over the CFG:
``live_in = read | (live_out - bound_here) | always``. Reading ``a.b`` makes
both ``a.b`` and ``a`` live; rebinding ``a`` kills ``a.b``. Conservative
additions:

* At function exit (normal, ``return`` or ``raise``), names declared
  ``global``/``nonlocal`` and every modified composite (``self.x``) are live:
  the caller can observe them.
* The free variables of a nested def are live at every point reachable after
  the def, since the function may be called there (lambdas are assumed to be
  used where they are defined, so their reads count at that point only).
"""

from __future__ import annotations

from typing import Optional

import gast

from transpiler.analysis import activity
from transpiler.analysis import annotations as anno
from transpiler.analysis import cfg
from transpiler.analysis.annotations import Anno
from transpiler.analysis.qual_names import QN

_EMPTY: frozenset[QN] = frozenset()


def resolve(fn_node: gast.AST, graph: Optional[cfg.Graph] = None,
            effects: Optional[dict] = None) -> None:
    """Annotate the statements of a FunctionDef or Lambda with live names.

    Sets ``Anno.LIVE_IN`` (live just before the statement; for a loop, at its
    head, so it includes what the body reads before writing) and
    ``Anno.LIVE_OUT`` (live right after the statement completes) on every
    statement of the function's own scope, If/While/For included. ``graph`` and
    ``effects`` as in ``reaching_definitions.resolve``.
    """
    if graph is None:
        graph = cfg.build(fn_node)
    if effects is None:
        effects = activity.cfg_effects(graph)
    closures = _closure_reads(graph)

    def transfer(node: cfg.Node, live_out: frozenset[QN]) -> frozenset[QN]:
        effect = effects[node]
        bound = effect.modified | effect.deleted | effect.params
        survivors = {q for q in live_out if q not in bound and not (q.owner_set & bound)} \
            if bound else live_out
        return frozenset(survivors | effect.read | closures.get(node, _EMPTY))

    flow = cfg.solve(graph, forward=False, transfer=transfer, join=_union, initial=_EMPTY,
                     boundary=_live_at_exit(effects.values()))
    for stmt in graph.statements():
        anno.set(stmt, Anno.LIVE_IN, _union([flow.before[n] for n in graph.entries_of(stmt)]))
        anno.set(stmt, Anno.LIVE_OUT, _union([flow.after[n] for n in graph.exits_of(stmt)]))


def _union(states: list[frozenset[QN]]) -> frozenset[QN]:
    return frozenset().union(*states)


def _live_at_exit(effects) -> frozenset[QN]:
    live: set[QN] = set()
    for effect in effects:
        live |= effect.globals | effect.nonlocals
        live |= {q for q in effect.modified | effect.deleted if q.is_composite}
    return frozenset(live)


def _closure_reads(graph: cfg.Graph) -> dict[cfg.Node, frozenset[QN]]:
    """Free variables of nested defs, at every node reachable from each def."""
    reads: dict[cfg.Node, frozenset[QN]] = {}
    for node in graph.nodes:
        if node.kind is cfg.Kind.STATEMENT and isinstance(
                node.ast_node, (gast.FunctionDef, gast.AsyncFunctionDef)):
            free = activity.body_scope(node.ast_node).free_vars
            for reached in _reachable(node):
                reads[reached] = reads.get(reached, _EMPTY) | free
    return reads


def _reachable(start: cfg.Node) -> list[cfg.Node]:
    seen = {start}
    stack = [start]
    while stack:
        for succ in stack.pop().next:
            if succ not in seen:
                seen.add(succ)
                stack.append(succ)
    return list(seen)
