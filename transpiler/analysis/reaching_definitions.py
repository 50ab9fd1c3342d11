"""Which names are (maybe) defined at each point of a function.

Converters need this to know when a variable that a block assigns might not
exist yet before the block (it then needs a placeholder), and whether a read
of a local can fail with ``UnboundLocalError``.

A forward dataflow analysis over the CFG with two sets per point: names
defined on *all* paths (intersection at joins) and on *some* path (union).
Parameters, stores, imports, defs and ``except ... as`` bind; ``del`` and the
implicit delete at the end of an ``except ... as`` block unbind; rebinding
``a`` also forgets what was known about ``a.b``. Unreachable code (after a
``return``, say) has nothing defined.
"""

from __future__ import annotations

from typing import Iterator, Optional

import gast

from transpiler import syntax_tree
from transpiler.analysis import activity
from transpiler.analysis import annotations as anno
from transpiler.analysis import cfg
from transpiler.analysis.annotations import Anno
from transpiler.analysis.qual_names import QN

# (definitely defined, maybe defined); None marks a point no path reaches yet.
_State = Optional[tuple[frozenset[QN], frozenset[QN]]]
_EMPTY: frozenset[QN] = frozenset()


def resolve(fn_node: gast.AST, graph: Optional[cfg.Graph] = None,
            effects: Optional[dict] = None) -> None:
    """Annotate a FunctionDef or Lambda with what is defined where.

    Sets ``Anno.DEFINED_IN`` and ``Anno.MAYBE_DEFINED_IN`` on every statement of
    the function's own scope (the state on entry to the statement; for a loop,
    from the code before it, not from its back edge), and ``Anno.DEFINED_AT_READ``
    on every Name load of one of the function's locals. ``graph`` and ``effects``
    (``activity.cfg_effects(graph)``) may come from the caller, who shares them with
    liveness.
    """
    if graph is None:
        graph = cfg.build(fn_node)
    if effects is None:
        effects = activity.cfg_effects(graph)
    flow = cfg.solve(graph, forward=True, transfer=lambda n, s: _transfer(effects[n], s),
                     join=_join, initial=None, boundary=(_EMPTY, _EMPTY))

    for stmt in graph.statements():
        state = _join([flow.before[n] for n in graph.entries_of(stmt)])
        definite, maybe = state or (_EMPTY, _EMPTY)
        anno.set(stmt, Anno.DEFINED_IN, definite)
        anno.set(stmt, Anno.MAYBE_DEFINED_IN, maybe)

    # A read inside a `finally` has two CFG nodes; it is safe only if safe in both.
    local = _local_names(effects.values())
    # Unreachable copies do not count; a read no path reaches is not known safe.
    safe: dict[gast.Name, Optional[bool]] = {}
    for node in graph.nodes:
        state = flow.before[node]
        for part in cfg.evaluated_parts(node):
            for name in _own_loads(part, frozenset()):
                if state is None:
                    safe.setdefault(name, None)
                else:
                    safe[name] = safe.get(name) is not False and QN(name.id) in state[0]
    for name, is_safe in safe.items():
        if QN(name.id) in local:
            anno.set(name, Anno.DEFINED_AT_READ, bool(is_safe))
        else:
            anno.delete(name, Anno.DEFINED_AT_READ)


def _transfer(effect: activity.Scope, state: _State) -> _State:
    if state is None:
        return None
    rebound = effect.modified | effect.deleted | effect.params
    if not rebound:
        return state
    definite, maybe = state

    def survives(qn: QN) -> bool:
        # Rebinding `a` makes `a.b` refer to another object: forget it.
        return qn not in effect.deleted and not (qn.owner_set & rebound)

    gen = effect.modified | effect.params
    definite = frozenset(q for q in definite if survives(q)) | gen
    maybe = frozenset(q for q in maybe if survives(q)) | gen
    return definite, maybe


def _join(states: list[_State]) -> _State:
    reached = [s for s in states if s is not None]
    if not reached:
        return None
    definite = frozenset.intersection(*(d for d, _ in reached))
    maybe = frozenset.union(*(m for _, m in reached))
    return definite, maybe


def _local_names(effects) -> frozenset[QN]:
    """Simple names bound in the function's own scope and not declared global/nonlocal."""
    bound: set[QN] = set()
    declared: set[QN] = set()
    for effect in effects:
        bound |= {q for q in effect.bound if q.is_simple}
        declared |= effect.globals | effect.nonlocals
    return frozenset(bound - declared)


def _own_loads(node: gast.AST, shadowed: frozenset[str]) -> Iterator[gast.Name]:
    """Name loads evaluated in the function's own scope, minus comprehension variables.

    Bodies of nested defs, lambdas and classes run elsewhere (or later) and are
    skipped; their defaults, decorators and bases are evaluated here.
    """
    if isinstance(node, gast.Name):
        if isinstance(node.ctx, gast.Load) and node.id not in shadowed:
            yield node
        return
    if isinstance(node, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda)):
        args = node.args
        parts = args.defaults + [d for d in args.kw_defaults if d is not None]
        if not isinstance(node, gast.Lambda):
            parts += node.decorator_list + ([node.returns] if node.returns else [])
            params = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
            parts += [p.annotation for p in params if p is not None and p.annotation]
    elif isinstance(node, gast.ClassDef):
        parts = node.decorator_list + node.bases + node.keywords
    elif isinstance(node, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)):
        yield from _comprehension_loads(node, shadowed)
        return
    else:
        parts = syntax_tree.child_nodes(node)
    for part in parts:
        yield from _own_loads(part, shadowed)


def _comprehension_loads(node: gast.AST, shadowed: frozenset[str]) -> Iterator[gast.Name]:
    yield from _own_loads(node.generators[0].iter, shadowed)
    inner = shadowed | {n.id for gen in node.generators for n in syntax_tree.walk(gen.target)
                        if isinstance(n, gast.Name)}
    for i, gen in enumerate(node.generators):
        for part in ([gen.iter] if i else []) + gen.ifs:
            yield from _own_loads(part, inner)
    elts = [node.key, node.value] if isinstance(node, gast.DictComp) else [node.elt]
    for elt in elts:
        yield from _own_loads(elt, inner)
