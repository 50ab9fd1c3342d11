"""Which qualified names each piece of a function reads, writes and deletes.

Converters use this to decide what state a block of code threads through
(e.g. the variables an ``if`` modifies become the outputs of its functional
form). The analysis is syntactic and scope-aware:

* A store binds (``modified``); ``x += 1`` reads and modifies ``x``.
* ``a.b = 1`` and ``d['k'] = 1`` modify the composite and read its base (the
  object is mutated, the name ``a`` is not rebound). ``a[i] = 1`` is not a
  QN write: it only reads ``a`` and ``i``.
* Lambdas, comprehensions, nested functions and classes have their own
  scope. Their internal names do not leak; their free reads count as reads of
  the enclosing statement (a lambda or def is assumed to be used where it is
  defined). A nested def or class binds its name.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Optional

import gast

from transpiler import syntax_tree
from transpiler.analysis import annotations as anno
from transpiler.analysis import cfg
from transpiler.analysis import qual_names
from transpiler.analysis.annotations import Anno
from transpiler.analysis.qual_names import QN


@dataclasses.dataclass(eq=False)
class Scope:
    """Sets of QN touched by a piece of code (statement, block, function body)."""

    read: set[QN] = dataclasses.field(default_factory=set)
    modified: set[QN] = dataclasses.field(default_factory=set)
    deleted: set[QN] = dataclasses.field(default_factory=set)
    params: set[QN] = dataclasses.field(default_factory=set)
    globals: set[QN] = dataclasses.field(default_factory=set)
    nonlocals: set[QN] = dataclasses.field(default_factory=set)

    @property
    def bound(self) -> frozenset[QN]:
        """Names given a binding here: stores, imports, defs, deletions and parameters."""
        return frozenset(self.modified | self.deleted | self.params)

    @property
    def local_names(self) -> frozenset[QN]:
        """Simple names local to a function with this body scope."""
        return frozenset(q for q in self.bound if q.is_simple) - self.globals - self.nonlocals

    @property
    def free_vars(self) -> frozenset[QN]:
        """For a function body scope: what it reads from enclosing scopes at call time.

        Includes ``nonlocal`` names (read and written through the closure) and
        composites such as ``a.b`` whose base is free; excludes ``global`` ones.
        """
        local = self.local_names
        free = {q for q in self.read if q.base not in local and q.base not in self.globals}
        return frozenset(free | self.nonlocals)

    def __repr__(self) -> str:
        parts = [f"{f.name}={{{', '.join(sorted(map(str, getattr(self, f.name))))}}}"
                 for f in dataclasses.fields(self) if getattr(self, f.name)]
        return f"Scope({', '.join(parts)})"


def resolve(fn_node: gast.AST) -> Scope:
    """Annotate a FunctionDef or Lambda and the statements of its own scope.

    Sets ``Anno.SCOPE`` on each statement; ``COND_SCOPE``/``BODY_SCOPE``/
    ``ORELSE_SCOPE`` on If and While; ``ITERATE_SCOPE``/``BODY_SCOPE``/
    ``ORELSE_SCOPE`` on For; ``ARGS_SCOPE`` on calls; ``BODY_SCOPE`` on the
    function itself and on nested defs and lambdas (statements inside those
    are not annotated: resolve them separately).
    Returns the function's body scope (parameters included).
    """
    return _Visitor(annotate=True).function_scope(fn_node)


def analyze(*nodes: Optional[gast.AST]) -> Scope:
    """The scope of some nodes of a function (statements or expressions), unannotated.

    ``None`` entries are skipped, so optional fields can be passed directly.
    """
    return _Visitor(annotate=False).collect(n for n in nodes if n is not None)


def cfg_node_scope(node: cfg.Node) -> Scope:
    """The effect of executing one CFG node: what the dataflow analyses transfer."""
    if node.kind is cfg.Kind.ARGS:
        return Scope(params={QN(p.id) for p in _param_nodes(node.ast_node)})
    if node.kind is cfg.Kind.HANDLER_END:
        return Scope(deleted={QN(node.ast_node.name.id)})
    return analyze(*cfg.evaluated_parts(node))


def cfg_effects(graph: cfg.Graph) -> dict[cfg.Node, Scope]:
    """``cfg_node_scope`` of every node, computed once for all the dataflow analyses."""
    return {node: cfg_node_scope(node) for node in graph.nodes}


def body_scope(fn_node: gast.AST) -> Scope:
    """The scope of a function's parameters and body, without annotating anything.

    ``body_scope(f).free_vars`` is what a nested function reads from its parent.
    """
    body = [fn_node.body] if isinstance(fn_node, gast.Lambda) else fn_node.body
    return _Visitor(annotate=False).nested(body, _param_nodes(fn_node.args))


_CTX_FIELDS = {gast.Load: "read", gast.Store: "modified", gast.Del: "deleted",
               gast.Param: "params"}


class _Visitor(syntax_tree.NodeVisitor):
    """Records every name event into all active scopes (statement, block, ...)."""

    def __init__(self, annotate: bool):
        self.annotate = annotate
        self.active: list[Scope] = []
        self.walrus_sink: Optional[list[Scope]] = None  # Set inside comprehensions.
        # Nested functions by name -> the enclosing variables they assign through `nonlocal`:
        # calling one modifies those variables where the call is.
        self.closure_writes: dict[str, frozenset[QN]] = {}

    def record(self, field: str, qn: QN) -> None:
        for scope in self.active:
            getattr(scope, field).add(qn)

    def collect(self, nodes: Iterable[gast.AST]) -> Scope:
        scope = Scope()
        self.active.append(scope)
        for node in nodes:
            self.visit(node)
        self.active.pop()
        return scope

    def block(self, node: gast.AST, key: Anno, nodes: Iterable[gast.AST]) -> None:
        if self.annotate:
            anno.set(node, key, self.collect(nodes))
        else:  # the block's own scope would only be annotated: the active ones record it all
            for child in nodes:
                self.visit(child)

    def nested(self, nodes: Iterable[gast.AST], params: Iterable[gast.Name] = (),
               annotate: bool = False, sink: Optional[list[Scope]] = None) -> Scope:
        """Collect a nested scope without recording into the enclosing ones."""
        scope = Scope(params={QN(p.id) for p in params})
        saved = self.active, self.walrus_sink, self.annotate
        self.active, self.walrus_sink, self.annotate = [scope], sink, annotate
        try:
            for node in nodes:
                self.visit(node)
        finally:
            self.active, self.walrus_sink, self.annotate = saved
        return scope

    def visit(self, node: gast.AST) -> None:
        if self.annotate and isinstance(node, gast.stmt):
            anno.set(node, Anno.SCOPE, self.collect_one(node))
        else:
            super().visit(node)

    def collect_one(self, node: gast.AST) -> Scope:
        scope = Scope()
        self.active.append(scope)
        super().visit(node)
        self.active.pop()
        return scope

    # Names -----------------------------------------------------------------

    def record_ctx(self, ctx: gast.expr_context, qn: QN) -> None:
        self.record(_CTX_FIELDS[type(ctx)], qn)

    def visit_Name(self, node: gast.Name) -> None:
        self.record_ctx(node.ctx, QN(node.id))

    def visit_Attribute(self, node: gast.Attribute) -> None:
        qn = qual_names.from_node(node)
        if qn is not None:
            self.record_ctx(node.ctx, qn)
        self.visit(node.value)

    def visit_Subscript(self, node: gast.Subscript) -> None:
        qn = qual_names.from_node(node)
        if qn is not None:
            self.record_ctx(node.ctx, qn)
        self.visit(node.value)
        self.visit(node.slice)

    def visit_AugAssign(self, node: gast.AugAssign) -> None:
        self.visit(node.value)
        qn = qual_names.from_node(node.target)
        if qn is not None:
            self.record("read", qn)
        self.visit(node.target)

    def visit_AnnAssign(self, node: gast.AnnAssign) -> None:
        # Annotations of locals are never evaluated; `x: int` alone binds nothing.
        if node.value is not None:
            self.visit(node.value)
            self.visit(node.target)

    def visit_NamedExpr(self, node: gast.NamedExpr) -> None:
        self.visit(node.value)
        if self.walrus_sink is None:
            self.visit(node.target)
        else:  # In a comprehension, `:=` binds in the enclosing function.
            for scope in self.walrus_sink:
                scope.modified.add(QN(node.target.id))

    def visit_Global(self, node: gast.Global) -> None:
        for name in node.names:
            self.record("globals", QN(name))

    def visit_Nonlocal(self, node: gast.Nonlocal) -> None:
        for name in node.names:
            self.record("nonlocals", QN(name))

    def visit_Import(self, node: gast.Import) -> None:
        for alias in node.names:
            self.record("modified", QN(alias.asname or alias.name.split(".")[0]))

    def visit_ImportFrom(self, node: gast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self.record("modified", QN(alias.asname or alias.name))

    def visit_MatchAs(self, node: gast.MatchAs) -> None:
        self.generic_visit(node)
        if node.name is not None:
            self.record("modified", QN(node.name))

    def visit_MatchStar(self, node: gast.MatchStar) -> None:
        if node.name is not None:
            self.record("modified", QN(node.name))

    def visit_MatchMapping(self, node: gast.MatchMapping) -> None:
        self.generic_visit(node)
        if node.rest is not None:
            self.record("modified", QN(node.rest))

    # Blocks ------------------------------------------------------------------

    def visit_If(self, node: gast.If) -> None:
        self.block(node, Anno.COND_SCOPE, [node.test])
        self.block(node, Anno.BODY_SCOPE, node.body)
        self.block(node, Anno.ORELSE_SCOPE, node.orelse)

    visit_While = visit_If

    def visit_For(self, node: gast.For) -> None:
        self.block(node, Anno.ITERATE_SCOPE, [node.iter, node.target])
        self.block(node, Anno.BODY_SCOPE, node.body)
        self.block(node, Anno.ORELSE_SCOPE, node.orelse)

    visit_AsyncFor = visit_For

    def visit_Call(self, node: gast.Call) -> None:
        self.visit(node.func)
        self.block(node, Anno.ARGS_SCOPE, node.args + node.keywords)
        callee = _callee_name(node.func)
        for qn in self.closure_writes.get(callee, ()):
            self.record("modified", qn)

    # Nested scopes -------------------------------------------------------------

    def function_scope(self, node: gast.AST) -> Scope:
        """Scope of the analysed function: parameters and body, annotated."""
        body = [node.body] if isinstance(node, gast.Lambda) else node.body
        scope = self.nested(body, _param_nodes(node.args), annotate=True)
        anno.set(node, Anno.BODY_SCOPE, scope)
        return scope

    def visit_definition_time(self, node: gast.AST) -> None:
        """What a def/lambda evaluates where it is defined: defaults, annotations."""
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        if not isinstance(node, gast.Lambda):
            for param in _param_nodes(args):
                if param.annotation is not None:
                    self.visit(param.annotation)
            if node.returns is not None:
                self.visit(node.returns)
            for decorator in node.decorator_list:
                self.visit(decorator)

    def visit_FunctionDef(self, node: gast.FunctionDef) -> None:
        self.visit_definition_time(node)
        scope = self.nested_function(node, node.body)
        self.closure_writes[node.name] = frozenset(
            q for q in scope.nonlocals if q in scope.modified or q in scope.deleted)
        self.record("modified", QN(node.name))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: gast.Lambda) -> None:
        self.visit_definition_time(node)
        self.nested_function(node, [node.body])

    def nested_function(self, node: gast.AST, body: list[gast.AST]) -> Scope:
        scope = self.nested(body, _param_nodes(node.args))
        if self.annotate:
            anno.set(node, Anno.BODY_SCOPE, scope)
        for qn in scope.free_vars:
            self.record("read", qn)
        return scope

    def visit_ClassDef(self, node: gast.ClassDef) -> None:
        for expr in node.decorator_list + node.bases + node.keywords:
            self.visit(expr)
        for qn in self.nested(node.body).free_vars:
            self.record("read", qn)
        self.record("modified", QN(node.name))

    def visit_comprehension_expr(self, node: gast.AST, elts: list[gast.AST]) -> None:
        generators = node.generators
        self.visit(generators[0].iter)  # Evaluated in the enclosing scope.
        inner: list[gast.AST] = []
        for i, gen in enumerate(generators):
            inner += [gen.target] + ([gen.iter] if i else []) + gen.ifs
        # `:=` inside a comprehension binds in the enclosing function's scope.
        sink = self.walrus_sink if self.walrus_sink is not None else list(self.active)
        scope = self.nested(inner + elts, annotate=self.annotate, sink=sink)
        for qn in scope.free_vars:
            self.record("read", qn)

    def visit_ListComp(self, node: gast.ListComp) -> None:
        self.visit_comprehension_expr(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: gast.DictComp) -> None:
        self.visit_comprehension_expr(node, [node.key, node.value])


def _param_nodes(args: gast.arguments) -> list[gast.Name]:
    names = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return [n for n in names if n is not None]


def _callee_name(func: gast.AST) -> Optional[str]:
    """``f`` for ``f(...)``, and for ``ag__.converted(f)(...)`` (calls after conversion)."""
    if isinstance(func, gast.Call) and len(func.args) == 1 and isinstance(func.func, gast.Attribute) \
            and func.func.attr == "converted":
        func = func.args[0]
    return func.id if isinstance(func, gast.Name) else None
