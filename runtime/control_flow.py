"""Functional control flow: ``cond`` and ``while_loop``.

Eagerly they are plain Python ``if`` and ``while``. While tracing, each branch or the loop's
condition and body is traced once into a subgraph; values of enclosing graphs they read become
explicit inputs (captures). The checks that make graph control flow safe live here: branch
outputs must agree in structure and dtype (differing shapes are joined to ``None``), loop
variables must keep structure, dtype and (within ``shape_invariants``) shape. Messages name the
variable, so the transpiler passes the user's variable names through ``names``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from runtime import dtypes, nest, tracing
from runtime.autodiff.replay import substitute
from runtime.errors import GraphStructureError, GraphTypeError, GraphValueError, ShapeError
from runtime.graph import Graph
from runtime.ops import math_ops
from runtime.ops.array_ops import cast, checked_cast, convert_to_tensor, reshape
from runtime.ops.dispatch import constant_in_graph
from runtime.ops.registry import COND, WHILE_LOOP
from runtime.source_location import user_location
from runtime.tensor import (EagerTensor, SymbolicTensor, Tensor, TensorShape, TensorSpec,
                            format_shape, join_shapes, shape_is_subtype)


def _where() -> str:
    location = user_location()
    return f" (at {location})" if location else ""


class Unset:
    """A branch output that nothing reads afterwards, such as a function's return value on a
    path that has not returned yet. ``cond`` gives it the other branch's type (as zeros), so
    the two branches agree without the user inventing a value."""

    __slots__ = ()


# -- predicates ----------------------------------------------------------------------------


def is_symbolic(value) -> bool:
    return type(value) is SymbolicTensor


def python_truth(value, construct: str) -> bool:
    """Truth of a concrete condition; a non-scalar tensor is ambiguous and rejected."""
    if isinstance(value, (EagerTensor, np.ndarray)) and np.ndim(value) != 0:
        raise ValueError(
            f"the condition of {construct} must be a scalar, got a tensor of shape "
            f"{format_shape(np.shape(value))}{_where()}. Reduce it with rt.reduce_all or "
            f"rt.reduce_any to say which truth you mean.")
    return bool(value)


def scalar_condition(value: SymbolicTensor, construct: str) -> SymbolicTensor:
    """A bool scalar from a symbolic condition: numbers mean ``!= 0``; non-scalars are errors."""
    if value.shape is None:
        value = reshape(value, ())
    elif value.shape != ():
        raise ValueError(
            f"the condition of {construct} must be a scalar, got a tensor of shape "
            f"{format_shape(value.shape)} ({value.name}){_where()}. Reduce it with rt.reduce_all "
            f"or rt.reduce_any to say which truth you mean.")
    if value.dtype != dtypes.bool_:
        value = math_ops.not_equal(value, 0)
    return value


# -- converting structure leaves to graph values -------------------------------------------


def _leaf_to_graph(leaf, graph: Graph, dtype: np.dtype | None = None) -> SymbolicTensor:
    if type(leaf) is SymbolicTensor:
        return leaf if leaf.graph is graph else graph.capture(substitute(leaf))
    if type(leaf) is EagerTensor:
        return constant_in_graph(graph, leaf._value, key_object=leaf)
    read = getattr(leaf, "_read_value_for_op", None)
    if read is not None:
        with tracing.building(graph):
            return read()
    if dtype is None and isinstance(leaf, dtypes.PYTHON_SCALARS):
        dtype = dtypes.python_number_dtype(leaf)
    return constant_in_graph(graph, dtypes.to_array(leaf, dtype))


def _is_static(leaf) -> bool:
    """Leaves that stay Python values in outputs (they cannot become tensors)."""
    return leaf is None or not (isinstance(leaf, (Tensor, np.ndarray, np.generic) + dtypes.PYTHON_SCALARS)
                                or hasattr(leaf, "_read_value_for_op"))


def _name_of(names: Sequence[str] | None, paths: list[str], index: int, default: str) -> str:
    if names is not None and index < len(names):
        return names[index]
    return f"{default}{paths[index]}"


# -- cond ----------------------------------------------------------------------------------


def cond(pred, true_fn: Callable[[], Any], false_fn: Callable[[], Any], *,
         names: Sequence[str] | None = None):
    """``true_fn() if pred else false_fn()``; in a graph only the taken branch runs.

    ``names`` optionally names the outputs (in flattened order) for error messages.
    """
    if not is_symbolic(pred):
        return true_fn() if python_truth(pred, "rt.cond") else false_fn()
    graph = tracing.current_graph()
    pred = scalar_condition(graph.capture(pred) if pred.graph is not graph else pred, "rt.cond")
    location = user_location()
    then_graph, then_out = _trace_branch(graph, true_fn, "then")
    else_graph, else_out = _trace_branch(graph, false_fn, "else")
    then_out = _fill_unset(then_out, else_out, then_graph)
    else_out = _fill_unset(else_out, then_out, else_graph)
    structure = _check_same_structure(then_out, else_out, names)
    then_leaves, else_leaves = nest.flatten(then_out), nest.flatten(else_out)
    paths = nest.leaf_paths(then_out)
    dynamic = []
    for index, (a, b) in enumerate(zip(then_leaves, else_leaves)):
        name = _name_of(names, paths, index, "output")
        if _is_static(a) or _is_static(b):
            _check_static_pair(a, b, name)
            continue
        dynamic.append((index, *_branch_values(a, b, then_graph, else_graph, name)))
    then_graph.outputs = [t for _, t, _, _ in dynamic]
    else_graph.outputs = [e for _, _, e, _ in dynamic]
    _hoist_variable_reads([then_graph, else_graph], graph)
    inputs = _unify_captures([then_graph, else_graph], leading=0)
    out_types = [(t.dtype, join_shapes(t.shape, e.shape)) for _, t, e, _ in dynamic]
    node = graph.add_node(COND, [pred] + inputs, {}, out_types,
                          subgraphs={"then": then_graph, "else": else_graph}, location=location)
    leaves = list(then_leaves)
    for (index, _, _, weak), value in zip(dynamic, node.outputs):
        value.weak = weak  # a Python number on both paths is one after the cond too
        leaves[index] = value
    return nest.pack_like(structure, leaves)


def _trace_branch(graph: Graph, fn: Callable, label: str) -> tuple[Graph, Any]:
    branch = Graph(f"{graph.name}/{label}", parent=graph)
    with tracing.building(branch):
        result = fn()
    return branch, result


def _fill_unset(out, other, graph: Graph):
    """``out`` with each ``Unset`` replaced by zeros shaped like the matching part of ``other``
    (unknown dimensions become 0: the value is never read)."""
    if isinstance(out, Unset):
        if isinstance(other, Unset):
            return out
        return nest.map_structure(lambda leaf: zeros_like_leaf(leaf, graph), other)
    if isinstance(out, (tuple, list, dict)) and type(out) is type(other) and len(out) == len(other):
        if isinstance(out, dict):
            return {k: _fill_unset(v, other.get(k), graph) for k, v in out.items()}
        parts = [_fill_unset(a, b, graph) for a, b in zip(out, other)]
        return type(out)(*parts) if nest.is_namedtuple(out) else type(out)(parts)
    return out


def zeros_like_leaf(leaf, graph: Graph | None = None):
    """A zero of ``leaf``'s kind: the same Python scalar type (also for a tensor standing for
    a Python number), or a constant tensor of its dtype and shape (unknown dimensions as 0);
    other Python values are kept as they are."""
    if isinstance(leaf, dtypes.PYTHON_SCALARS):
        return type(leaf)(0)
    if getattr(leaf, "weak", False) and leaf.shape == ():
        return {"b": False, "f": 0.0, "c": 0j}.get(leaf.dtype.kind, 0)
    if isinstance(leaf, Tensor):
        shape = tuple(0 if d is None else d for d in (leaf.shape or ()))
        zeros = np.zeros(shape, leaf.dtype)
        return constant_in_graph(graph, zeros) if graph is not None else EagerTensor(zeros)
    return leaf


def _check_same_structure(a, b, names) -> Any:
    if nest.structure_of(a) != nest.structure_of(b):
        what = f" for {', '.join(repr(n) for n in names)}" if names else ""
        raise GraphStructureError(
            f"the two branches of a tensor conditional{what} return different structures: the "
            f"true branch gives {nest.describe_structure(a)} and the false branch gives "
            f"{nest.describe_structure(b)}{_where()}. A conditional must return the same nested "
            f"structure in both branches.")
    return a


def _check_static_pair(a, b, name: str) -> None:
    if a is None and b is None:
        return
    if a is None or b is None:
        branch = "true" if a is None else "false"
        raise GraphValueError(
            f"'{name}' is None in the {branch} branch of a tensor conditional but a value in the "
            f"other{_where()}. Give it a value in both branches.")
    if _is_static(a) and _is_static(b) and (a is b or _safe_equal(a, b)):
        return
    raise GraphTypeError(
        f"'{name}' is {_describe(a)} in the true branch and {_describe(b)} in the false branch of "
        f"a tensor conditional{_where()}; a graph can only choose between tensors, so make both "
        f"branches produce numbers or tensors of the same dtype.")


def _safe_equal(a, b) -> bool:
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:
        return False


def _describe(value) -> str:
    if getattr(value, "weak", False):
        return f"a Python {_python_kind(value)} (the tensor {value.name})"
    if isinstance(value, Tensor):
        return f"a tensor of dtype {value.dtype.name}"
    return f"the Python {type(value).__name__} {value!r}"


def _python_kind(value) -> str:
    """The Python type a Python number, or a tensor standing for one, has."""
    if isinstance(value, dtypes.PYTHON_SCALARS):
        return type(value).__name__
    return {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[value.dtype.kind]


def _branch_values(a, b, then_graph: Graph, else_graph: Graph, name: str):
    """Both branch leaves as tensors of one dtype, and whether the result stands for a Python
    number. Python numbers and tensors standing for them (loop counters) are weakly typed:
    next to a tensor they take its dtype where their kind fits, as in arithmetic."""
    type_a, type_b = dtypes.operand_type(a), dtypes.operand_type(b)
    weak_a, weak_b = isinstance(type_a, dtypes.WeakType), isinstance(type_b, dtypes.WeakType)
    if weak_a and weak_b and _python_kind(a) != _python_kind(b):
        # Python's answer would be an int on one path and a float on the other: no one tensor
        # dtype gives both.
        raise GraphTypeError(
            f"'{name}' is {_describe(a)} in the true branch but {_describe(b)} in the false "
            f"branch of a tensor conditional{_where()}; Python would give a different type on "
            f"each path, which one graph value cannot. Make both the same type (e.g. "
            f"{_same_type_hint(a, b)}).")
    joined = dtypes.promote_types(type_a, type_b)[0]
    dtype_a = joined if weak_a else type_a
    dtype_b = joined if weak_b else type_b
    if dtype_a != dtype_b:
        raise GraphTypeError(
            f"'{name}' has dtype {dtype_a.name} in the true branch but {dtype_b.name} in the false "
            f"branch of a tensor conditional{_where()}; both branches must give the same dtype "
            f"(convert one of them with rt.cast).")
    return (_as_value_of(a, then_graph, dtype_a), _as_value_of(b, else_graph, dtype_b),
            weak_a and weak_b)


def _same_type_hint(a, b) -> str:
    if "float" in (_python_kind(a), _python_kind(b)):
        return "write 1.0 instead of 1"
    return "write 1 instead of True"


def _as_value_of(leaf, graph: Graph, dtype: np.dtype) -> SymbolicTensor:
    """``leaf`` as a value of ``graph`` with ``dtype``; a tensor standing for a Python number
    converts as that number would (a narrowing integer conversion is checked at run time)."""
    if not isinstance(leaf, Tensor) or leaf.dtype == dtype:
        return _leaf_to_graph(leaf, graph, dtype)
    with tracing.building(graph):
        narrowing = leaf.dtype.kind in "iu" and dtype.kind in "iu" \
            and not np.can_cast(leaf.dtype, dtype, "safe")
        return (checked_cast if narrowing else cast)(_leaf_to_graph(leaf, graph), dtype)


def _hoist_variable_reads(subgraphs: list[Graph], graph: Graph) -> None:
    """Reads of variables that none of ``subgraphs`` assigns move out, before the control
    flow node: they give the same value there, once instead of per iteration, and a gradient
    with respect to the variable then flows through the node's inputs like any value's."""
    assigned = {id(node.attrs["variable"]) for sub in subgraphs for node in sub.walk()
                if node.effect and "variable" in node.attrs and not node.op.reads_variable}
    hoisted: dict[int, SymbolicTensor] = {}
    for sub in subgraphs:
        replaced = {}
        for node in sub.nodes:
            variable = node.attrs.get("variable") if node.op.reads_variable else None
            if variable is None or id(variable) in assigned:
                continue
            if id(variable) not in hoisted:
                with tracing.building(graph):
                    hoisted[id(variable)] = variable.value()
            replaced[id(node.outputs[0])] = sub.capture(hoisted[id(variable)])
        if replaced:
            _replace_values(sub, replaced)


def _replace_values(graph: Graph, replaced: dict) -> None:
    """Makes ``graph`` read the values ``replaced`` maps to instead of the nodes making them
    (which are removed)."""
    graph.nodes = [node for node in graph.nodes
                   if not any(id(v) in replaced for v in node.outputs)]
    for node in graph.nodes:
        node.inputs = [replaced.get(id(v), v) for v in node.inputs]
        for sub in node.subgraphs.values():
            sub.captures = [(replaced.get(id(outer), outer), inner) for outer, inner in sub.captures]
    graph.outputs = [replaced.get(id(v), v) for v in graph.outputs]


def _unify_captures(subgraphs: list[Graph], leading: int) -> list[SymbolicTensor]:
    """Gives all subgraphs the same parameters: their first ``leading`` ones, then the union
    of everything any of them captured (a subgraph that does not read a capture ignores it)."""
    union: list[SymbolicTensor] = []
    seen: set[int] = set()
    for sub in subgraphs:
        for outer, _ in sub.captures:
            if id(outer) not in seen:
                seen.add(id(outer))
                union.append(outer)
    for sub in subgraphs:
        own = {id(outer): placeholder for outer, placeholder in sub.captures}
        params = sub.inputs[:leading]
        captures = []
        for position, outer in enumerate(union):
            placeholder = own.get(id(outer))
            if placeholder is None:
                placeholder = sub.add_placeholder(outer.dtype, outer.shape, f"capture{len(sub.captures) + position}")
            captures.append((outer, placeholder))
        sub.captures = captures
        sub.inputs = params + [p for _, p in captures]
    return union


# -- while_loop ----------------------------------------------------------------------------


def while_loop(cond: Callable, body: Callable, loop_vars, maximum_iterations=None,
               shape_invariants=None, *, names: Sequence[str] | None = None,
               parallel_iterations=None, back_prop: bool = True, swap_memory: bool = False,
               name=None):
    """``while cond(*vars): vars = body(*vars)``, at most ``maximum_iterations`` times.

    ``loop_vars`` is a tuple or list (unpacked into ``cond`` and ``body``) or a single value;
    leaves may be nested in tuples, lists, dicts and namedtuples. ``shape_invariants`` has the
    same structure, with a shape (``None`` dims allowed) or ``None`` for each tensor.
    ``parallel_iterations``, ``back_prop``, ``swap_memory`` and ``name`` are accepted, by
    keyword, for TensorFlow's sake; they change nothing here.
    """
    unpack = isinstance(loop_vars, (tuple, list)) and not nest.is_namedtuple(loop_vars)
    call = (lambda fn, values: fn(*values)) if unpack else (lambda fn, values: fn(values))
    if not tracing.is_tracing():
        return _eager_while(cond, body, loop_vars, maximum_iterations, call)
    return _graph_while(cond, body, loop_vars, maximum_iterations, shape_invariants, names, call)


def _eager_while(cond, body, loop_vars, maximum_iterations, call):
    limit = None if maximum_iterations is None else int(maximum_iterations)
    # Python numbers become tensors, as TensorFlow's while_loop makes them eagerly too.
    loop_vars = nest.map_structure(
        lambda leaf: convert_to_tensor(leaf) if type(leaf) in (bool, int, float) else leaf,
        loop_vars)
    values, count = loop_vars, 0
    while (limit is None or count < limit) and python_truth(call(cond, values), "rt.while_loop"):
        values = _as_loop_vars(call(body, values), loop_vars)
        count += 1
    return values


def _as_loop_vars(result, loop_vars):
    """A body for one loop variable in a tuple or list may return that variable bare."""
    if isinstance(loop_vars, (tuple, list)) and len(loop_vars) == 1 \
            and not nest.is_namedtuple(loop_vars) and not nest.is_nested(result):
        return type(loop_vars)([result])
    # A list of loop variables may come back as a tuple and the other way round, as
    # TensorFlow allows (it compares the nesting without the sequence types).
    if type(result) in (tuple, list) and type(loop_vars) in (tuple, list) \
            and type(result) is not type(loop_vars) and len(result) == len(loop_vars):
        return type(loop_vars)(result)
    return result


def _graph_while(cond, body, loop_vars, maximum_iterations, shape_invariants, names, call):
    graph = tracing.current_graph()
    location = user_location()
    leaves = nest.flatten(loop_vars)
    paths = nest.leaf_paths(loop_vars)
    var_names = [_name_of(names, paths, i, "loop_vars") for i in range(len(leaves))]
    for leaf, name in zip(leaves, var_names):
        if leaf is None or _is_static(leaf):
            raise GraphTypeError(
                f"'{name}' is {_describe(leaf) if leaf is not None else 'None'} when a tensor loop "
                f"starts{_where()}; loop variables must be numbers or tensors. Give it an initial "
                f"value of the type it has inside the loop.")
    init = [_leaf_to_graph(leaf, graph) for leaf in leaves]
    specs, declared = _loop_specs(init, shape_invariants, loop_vars, var_names)

    # A loop variable entering as a Python number (or standing for one) stays one while
    # every iteration keeps it one.
    weak = [dtypes.is_weak(leaf) for leaf in leaves]
    cond_graph = Graph(f"{graph.name}/while_cond", parent=graph)
    body_graph = Graph(f"{graph.name}/while_body", parent=graph)
    for sub in (cond_graph, body_graph):
        params = [sub.add_placeholder(s.dtype, s.shape, f"{_short(var_names[i])}")
                  for i, s in enumerate(specs)]
        for param, is_weak in zip(params, weak):
            param.weak = is_weak
        with tracing.building(sub):
            result = call(cond if sub is cond_graph else body, nest.pack_like(loop_vars, params))
            if sub is cond_graph:
                sub.outputs = [_loop_condition(result, sub)]
            else:
                body_leaves = nest.flatten(_as_loop_vars(result, loop_vars))
                sub.outputs = _body_outputs(result, loop_vars, specs, declared, var_names, sub)

    _hoist_variable_reads([cond_graph, body_graph], graph)
    captures = _unify_captures([cond_graph, body_graph], leading=len(specs))
    inputs = list(init)
    attrs: dict = {"num_vars": len(init), "maximum_iterations": None}
    if maximum_iterations is not None:
        if is_symbolic(maximum_iterations):
            attrs["maximum_iterations"] = "input"
            inputs.append(scalar_int(maximum_iterations, graph))
        else:
            attrs["maximum_iterations"] = int(maximum_iterations)
    node = graph.add_node(WHILE_LOOP, inputs + captures, attrs,
                          [(s.dtype, s.shape) for s in specs],
                          subgraphs={"cond": cond_graph, "body": body_graph}, location=location)
    for output, entering, leaving in zip(node.outputs, weak, body_leaves):
        output.weak = entering and dtypes.is_weak(leaving)
    return nest.pack_like(loop_vars, node.outputs)


def scalar_int(value: SymbolicTensor, graph: Graph) -> SymbolicTensor:
    return value if value.graph is graph else graph.capture(value)


def _short(name: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in name).strip("_") or "var"


def _loop_specs(init, shape_invariants, loop_vars, var_names) -> tuple[list[TensorSpec], list[bool]]:
    """The type each loop variable keeps, and whether a shape invariant declared it."""
    invariants = _flatten_invariants(shape_invariants, loop_vars)
    specs = []
    for value, invariant, name in zip(init, invariants, var_names):
        if invariant is None:
            specs.append(TensorSpec(value.shape, value.dtype))
            continue
        shape = invariant.shape if isinstance(invariant, TensorSpec) else (
            None if invariant is Ellipsis or _unknown_rank(invariant) else tuple(invariant))
        if not shape_is_subtype(value.shape, shape):
            raise ShapeError(
                f"'{name}' enters the loop with shape {format_shape(value.shape)}, which does not "
                f"fit its shape invariant {format_shape(shape)}{_where()}.")
        specs.append(TensorSpec(shape, value.dtype))
    return specs, [invariant is not None for invariant in invariants]


def _unknown_rank(invariant) -> bool:
    """``TensorShape(None)``: any shape, of any rank."""
    return isinstance(invariant, TensorShape) and invariant.rank is None


def _flatten_invariants(invariants, structure) -> list:
    """Invariants mirror ``loop_vars``; whatever sits at a leaf position is that leaf's shape.
    A composite (``rt.TensorArray``) gives its own: it knows which of its shapes may vary."""
    if isinstance(structure, nest.Composite):
        return list(structure.loop_invariants())
    if isinstance(structure, dict):
        return [leaf for key in nest.sorted_keys(structure)
                for leaf in _flatten_invariants(None if invariants is None else invariants[key],
                                                structure[key])]
    if isinstance(structure, (list, tuple)):
        parts = [None] * len(structure) if invariants is None else invariants
        return [leaf for invariant, sub in zip(parts, structure)
                for leaf in _flatten_invariants(invariant, sub)]
    return [invariants]


def _loop_condition(result, graph: Graph) -> SymbolicTensor:
    if isinstance(result, (bool, np.bool_)) or (isinstance(result, EagerTensor) and result.shape == ()):
        return _leaf_to_graph(np.asarray(bool(result)), graph)
    if not isinstance(result, Tensor):
        raise GraphTypeError(
            f"the condition of a tensor loop returned {_describe(result)}{_where()}; it must "
            f"return a bool (or a scalar tensor).")
    return scalar_condition(_leaf_to_graph(result, graph), "a tensor while loop")


def _body_outputs(result, loop_vars, specs, declared, var_names, graph: Graph) -> list[SymbolicTensor]:
    result = _as_loop_vars(result, loop_vars)
    if nest.structure_of(result) != nest.structure_of(loop_vars):
        raise GraphTypeError(
            f"the loop body changes the structure of the loop variables: they enter as "
            f"{nest.describe_structure(loop_vars)} and the body returns "
            f"{nest.describe_structure(result)}{_where()}. Keep every loop variable the same "
            f"kind of value in every iteration.")
    outputs = []
    for leaf, spec, invariant, name in zip(nest.flatten(result), specs, declared, var_names):
        if leaf is None or _is_static(leaf):
            raise GraphTypeError(
                f"'{name}' is {_describe(leaf) if leaf is not None else 'None'} at the end of an "
                f"iteration of a tensor loop{_where()}; it must stay a {spec.dtype.name} tensor.")
        # A Python number, or a tensor standing for one, takes the variable's dtype if its kind
        # fits, as it would in arithmetic with it.
        dtype = dtypes.promote_types(dtypes.operand_type(leaf), spec.dtype)[0] \
            if dtypes.is_weak(leaf) else leaf.dtype
        if dtype != spec.dtype:
            raise GraphTypeError(
                f"'{name}' has dtype {spec.dtype.name} before the loop, but dtype {dtype.name} "
                f"after one iteration{_where()}. A loop variable must keep its dtype: cast it with "
                f"rt.cast, or initialize it with a value of the right type (e.g. 0.0 instead of "
                f"0).")
        value = _as_value_of(leaf, graph, dtype)
        if not shape_is_subtype(value.shape, spec.shape) and invariant:
            raise ShapeError(
                f"'{name}' has shape {format_shape(value.shape)} after one iteration, which does "
                f"not conform to its shape invariant {format_shape(spec.shape)}{_where()}. Declare "
                f"an invariant that allows both (None for the dimensions that vary).")
        if not shape_is_subtype(value.shape, spec.shape):
            raise ShapeError(
                f"'{name}' has shape {format_shape(spec.shape)} before the loop, but shape "
                f"{format_shape(value.shape)} after one iteration{_where()}. If the shape is meant "
                f"to change, declare it with shape_invariants (use None for the dimensions that "
                f"vary).")
        outputs.append(value)
    return outputs
