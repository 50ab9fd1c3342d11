"""Gradient rules of ``cond`` and ``while_loop`` (the ops with subgraphs).

``cond``: the gradient is a ``cond`` on the same predicate whose branches differentiate a
recomputed copy of the forward branches (``replay``).

``while_loop``: the forward loop is given, in place, one more loop variable per value the
backward pass needs from each iteration: a stack (a dynamic ``TensorArray``) onto which every
iteration pushes the loop variables it started with. The backward loop runs the iterations in
reverse, popping those values, recomputing that iteration's body and differentiating it; the
gradients of the loop variables are carried from one iteration to the previous one, and those
of the values the body captured from outside are summed. Only what the gradient needs is kept:
the loop variables its recomputation reads, and random draws (which cannot be recomputed).
Both rules are registered on the ops when this module is imported (by ``runtime``).
"""

from __future__ import annotations

import numpy as np

from runtime import tracing
from runtime.autodiff.backprop import Backward, differentiable
from runtime.autodiff.replay import assigned_variables, must_record, replay, standing_in
from runtime.control_flow import cond, while_loop
from runtime.errors import GradientError
from runtime.graph import Graph, Node
from runtime.ops import tensor_array_ops
from runtime.ops.array_ops import concat, constant, fill, reshape, shape, size, zeros, zeros_like
from runtime.ops.dispatch import apply_op, constant_in_graph
from runtime.ops.math_ops import add, greater, less, subtract
from runtime.ops.registry import COND, WHILE_LOOP
from runtime.tensor import SymbolicTensor, join_shapes


# -- cond ----------------------------------------------------------------------------------


def _cond_gradient(node: Node, *output_grads):
    pred, *operands = node.inputs
    wanted = [i for i, value in enumerate(operands) if differentiable(value)]
    seeds = [(i, g) for i, g in enumerate(output_grads) if g is not None]
    if not wanted or not seeds:
        return [None] * len(node.inputs)
    recorded = _kept_branch_values(node)

    def branch_gradient(key: str):
        def compute():
            graph = tracing.current_graph()
            arguments = [graph.capture(v) for v in operands]
            kept = {inner: [graph.capture(v) for v in outer] for inner, outer in recorded[key].items()}
            copies, outputs, values = replay(node.subgraphs[key], arguments, kept)
            with standing_in(values):
                grads = Backward(copies, [[arguments[i]] for i in wanted]).run(
                    [outputs[i] for i, _ in seeds], [g for _, g in seeds])
            return [zeros_like(arguments[i]) if g is None else g for i, g in zip(wanted, grads)]
        return compute

    results = cond(pred, branch_gradient("then"), branch_gradient("else"))
    grads = [None] * len(node.inputs)
    for i, grad in zip(wanted, results):
        grads[1 + i] = grad
    return grads


def _kept_branch_values(node: Node) -> dict[str, dict[int, list]]:
    """Per branch, the values that cannot be recomputed (inner node id -> outer values),
    added to the cond as outputs (the other branch gives zeros) the first time."""
    kept = _memo(node.graph).get(node.id)
    if kept is not None:
        return kept
    assigned = assigned_variables(_root(node.graph))
    kept = {"then": {}, "else": {}}
    for key, other in (("then", "else"), ("else", "then")):
        branch, other_branch = node.subgraphs[key], node.subgraphs[other]
        for inner in branch.nodes:
            if not must_record(inner, assigned):
                continue
            outer_values = []
            for value in inner.outputs:
                zeros = np.zeros(tuple(0 if d is None else d for d in (value.shape or ())), value.dtype)
                branch.outputs.append(value)
                other_branch.outputs.append(constant_in_graph(other_branch, zeros))
                outer_values.append(_new_output(node, value.dtype, join_shapes(value.shape, zeros.shape)))
            kept[key][id(inner)] = outer_values
    _memo(node.graph)[node.id] = kept
    return kept


# -- while_loop ----------------------------------------------------------------------------


def _loop_parts(node: Node) -> tuple[int, int, list]:
    """The number of the user's loop variables (the gradient may have added more), the
    number of all of them, and the values the loop captures."""
    memo = _memo(node.graph).get(node.id)
    num_vars = node.attrs["num_vars"]
    first = num_vars + (1 if node.attrs["maximum_iterations"] == "input" else 0)
    return (num_vars if memo is None else memo["num_vars"]), num_vars, node.inputs[first:]


def _while_gradient(node: Node, *output_grads):
    num_vars, _, captures = _loop_parts(node)
    body: Graph = node.subgraphs["body"]
    var_wanted = [i for i in range(num_vars) if differentiable(node.outputs[i])
                  and i < len(output_grads)]
    cap_wanted = [j for j, value in enumerate(captures) if differentiable(value)]
    if not var_wanted and not cap_wanted:
        return [None] * len(node.inputs)
    params, cap_params = body.inputs[:num_vars], body.inputs[num_vars:]
    needed = _needed_nodes(body, [params[i] for i in var_wanted] + [cap_params[j] for j in cap_wanted],
                           [body.outputs[i] for i in var_wanted])
    stacks, kept = _kept_iterations(node, needed)
    seeds = [zeros_like(node.outputs[i]) if output_grads[i] is None else output_grads[i]
             for i in var_wanted]
    count = next(iter(stacks.values()))[1]  # each stack's size is the number of iterations
    stack_grads = _stack_gradients(node, var_wanted, output_grads)

    def backward_condition(k, var_grads, cap_grads):
        return greater(k, 0)

    def backward_iteration(k, var_grads, cap_grads):
        k = subtract(k, 1)
        graph = tracing.current_graph()
        all_vars = _loop_parts(node)[1]
        arguments = [_kept_value(node, i, stacks[i], k) if i in stacks else None
                     for i in range(num_vars)]
        arguments += [None] * (all_vars - num_vars)  # the stacks themselves
        arguments += [graph.capture(value) for value in captures]
        recorded = {inner: [_pop(stack, k) for stack in inner_stacks]
                    for inner, inner_stacks in kept.items()}
        copies, outputs, values = replay(body, arguments, recorded, needed)
        sources = [[arguments[i]] for i in var_wanted] + [[arguments[all_vars + j]] for j in cap_wanted]
        with standing_in(values):
            grads = Backward(copies, sources).run([outputs[i] for i in var_wanted],
                                                  list(var_grads))
        new_var_grads = [zeros_like(node.outputs[i]) if g is None else g
                         for i, g in zip(var_wanted, grads[:len(var_wanted)])]
        for position, i in enumerate(var_wanted):
            if i in stack_grads:  # this iteration's value was also kept for a gradient
                new_var_grads[position] = add(new_var_grads[position], _pop(stack_grads[i], k))
        new_cap_grads = [total if g is None else add(total, g)
                         for total, g in zip(cap_grads, grads[len(var_wanted):])]
        return k, new_var_grads, new_cap_grads

    invariants = (None, [_invariant(body.inputs[i].shape) for i in var_wanted],
                  [_invariant(captures[j].shape) for j in cap_wanted])
    _, var_grads, cap_grads = while_loop(
        backward_condition, backward_iteration,
        (count, seeds, [zeros_like(captures[j]) for j in cap_wanted]), shape_invariants=invariants)
    grads = [None] * len(node.inputs)
    for i, grad in zip(var_wanted, var_grads):
        grads[i] = grad
    first = len(node.inputs) - len(captures)
    for j, grad in zip(cap_wanted, cap_grads):
        grads[first + j] = grad
    return grads


def _stack_gradients(node: Node, var_wanted: list, output_grads) -> dict:
    """Per loop variable, the gradient reaching the stack that keeps its per-iteration values
    (an earlier gradient's backward loop read them: a higher derivative), as a stack of the
    same size: row k is the gradient of the variable's value at the start of iteration k."""
    kept = _memo(node.graph).get(node.id, {}).get("vars", {})
    grads = {}
    shapes_only = _memo(node.graph).get(node.id, {}).get("shapes", set())
    for i in var_wanted:
        if i not in kept or i in shapes_only:
            continue
        buffer, size, filled = kept[i]
        position = next(p for p, value in enumerate(node.outputs) if value is buffer)
        if position < len(output_grads) and output_grads[position] is not None:
            grads[i] = (output_grads[position], size, filled)
    return grads


def _invariant(shape):
    """A gradient keeps the shape of its value when that is fully known; otherwise rules may
    know less of it than the value's type does (Ellipsis: any shape)."""
    return shape if shape is not None and None not in shape else Ellipsis


def _needed_nodes(body: Graph, sources: list, targets: list) -> set[int]:
    """The body nodes the backward pass recomputes: those on a path from ``sources`` to
    ``targets``, and everything they read."""
    reaching = {id(s) for s in sources}
    on_path = []
    for inner in body.nodes:
        if any(id(v) in reaching for v in inner.inputs):
            on_path.append(inner)
            reaching.update(id(v) for v in inner.outputs)
    wanted = {id(t) for t in targets}
    relevant = set()
    for inner in reversed(on_path):
        if any(id(v) in wanted for v in inner.outputs):
            relevant.add(id(inner))
            wanted.update(id(v) for v in inner.inputs)
    needed: set[int] = set()
    reads = set()
    for inner in reversed(body.nodes):
        if id(inner) in relevant or any(id(v) in reads for v in inner.outputs):
            needed.add(id(inner))
            reads.update(id(v) for v in inner.inputs)
    return needed


def _kept_iterations(node: Node, needed: set[int]) -> tuple[dict, dict]:
    """The stacks of per-iteration values the backward pass reads: per loop variable (by
    position) whose value a ``needed`` body node reads, and per unrecomputable ``needed``
    body node (by id). Stacks are added to the loop the first time they are asked for; at
    least one is kept, as the backward loop counts the iterations by its size."""
    memo = _memo(node.graph).setdefault(node.id, {"num_vars": node.attrs["num_vars"],
                                                  "vars": {}, "nodes": {}, "shapes": set()})
    body: Graph = node.subgraphs["body"]
    params = body.inputs[:memo["num_vars"]]
    read = {id(v) for inner in body.nodes if id(inner) in needed for v in inner.inputs}
    read.update(id(v) for v in body.outputs[:memo["num_vars"]])
    wanted_vars = [i for i, param in enumerate(params) if id(param) in read] or [0]
    assigned = assigned_variables(_root(node.graph))
    wanted_nodes = [inner for inner in body.nodes
                    if id(inner) in needed and must_record(inner, assigned)]
    missing_vars = [i for i in wanted_vars if i not in memo["vars"]]
    values = []
    for i in missing_vars:
        if not _is_growing_buffer(body, params[i]):
            _check_keeps_its_shape(node, i, params[i])
            values.append(params[i])
        else:  # a list the body only appends to: its shape is all its gradient needs
            _check_append_only(node, params[i])
            memo["shapes"].add(i)
            with tracing.building(body):
                values.append(_padded_shape(params[i], body))
    missing_nodes = [inner for inner in wanted_nodes if id(inner) not in memo["nodes"]]
    stacks = iter(_add_stacks(node, values + [v for inner in missing_nodes for v in inner.outputs]))
    for i in missing_vars:
        memo["vars"][i] = next(stacks)
    for inner in missing_nodes:
        memo["nodes"][id(inner)] = [next(stacks) for _ in inner.outputs]
    return ({i: memo["vars"][i] for i in wanted_vars},
            {id(inner): memo["nodes"][id(inner)] for inner in wanted_nodes})


def _is_growing_buffer(body: Graph, param: SymbolicTensor) -> bool:
    """Whether ``param`` is the buffer of a TensorArray whose shape may grow in the loop."""
    fixed = param.shape is not None and None not in param.shape
    return not fixed and any(node.op in _ARRAY_OPS and position == 0
                             for node, position in _uses(param, body))


_ARRAY_OPS = (tensor_array_ops.WRITE, tensor_array_ops.READ, tensor_array_ops.STACK,
              tensor_array_ops.GATHER, tensor_array_ops.CONCAT)


def _uses(value: SymbolicTensor, graph: Graph) -> list[tuple[Node, int]]:
    """Where ``value`` is an op's input (node, position), followed into the subgraphs of the
    control flow it enters (a branch or loop parameter standing for it)."""
    uses = []
    for node in graph.nodes:
        for position, used in enumerate(node.inputs):
            if used is not value:
                continue
            inner = _parameters_for(node, position)
            if inner is None:
                uses.append((node, position))
            for sub, param in inner or ():
                uses += _uses(param, sub)
    return uses


def _parameters_for(node: Node, position: int) -> list | None:
    """The subgraph parameters standing for input ``position`` of a cond or while_loop node
    (None for other nodes, a predicate and an iteration limit)."""
    if node.op is COND and position > 0:
        return [(sub, sub.inputs[position - 1]) for sub in node.subgraphs.values()]
    if node.op is not WHILE_LOOP:
        return None
    num_vars = node.attrs["num_vars"]
    first = num_vars + (1 if node.attrs["maximum_iterations"] == "input" else 0)
    if num_vars <= position < first:
        return None
    index = position if position < num_vars else num_vars + position - first
    return [(sub, sub.inputs[index]) for sub in node.subgraphs.values()]


def _check_keeps_its_shape(node: Node, i: int, param: SymbolicTensor) -> None:
    """A loop variable declared to change shape (its shape invariant is looser than the value
    it starts with) cannot be kept on a stack per iteration."""
    start = node.inputs[i].shape
    if start is not None and None not in start and (param.shape is None or None in param.shape):
        raise GradientError(_changing_shape_message(node))


def _check_append_only(node: Node, param: SymbolicTensor) -> None:
    """The buffer of a list the body only appends to (a TensorArray written to, in the body or
    in control flow inside it) need not be kept per iteration: the backward pass needs only
    its shape. A list the loop also reads is refused."""
    uses = _uses(param, node.subgraphs["body"])
    if not all(used.op is tensor_array_ops.WRITE and position == 0 for used, position in uses):
        raise GradientError(_changing_shape_message(node))


def _changing_shape_message(node: Node) -> str:
    return (f"cannot differentiate through the while_loop created at {node.location_text()}: "
            f"its gradient needs the value a loop variable had in every iteration, and that "
            f"variable changes shape from one iteration to the next (a list or rt.TensorArray "
            f"that the loop also reads, or a value with a shape invariant). Give it one shape "
            f"(a TensorArray of fixed size with an element_shape), compute the loss inside the "
            f"loop (for example accumulate it in a loop variable), or run the function eagerly.")


def _padded_shape(buffer: SymbolicTensor, body: Graph) -> SymbolicTensor:
    """The buffer's shape as an int64 vector of one length in every iteration: a buffer not
    allocated yet (0-d until the first write) gives -1s."""
    rank = 1 + _element_rank(buffer, body)
    known = shape(buffer, np.int64)
    return concat([known, fill(reshape(rank - size(known, np.int64), [1]), constant(np.int64(-1)))], 0)


def _element_rank(buffer: SymbolicTensor, body: Graph) -> int:
    if buffer.shape:
        return len(buffer.shape) - 1
    value = next(used.inputs[4] for used, _ in _uses(buffer, body))
    if value.shape is None:
        raise GradientError("cannot differentiate through a list appended to in a while_loop "
                            "whose elements have an unknown rank; give the TensorArray an "
                            "element_shape.")
    return len(value.shape)


def _add_stacks(node: Node, values: list) -> list[tuple]:
    """Makes every iteration of ``node`` push each of ``values`` (values of its body) onto a
    stack of its own, carried as three new loop variables; returns each stack's final
    (buffer, size, filled) outputs."""
    if not values:
        return []
    graph, body, condition = node.graph, node.subgraphs["body"], node.subgraphs["cond"]
    num_vars = node.attrs["num_vars"]
    first_new = len(graph.nodes)
    initial = []
    with tracing.building(graph):
        for value in values:
            element = value.shape if value.shape is not None and None not in value.shape else None
            size = constant_in_graph(graph, np.asarray(0, np.int32))
            buffer = apply_op(tensor_array_ops.NEW, (size,),
                              {"dtype": value.dtype, "element_shape": element})
            initial += [buffer, size, size]
    created = graph.nodes[first_new:]
    del graph.nodes[first_new:]
    position = graph.nodes.index(node)
    graph.nodes[position:position] = created

    # A buffer grows by one row per iteration (its element shape may be unknown).
    types = [(v.dtype, None if v.shape is None or None in v.shape else (None,) + v.shape)
             if part == 0 else (np.dtype(np.int32), ())
             for v in values for part in range(3)]
    outputs = []
    for sub in (condition, body):
        params = [sub.add_placeholder(dtype, shape, f"stack{i}")
                  for i, (dtype, shape) in enumerate(types)]
        del sub.inputs[-len(params):]
        sub.inputs[num_vars:num_vars] = params
        if sub is body:
            with tracing.building(body):
                for index, value in enumerate(values):
                    buffer, size, filled = params[3 * index: 3 * index + 3]
                    outputs += apply_op(tensor_array_ops.WRITE, (buffer, size, filled, size, value),
                                        {"dynamic": True})
    body.outputs[num_vars:num_vars] = outputs
    node.inputs[num_vars:num_vars] = initial
    node.attrs["num_vars"] = num_vars + len(initial)
    new_outputs = [_new_output(node, dtype, shape, at=num_vars + i)
                   for i, (dtype, shape) in enumerate(types)]
    return [tuple(new_outputs[3 * i: 3 * i + 3]) for i in range(len(values))]


def _kept_value(node: Node, i: int, stack: tuple, index) -> SymbolicTensor:
    """Loop variable ``i`` as iteration ``index`` started: popped from its stack, or zeros of
    the kept shape for a list the loop appends to (the gradient reads only its shape)."""
    value = _pop(stack, index)
    if i in _memo(node.graph)[node.id]["shapes"]:
        dtype = node.outputs[i].dtype
        return cond(less(value[0], 0), lambda: zeros((), dtype), lambda: zeros(value, dtype))
    return value


def _pop(stack: tuple, index) -> SymbolicTensor:
    return apply_op(tensor_array_ops.READ, (*stack, index))


# -- shared --------------------------------------------------------------------------------


def _new_output(node: Node, dtype, shape, at: int | None = None) -> SymbolicTensor:
    """A new output of ``node`` (at position ``at``; later outputs move up by one)."""
    at = len(node.outputs) if at is None else at
    value = SymbolicTensor(node.graph, node, at, dtype, shape)
    node.outputs.insert(at, value)
    for index, output in enumerate(node.outputs):
        output.index = index
    return value


def _memo(graph: Graph) -> dict:
    """Per graph: what the gradient rules added to its control-flow nodes (by node id)."""
    memo = graph.__dict__.get("_gradient_memo")
    if memo is None:
        memo = graph.__dict__["_gradient_memo"] = {}
    return memo


def _root(graph: Graph) -> Graph:
    while graph.parent is not None:
        graph = graph.parent
    return graph


COND.define_gradient(_cond_gradient)
WHILE_LOOP.define_gradient(_while_gradient)
