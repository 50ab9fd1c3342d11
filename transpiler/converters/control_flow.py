"""Rewrites ``if``, ``while`` and ``for`` into ``ag__.if_stmt`` / ``while_stmt`` / ``for_stmt``.

    # if x > 0:
    def if_body():
        nonlocal y
        y = x
    def else_body():
        nonlocal y
        y = -x
    def get_state():
        return (y,)
    def set_state(state):
        nonlocal y
        (y,) = state
    ag__.if_stmt(x > 0, if_body, else_body, get_state, set_state, ('y',))

The state is what the block modifies and what is still needed: live after the block, or (for
loops) read by the next iteration. Bodies declare ``nonlocal`` every local they assign, so
plain Python values behave exactly as before; variables that may not exist yet start as
``ag__.Undefined`` at the top of the function, which keeps the ``nonlocal`` declarations valid.
"""

from __future__ import annotations

import copy

import gast

from transpiler import syntax_tree
from transpiler.analysis import activity, cfg, liveness, reaching_definitions
from transpiler.analysis import annotations as anno
from transpiler.analysis.annotations import Anno
from transpiler.analysis import qual_names
from transpiler.analysis.qual_names import QN
from transpiler.converters.base import (THUNK, StatementTransformer, assign, binds,
                                        comment_for, constant, extra_test, name, own_scope_walk,
                                        stamp_origin)
from transpiler.converters.loop_options import loop_options
from transpiler.templates import replace


class _ControlFlow(StatementTransformer):
    def __init__(self, ctx, fn_scope):
        super().__init__(ctx)
        self.locals = {str(q) for q in fn_scope.local_names}
        self.globals = {str(q) for q in fn_scope.globals}
        self.nonlocals = {str(q) for q in fn_scope.nonlocals}
        self.params = {str(q) for q in fn_scope.params}
        self.maybe_undefined: set[str] = set()  # state that may not exist when a block starts
        self.declared: set[str] = set()  # locals that generated functions declare nonlocal
        self.composites: set[str] = set()  # object parts carried as state (`p.x`, `d['k']`)
        self.stamped: set = set()  # statements emitted with an origin (see stamp_origin)
        self.state_param = ctx.namer.reserve("state")  # set_state's parameter, clash-free

    # -- helpers ----------------------------------------------------------------------------

    def _state(self, node, modified) -> tuple[list[str], int]:
        """State variables in call order (outputs first) and how many are outputs."""
        live_in = {str(q) for q in anno.get(node, Anno.LIVE_IN, frozenset())}
        live_out = {str(q) for q in anno.get(node, Anno.LIVE_OUT, frozenset())}
        defined = {str(q) for q in anno.get(node, Anno.DEFINED_IN, frozenset())}
        candidates = sorted(q for q in modified if self._is_variable(q) or q in self.composites)
        outputs = [q for q in candidates if _is_live(q, live_out)]
        inputs = [q for q in candidates if _is_live(q, live_in) and q not in outputs]
        for variable in outputs + inputs:
            if variable not in defined and variable in self.locals:
                self.maybe_undefined.add(variable)
        return outputs + inputs, len(outputs)

    def _outer(self, state: list[str]) -> list[str]:
        """State that may live beyond this call: globals, variables of enclosing code that is
        not converted along with this function, and parts of objects reached through them or
        through parameters. The operators refuse to leave a graph value there."""
        outer = []
        for text in state:
            qn = QN.from_string(text)
            root = str(qn.base)
            if root in self.globals:
                outer.append(text)
            elif root in self.params:
                if qn.is_composite:  # an argument's object: the operator checks where it is from
                    outer.append(text)
            elif root not in self.locals or root in self.nonlocals:
                if root not in self.ctx.enclosing_locals:
                    outer.append(text)
        return outer

    def _is_variable(self, text: str) -> bool:
        return text in self.locals or text in self.globals or text in self.nonlocals

    def _declarations(self, modified, exclude=()) -> list:
        """``global``/``nonlocal`` lines a body needs to assign these variables."""
        assigned = sorted(q for q in modified if self._is_variable(q) and q not in exclude)
        globals_ = [q for q in assigned if q in self.globals]
        nonlocals = [q for q in assigned if q not in self.globals]
        self.declared.update(q for q in nonlocals if q in self.locals)
        declarations = []
        if globals_:
            declarations.append(gast.Global(globals_))
        if nonlocals:
            declarations.append(gast.Nonlocal(nonlocals))
        return declarations

    def _function(self, fn_name: str, params: list[str], body: list) -> gast.FunctionDef:
        arguments = gast.arguments([gast.Name(p, gast.Param(), None, None) for p in params],
                                   [], None, [], [], None, [])
        return gast.FunctionDef(fn_name, arguments, body or [gast.Pass()], [], None, None)

    def _state_functions(self, state: list[str]) -> tuple[list, list]:
        """``get_state``/``set_state`` definitions and the arguments naming them."""
        if not state:
            return [], []
        get_name, set_name = self.ctx.namer.new("get_state"), self.ctx.namer.new("set_state")
        values = gast.Tuple([_state_expression(v) for v in state], gast.Load())
        targets = gast.Tuple([_state_expression(v, gast.Store()) for v in state], gast.Store())
        getter = self._function(get_name, [], [gast.Return(values)])
        setter = self._function(set_name, [self.state_param], self._declarations(state) + [
            gast.Assign([targets], name(self.state_param), None)])
        names = gast.Tuple([constant(v) for v in state], gast.Load())
        return [getter, setter], [name(get_name), name(set_name), names]

    def _modified(self, *scopes) -> set[str]:
        """Variables the blocks assign, plus parts of objects they change (``p.x``,
        ``d['k']``, ``v[0]``) when the blocks do not rebind the object's variable:
        those parts are carried as state too, so a graph branch or loop can change them."""
        assigned = set()
        for scope in scopes:
            if scope is not None:
                assigned |= scope.modified | scope.deleted
        names = {str(q) for q in assigned if q.is_simple}
        parts = {str(q) for q in assigned if q.is_composite and str(q.base) not in names}
        self.composites |= parts
        return names | parts

    # -- statements -------------------------------------------------------------------------

    def visit_If(self, node):
        mutated, staged = self._staged_lists(node.body + node.orelse, loop=False)
        node.body = self.visit_block(node.body)
        node.orelse = self.visit_block(node.orelse)
        modified = self._modified(anno.get(node, Anno.BODY_SCOPE, None),
                                  anno.get(node, Anno.ORELSE_SCOPE, None))
        state, nouts = self._state(node, modified | set(staged))
        declarations = self._declarations(modified)
        body_name = self.ctx.namer.new("if_body")
        definitions = [self._function(body_name, [], declarations + node.body)]
        orelse_arg = constant(None)
        if node.orelse:
            else_name = self.ctx.namer.new("else_body")
            definitions.append(self._function(else_name, [], self._declarations(modified) + node.orelse))
            orelse_arg = name(else_name)
        state_defs, state_args = self._state_functions(state)
        args = [node.test, name(body_name), orelse_arg] + state_args
        if state and nouts != len(state):
            args.append(constant(nouts))
        call = gast.Call(_ag("if_stmt"), args, _keywords(mutated, self._outer(state[:nouts]),
                                                         staged=staged))
        # Both branches end by returning (the function ends here): return the branch's value.
        returns = _ends_with_return(node.body) and _ends_with_return(node.orelse)
        statement = gast.Return(call) if returns else gast.Expr(call)
        return self._emit(node, definitions + state_defs + [statement])

    def _staged_lists(self, body: list, loop: bool = True) -> tuple[list[str], list[str]]:
        """The objects a block changes in place, split into those it may not change and the
        lists it only appends to: local lists that graph control flow can carry as staged
        lists (``out = []``, then ``out.append(v)`` in a loop, ``rt.stack(out)`` after it).
        A loop body may not read such a list otherwise (each iteration would need the list so
        far); the branches of an ``if`` may."""
        mutated = _mutated_objects(body)
        appended = {m[:-len(".append")] for m in mutated if m.endswith(".append")}
        staged = sorted(
            n for n in appended
            if n in self.locals and n not in self.params and n not in self.ctx.enclosing_locals
            and all(m == f"{n}.append" for m in mutated if m.startswith(f"{n}."))
            and (not loop or _only_appended(body, n)))
        return [m for m in mutated if m.rpartition(".")[0] not in staged], staged

    def _visit_loop_body(self, statements: list) -> tuple[list, set, set]:
        """The converted body, and the variables its nested closures declared `nonlocal` or
        found possibly undefined (so the loop can keep its temporaries to itself)."""
        declared, maybe_undefined = set(self.declared), set(self.maybe_undefined)
        body = self.visit_block(statements)
        inner = (self.declared - declared, self.maybe_undefined - maybe_undefined)
        self.declared, self.maybe_undefined = declared, maybe_undefined
        return body, *inner

    def _loop_function(self, name_: str, params: list[str], body: list, modified: set,
                       state: list, inner_declared: set, inner_maybe: set,
                       captured: set) -> gast.FunctionDef:
        """The loop body as a function. Variables that live only within one iteration (not
        state) stay local to it, with a placeholder value when nested closures need one; those
        that the user's own closures capture stay variables of the function, as in Python
        (a lambda made in a loop sees the variable's last value, not its value back then)."""
        temporaries = {q for q in modified if q in self.locals} - set(state) - set(params) \
            - captured
        self.declared |= inner_declared - temporaries
        self.maybe_undefined |= inner_maybe - temporaries
        bound = {n.id for n in own_scope_walk(body) if isinstance(n, gast.Name)
                 and isinstance(n.ctx, gast.Store)}
        unbound = sorted(temporaries & ((inner_declared - bound) | inner_maybe))
        inits = [s for variable in unbound for s in replace(
            "__tpl_var = ag__.Undefined(__tpl_text)", var=variable, text=constant(variable))]
        declarations = self._declarations(modified - temporaries, exclude=set(params))
        return self._function(name_, params, declarations + inits + body)

    def visit_While(self, node):
        mutated, staged = self._staged_lists(node.body)
        captured = _captured_by_closures(node.body)
        node.body, inner_declared, inner_maybe = self._visit_loop_body(node.body)
        modified = self._modified(anno.get(node, Anno.BODY_SCOPE, None))
        state, _ = self._state(node, modified | set(staged))
        test_name, body_name = self.ctx.namer.new("loop_test"), self.ctx.namer.new("loop_body")
        definitions = [self._function(test_name, [], [gast.Return(node.test)]),
                       self._loop_function(body_name, [], node.body, modified, state,
                                           inner_declared, inner_maybe, captured)]
        state_defs, state_args = self._state_functions(state)
        call = gast.Expr(gast.Call(_ag("while_stmt"), [name(test_name), name(body_name)] + state_args,
                                   _keywords(mutated, self._outer(state), loop_options(node),
                                             staged)))
        return self._emit(node, definitions + state_defs + [call])

    def visit_For(self, node):
        if node.body and getattr(node.body[0], _MARKER, False):
            node.body = node.body[1:]
        mutated, staged = self._staged_lists(node.body)
        captured = _captured_by_closures(node.body)
        node.body, inner_declared, inner_maybe = self._visit_loop_body(node.body)
        modified = self._modified(anno.get(node, Anno.BODY_SCOPE, None),
                                  anno.get(node, Anno.ITERATE_SCOPE, None))
        state, _ = self._state(node, modified | set(staged))
        target = node.target
        if isinstance(target, gast.Name) and target.id not in state and target.id not in self.globals \
                and target.id not in self.nonlocals and target.id not in captured:
            parameter, body = target.id, node.body
        else:
            parameter = self.ctx.namer.new("item")
            body = [gast.Assign([target], name(parameter), None)] + node.body
        body_name = self.ctx.namer.new("loop_body")
        definitions = [self._loop_function(body_name, [parameter], body, modified, state,
                                           inner_declared, inner_maybe, captured)]
        test_arg = constant(None)
        condition = extra_test(node)
        if condition is not None:
            test_name = self.ctx.namer.new("loop_test")
            definitions.insert(0, self._function(test_name, [], [gast.Return(condition)]))
            test_arg = name(test_name)
        state_defs, state_args = self._state_functions(state)
        args = [node.iter, test_arg, name(body_name)] + state_args
        call = gast.Expr(gast.Call(_ag("for_stmt"), args,
                                   _keywords(mutated, self._outer(state), loop_options(node),
                                             staged)))
        return self._emit(node, definitions + state_defs + [call])

    def _emit(self, node, statements: list) -> list:
        stamp_origin(statements, node, self.stamped)
        return comment_for(node) + statements


# Methods that change the object they are called on (lists, dicts, sets).
_MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear", "update",
                               "add", "discard", "setdefault", "popitem", "sort", "reverse"})


def _mutated_objects(statements: list) -> list[str]:
    """Objects from outside ``statements`` that they change in place (``out.append(v)``):
    a graph traces a body once, so such a change would happen once, not per run of it."""
    assigned, calls = set(), []
    for node in own_scope_walk(statements):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            assigned.add(node.id)
        elif isinstance(node, gast.Call):
            calls.append(node)
    mutated = set()
    for node in calls:
        method = _called_method(node)
        if method is not None and method.attr in _MUTATING_METHODS:
            target = qual_names.from_node(method.value)
            if target is not None and str(target.base) not in assigned:
                mutated.add(f"{target}.{method.attr}")
    return sorted(mutated)


def _captured_by_closures(statements: list) -> set[str]:
    """Names that lambdas and functions defined in ``statements`` read (a superset of what
    they capture from the enclosing function: only used to keep such names function-wide)."""
    captured = set()
    for node in own_scope_walk(statements):
        if getattr(node, THUNK, False):
            captured |= _captured_by_closures([node.body])
        elif isinstance(node, (gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef)):
            captured |= {n.id for n in syntax_tree.walk(node) if isinstance(n, gast.Name)}
    return captured


def _only_appended(statements: list, variable: str) -> bool:
    """Whether every use of ``variable`` in ``statements`` is a call of its ``append``."""
    appending = {id(method.value) for node in own_scope_walk(statements)
                 if isinstance(node, gast.Call)
                 for method in [_called_method(node)] if method is not None
                 and method.attr == "append" and isinstance(method.value, gast.Name)}
    uses = [node for node in syntax_tree.walk(gast.Module(body=list(statements), type_ignores=[]))
            if isinstance(node, gast.Name) and node.id == variable]
    return all(id(node) in appending for node in uses)


def _called_method(call: gast.Call) -> gast.Attribute | None:
    """``o.m`` for ``o.m(...)`` and for ``ag__.converted(o.m)(...)``."""
    func = call.func
    if isinstance(func, gast.Call) and isinstance(func.func, gast.Attribute) \
            and func.func.attr == "converted" and len(func.args) == 1:
        func = func.args[0]
    return func if isinstance(func, gast.Attribute) else None


def _keywords(mutates: list[str], outer: list[str], options: gast.expr | None = None,
              staged: list[str] = ()) -> list:
    """``mutates=(...)``, ``outer=(...)``, ``opts=...`` and ``staged=(...)``, each only when
    there is one."""
    keywords = [gast.keyword(keyword, gast.Tuple([constant(v) for v in values], gast.Load()))
                for keyword, values in (("mutates", mutates), ("outer", outer)) if values]
    if options is not None:
        keywords.append(gast.keyword("opts", options))
    if staged:
        keywords.append(gast.keyword("staged", gast.Tuple([constant(v) for v in staged],
                                                          gast.Load())))
    return keywords


def _ends_with_return(statements: list) -> bool:
    return bool(statements) and isinstance(statements[-1], gast.Return)


def _is_live(text: str, live: set[str]) -> bool:
    """A variable is live if its name is; a part ``p.x`` also if ``p`` or ``p.x`` is."""
    qn = QN.from_string(text)
    return text in live or any(str(owner) in live for owner in qn.owner_set)


def _state_expression(text: str, ctx=None) -> gast.expr:
    """``x``, ``p.x`` or ``d['k']`` as an expression (a target when ``ctx`` is Store)."""
    expression = QN.from_string(text).ast()
    if ctx is not None:
        expression.ctx = ctx
    return expression


def _ag(attribute: str) -> gast.Attribute:
    return gast.Attribute(name("ag__"), attribute, gast.Load())


_MARKER = "_e2g_extra_test_read"


def _expose_extra_tests(fn_node) -> None:
    """A ``for`` loop's extra test (``not break_``) runs before every iteration; a copy at the
    top of the body lets the analyses see that read, so the flags are carried as loop state."""
    for node in own_scope_walk(fn_node.body, blocks_only=True):
        condition = extra_test(node) if isinstance(node, gast.For) else None
        if condition is not None:
            marker = gast.Expr(copy.deepcopy(condition))
            setattr(marker, _MARKER, True)
            node.body.insert(0, marker)


# The statements this converter rewrites, and `del`, after which reads must raise as in Python
# (``variables`` wraps them): only functions with one of them need the data-flow analyses.
_NEEDS_ANALYSES = (gast.If, gast.While, gast.For, gast.Delete)


def needs_analyses(fn_node: gast.FunctionDef) -> bool:
    """False for straight-line code (most loss functions and layers): nothing to rewrite, and
    every read of a variable finds it bound or fails as Python fails. The analyses were a third
    of the time converting such a function took."""
    return any(isinstance(node, _NEEDS_ANALYSES)
               for node in own_scope_walk(fn_node.body, blocks_only=True))


class _TestsThatBind(StatementTransformer):
    """A ``while`` test that binds a variable (``while (n := n // 2) > 0``) is evaluated into a
    flag before the loop and again at the end of each iteration, as Python evaluates it: the
    loop's test then only reads state (a staged loop's test cannot change it), and the
    variable is state that the body changes."""

    def visit_While(self, node):
        node.body = self.visit_block(node.body)
        if not binds(node.test):
            return node
        flag = self.ctx.namer.new("loop_condition")
        before = stamp_origin([assign(flag, node.test)], node)
        node.body.extend(stamp_origin([assign(flag, copy.deepcopy(node.test))], node))
        node.test = name(flag)
        return before + [node]


def transform(fn_node: gast.FunctionDef, ctx) -> None:
    analysed = needs_analyses(fn_node)
    anno.set(fn_node, Anno.ANALYSED, analysed)
    if not analysed:
        return
    _expose_extra_tests(fn_node)
    fn_node.body = _TestsThatBind(ctx).visit_block(fn_node.body)
    fn_scope = activity.resolve(fn_node)
    graph = cfg.build(fn_node)
    effects = activity.cfg_effects(graph)
    reaching_definitions.resolve(fn_node, graph, effects)
    liveness.resolve(fn_node, graph, effects)
    converter = _ControlFlow(ctx, fn_scope)
    body = converter.visit_block(fn_node.body)
    # A `nonlocal x` needs `x` bound in the function itself; state read before any assignment
    # needs a placeholder value. Both get `x = ag__.Undefined('x')` at the top.
    bound_here = {node.id for node in own_scope_walk(body)
                  if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store)}
    unbound = sorted((converter.maybe_undefined | (converter.declared - bound_here))
                     - converter.params)
    docstring = body[:1] if body and isinstance(body[0], gast.Expr) and isinstance(
        body[0].value, gast.Constant) and isinstance(body[0].value.value, str) else []
    inits = [s for variable in unbound for s in replace(
        "__tpl_var = ag__.Undefined(__tpl_text)", var=variable, text=constant(variable))]
    fn_node.body = docstring + inits + body[len(docstring):]
