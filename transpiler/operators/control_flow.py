"""``if``, ``while`` and ``for`` as functions: Python semantics on Python values, graph
control flow on symbolic tensors.

Generated code passes the block bodies as closures and two accessors for the variables the
block changes: ``get_state()`` returns their values, ``set_state(values)`` writes them back
(the closures share them through ``nonlocal``). On Python values the bodies simply run. On a
symbolic condition or iterable, the bodies are traced into ``rt.cond`` / ``rt.while_loop``,
the state flows in and out of the graph op, and errors name the user's variables.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

import runtime as rt
from runtime import nest, outside_objects, tracing
from runtime.control_flow import (Unset, is_symbolic, python_truth, scalar_condition,
                                  zeros_like_leaf)
from runtime.graph import Graph
from runtime.source_location import user_location
from transpiler.analysis.qual_names import QN
from transpiler.operators.variables import Undefined, UndefinedReturnValue, is_return_value_name

GetState = Callable[[], tuple]
SetState = Callable[[tuple], None]


def _no_state() -> tuple:
    return ()


def _ignore_state(_values: tuple) -> None:
    return None


def _no_branch() -> None:
    return None


def _where() -> str:
    location = user_location()
    return f" at {location}" if location else ""


_ONCE_PER_TRACE = "its body is traced once, however many times the loop runs in the graph"


def _reject_mutations(mutates: Sequence[str], construct: str, why: str) -> None:
    if mutates:
        calls = ", ".join(f"{m}(...)" for m in mutates)
        raise ValueError(
            f"{calls} inside {construct} on a tensor{_where()} changes a Python object in place, "
            f"but {why}: the change would not happen as in Python. Compute the values as "
            f"tensors instead (e.g. rt.stack them after a Python loop, or carry a tensor through "
            f"the loop), or make the condition a Python value.")


def _state_before(get_state: GetState, names: Sequence[str], construct: str) -> tuple:
    """The state when a graph block starts; parts of objects it changes must exist."""
    try:
        return tuple(get_state())
    except (LookupError, AttributeError) as error:
        parts = ", ".join(n for n in names if "." in n or "[" in n)
        article = "an" if construct.startswith("if") else "a"
        raise ValueError(
            f"{article} {construct} on a tensor{_where()} changes {parts}, which must exist before it: "
            f"graph control flow carries each changed part of an object as a value in and out "
            f"of the {construct} ({type(error).__name__}: {error}). Give it a value before the "
            f"{construct}.") from None


def _leaf_names(names: Sequence[str], values: Sequence) -> list[str]:
    """Flattened names for the leaves of state values (``x``, ``pair[0]``, ``d['k']``)."""
    result = []
    for name, value in zip(names, values):
        result.extend(f"{name}{path}" for path in nest.leaf_paths(value))
    return result


def _refuse_graph_values_outside(outer: Sequence[str], names: Sequence[str], values: Sequence,
                                 get_state: GetState, set_state: SetState, initial: tuple,
                                 construct: str) -> None:
    """A graph value left in a global, in a variable of enclosing code, or in an object the
    call received would outlive the trace: each later call reuses the graph and never updates
    it. Refused, naming the variable; objects the traced code made itself are fine."""
    for name, value in zip(names, values):
        if name not in outer or not any(is_symbolic(leaf) for leaf in nest.flatten(value)):
            continue
        root = QN.from_string(name).base
        holder = _root_object(get_state, str(root))
        if name != str(root) and holder is not _GLOBAL and not outside_objects.is_from_outside(holder):
            continue
        set_state(initial)  # the refused statement leaves every variable as it was
        owner = ("is a global variable" if holder is _GLOBAL and name == str(root)
                 else "is a variable of an enclosing function" if name == str(root)
                 else f"belongs to an object from outside the function ({root})")
        raise ValueError(
            f"'{name}' is changed by {construct} on a tensor{_where()}, but it {owner}, which "
            f"outlives the call: the graph computes the new value each time it runs but cannot "
            f"store it there, so later calls would not see it. Keep the value in an "
            f"rt.Variable (create it once outside, then .assign(...) it here), or compute it in "
            f"a local variable and return it.")


_GLOBAL = object()


def _root_object(get_state: GetState, root: str):
    """The object a state variable's name starts from, as ``get_state`` sees it; ``_GLOBAL``
    when it is a module global."""
    code = getattr(get_state, "__code__", None)
    if code is not None and root in code.co_freevars:
        return get_state.__closure__[code.co_freevars.index(root)].cell_contents
    return _GLOBAL


# -- if ------------------------------------------------------------------------------------


def if_stmt(cond, body: Callable, orelse: Callable, get_state: GetState = _no_state,
            set_state: SetState = _ignore_state, names: Sequence[str] = (), nouts: int | None = None,
            *, mutates: Sequence[str] = (), outer: Sequence[str] = ()):
    """Runs ``body()`` if ``cond`` else ``orelse()``; returns what the branch returns.

    ``names`` names the state variables; the first ``nouts`` of them are outputs (the others
    are only read inside the branches and are restored afterwards). ``mutates`` lists calls
    that change outside objects in place (``out.append``), which a graph cannot repeat;
    ``outer`` the state that may belong to objects or variables from outside the call.
    """
    orelse = orelse or _no_branch
    if not is_symbolic(cond):
        return body() if python_truth(cond, "an if statement") else orelse()
    _reject_mutations(mutates, "an if statement", "both branches are traced once, whichever "
                      "the condition picks when the graph runs")
    cond = scalar_condition(cond, "an if statement")
    nouts = len(names) if nouts is None else nouts
    initial = _state_before(get_state, names, "if statement")
    location = _where()
    # Filled by the first traced branch, read by rt.cond after both are traced: the names of
    # the flattened outputs, for its error messages.
    leaf_names: list[str] = []
    branch_outputs: list[tuple] = []

    def branch(fn: Callable, label: str) -> Callable:
        def traced():
            set_state(initial)
            result = fn()
            outputs = tuple(get_state()[:nouts])
            _check_branch_outputs(outputs, names, label, location)
            branch_outputs.append((result,) + outputs)
            if len(branch_outputs) == 2:
                _check_return_kinds(*branch_outputs, ("",) + tuple(names), location)
            if not leaf_names:
                leaf_names.extend(f"the return value{path}" for path in nest.leaf_paths(result))
                leaf_names.extend(_leaf_names(names, outputs))
            return result, outputs
        return traced

    result, outputs = rt.cond(cond, branch(body, "if"), branch(orelse, "else"), names=leaf_names)
    _refuse_graph_values_outside(outer, names, outputs, get_state, set_state, initial,
                                 "an if statement")
    set_state(tuple(outputs) + tuple(initial[nouts:]))
    return result


def _check_return_kinds(then_values: tuple, else_values: tuple, names: Sequence[str],
                        location: str) -> None:
    """A function returning None on some paths and a value on others cannot be a graph.

    The first values are what the branches return; ``names`` has "" for them."""
    for index, (name, a, b) in enumerate(zip(names, then_values, else_values)):
        if (index == 0 or is_return_value_name(name)) and (a is None) != (b is None):
            raise ValueError(
                f"the function returns None on some paths (a bare `return`, or running off its "
                f"end) and a value on others, and which one depends on the tensor condition of "
                f"the if statement{location}. A graph function returns the same kind of value on "
                f"every path: end every path with a `return <value>`.")


def _check_branch_outputs(outputs: Sequence, names: Sequence[str], label: str, location: str) -> None:
    for name, value in zip(names, outputs):
        if type(value) is Undefined:
            raise ValueError(
                f"'{name}' is not assigned in the {label} branch of an if statement on a tensor"
                f"{location}, but it is used after the if statement. A graph conditional needs a "
                f"value from both branches: assign '{name}' in the {label} branch too, or give it "
                f"a value before the if statement.")


def if_exp(cond, if_true: Callable, if_false: Callable, expression: str = ""):
    """``if_true() if cond else if_false()`` (a conditional expression)."""
    if not is_symbolic(cond):
        return if_true() if python_truth(cond, "a conditional expression") else if_false()
    return rt.cond(scalar_condition(cond, "a conditional expression"), if_true, if_false)


# -- while ---------------------------------------------------------------------------------


def while_stmt(test: Callable, body: Callable, get_state: GetState = _no_state,
               set_state: SetState = _ignore_state, names: Sequence[str] = (), opts: dict | None = None,
               *, mutates: Sequence[str] = (), outer: Sequence[str] = ()):
    """``while test(): body()``; a graph loop when the test is a symbolic tensor.

    If the test starts as a Python value and becomes a tensor after some iterations (a
    variable turned into a tensor), the remaining iterations continue as a graph loop.
    """
    opts = opts or {}
    first = _initial_test(test)
    while not is_symbolic(first):
        if not python_truth(first, "a while loop"):
            return
        body()
        first = test()
    _reject_mutations(mutates, "a while loop", _ONCE_PER_TRACE)
    _tensor_while(test, body, get_state, set_state, names, opts, outer)


def _initial_test(test: Callable):
    """The test's first value; while tracing, evaluated in a scratch graph so that a tensor
    test leaves no nodes behind in the real graph (the loop traces it again)."""
    graph = tracing.current_graph()
    if graph is None:
        return test()
    scratch = Graph(f"{graph.name}/scratch", parent=graph)
    with tracing.building(scratch):
        value = test()
    return value


def _tensor_while(test, body, get_state, set_state, names, opts, outer) -> None:
    initial = _state_before(get_state, names, "while loop")
    before = initial
    _check_loop_inputs(initial, names)
    initial = _settle_initial_values(initial, body, get_state, set_state)

    def loop_test(*state):
        set_state(state)
        return test()

    def loop_body(*state):
        set_state(state)
        body()
        return tuple(get_state())

    final = rt.while_loop(loop_test, loop_body, initial,
                          maximum_iterations=opts.get("maximum_iterations"),
                          shape_invariants=opts.get("shape_invariants"),
                          names=_leaf_names(names, initial))
    _refuse_graph_values_outside(outer, names, final, get_state, set_state, before, "a while loop")
    set_state(tuple(final))


def _check_loop_inputs(initial: Sequence, names: Sequence[str]) -> None:
    for name, value in zip(names, initial):
        if type(value) is Undefined:
            raise ValueError(
                f"'{name}' is assigned inside a loop on a tensor{_where()} and used after it (or in "
                f"the next iteration), but has no value before the loop. A graph loop needs every "
                f"loop variable to exist before it starts: initialize '{name}' before the loop, "
                f"with a value of the type it has inside.")
        if value is None:
            raise ValueError(
                f"'{name}' is None before a loop on a tensor{_where()}; a graph loop variable must "
                f"be a number or a tensor. Initialize it with a value of the type it has inside "
                f"the loop.")


def _settle_initial_values(initial: tuple, body, get_state, set_state) -> tuple:
    """Loop variables whose type only the first iteration tells, found by tracing it once.

    Python numbers take the dtype of their first iteration, as in Python (``s = 0`` followed
    by ``s += x`` with float32 ``x`` makes ``s`` float32). A return value not set before the
    loop starts as zeros of the type the loop returns (read only after a return ran).
    """
    weak = [isinstance(v, (bool, int, float)) for v in initial]
    if any(weak):
        after = _probe(initial, body, get_state, set_state)
        if after is not None:
            initial = tuple(
                rt.constant(np.asarray(value, dtype=new.dtype))
                if is_weak and isinstance(new, rt.Tensor) and new.shape == ()
                # `s = 0` then `s = s + 0.5`: a Python float from then on, as in Python.
                else type(new)(value) if is_weak and type(new) in (bool, int, float) else value
                for value, is_weak, new in zip(initial, weak, after))
    if any(type(v) is UndefinedReturnValue for v in initial):
        # The body must see loop variables as the loop will (tensors, not Python values),
        # or a tensor `if` holding the return would run as a Python `if`.
        after = _probe(initial, body, get_state, set_state, symbolic=True)
        if after is not None:
            initial = tuple(
                nest.map_structure(zeros_like_leaf, new)
                if type(value) is UndefinedReturnValue and not isinstance(new, Unset) else value
                for value, new in zip(initial, after))
    return initial


def _probe(values: tuple, body, get_state, set_state, symbolic: bool = False) -> tuple | None:
    """The state after one run of ``body`` from ``values`` (as placeholders if ``symbolic``),
    traced into a scratch graph so the real graph is untouched; ``None`` if it fails (the
    loop itself then reports why)."""
    graph = tracing.current_graph()
    scratch = Graph(f"{graph.name}/probe", parent=graph)
    saved = tuple(get_state())
    try:
        with tracing.building(scratch):
            if symbolic:
                values = tuple(nest.map_structure(_as_placeholder, value) for value in values)
            set_state(values)
            body()
            return tuple(get_state())
    except Exception:
        return None
    finally:
        set_state(saved)


def _as_placeholder(leaf):
    """A stand-in for a loop variable as the loop body sees it."""
    if isinstance(leaf, (bool, int, float)) or type(leaf) in (rt.EagerTensor, rt.SymbolicTensor):
        array_type = rt.dtypes.to_array(leaf) if isinstance(leaf, (bool, int, float)) else leaf
        return tracing.current_graph().add_placeholder(array_type.dtype, array_type.shape, "probe")
    return leaf


# -- for -----------------------------------------------------------------------------------


def for_stmt(iterable, extra_test: Callable | None, body: Callable[[Any], None],
             get_state: GetState = _no_state, set_state: SetState = _ignore_state,
             names: Sequence[str] = (), opts: dict | None = None, *, mutates: Sequence[str] = (),
             outer: Sequence[str] = ()):
    """``for item in iterable: body(item)``, stopping when ``extra_test()`` is false (break,
    return). A graph loop over a symbolic range or tensor; unrolled over Python iterables."""
    opts = opts or {}
    loop = _tensor_loop_of(iterable)
    if loop is None:
        _python_for(iterable, extra_test, body, get_state, set_state, names)
        return
    _reject_mutations(mutates, "a for loop", _ONCE_PER_TRACE)
    start, limit, delta, item_of = loop
    initial = _state_before(get_state, names, "for loop")
    before = initial
    iterate_names = opts.get("iterate_names", ())
    # After `for i in range(n)` Python leaves `i` at the last item; a graph loop needs it
    # defined before the loop, so it starts as the first item.
    initial = tuple(item_of(start) if type(value) is Undefined and name in iterate_names else value
                    for name, value in zip(names, initial))
    _check_loop_inputs(initial, names)
    initial = _settle_initial_values(initial, lambda: body(item_of(start)), get_state, set_state)

    def loop_test(index, *state):
        set_state(state)
        more = _range_continues(index, limit, delta)
        if extra_test is None:
            return more
        return rt.cond(more, lambda: _as_condition(extra_test()), lambda: rt.constant(False))

    def loop_body(index, *state):
        set_state(state)
        index.weak = True  # the counter stands for a Python int, as in the user's loop
        body(item_of(index))
        return (index + delta,) + tuple(get_state())

    final = rt.while_loop(loop_test, loop_body, (start,) + initial,
                          maximum_iterations=opts.get("maximum_iterations"),
                          shape_invariants=_with_index_invariant(opts.get("shape_invariants")),
                          names=["the loop index"] + _leaf_names(names, initial))
    _refuse_graph_values_outside(outer, names, final[1:], get_state, set_state, before,
                                 "a for loop")
    set_state(tuple(final[1:]))


def _with_index_invariant(invariants):
    return None if invariants is None else (None,) + tuple(invariants)


def _as_condition(value):
    if isinstance(value, rt.Tensor):
        return value
    return rt.constant(bool(value))


def _range_continues(index, limit, delta):
    if not is_symbolic(delta) and isinstance(delta, (int, np.integer)):
        return index < limit if delta > 0 else index > limit
    positive = rt.logical_and(delta > 0, index < limit)
    negative = rt.logical_and(delta < 0, index > limit)
    return rt.logical_or(positive, negative)


class TensorEnumerate:
    """``enumerate(tensor)`` inside converted code: iterated by a graph loop."""

    def __init__(self, tensor, start: int = 0):
        self.tensor, self.start = tensor, start


class TensorZip:
    """``zip(tensor, ...)`` inside converted code: iterated by a graph loop."""

    def __init__(self, tensors: Sequence):
        self.tensors = list(tensors)


def _length(tensor):
    if tensor.shape is not None and tensor.shape and tensor.shape[0] is not None:
        return tensor.shape[0]
    if tensor.shape == ():
        raise TypeError(f"cannot iterate over a scalar tensor{_where()}.")
    return rt.shape(tensor)[0]


def _tensor_loop_of(iterable):
    """``(start, limit, delta, item_of_index)`` for iterables that need a graph loop."""
    if isinstance(iterable, TensorEnumerate):
        tensor, start = iterable.tensor, iterable.start
        return 0, _length(tensor), 1, lambda i: (_as_python_int(i + start), tensor[i])
    if isinstance(iterable, TensorZip):
        tensors = iterable.tensors
        lengths = [_length(t) for t in tensors]
        limit = lengths[0]
        for other in lengths[1:]:
            limit = rt.minimum(limit, other)
        return 0, limit, 1, lambda i: tuple(t[i] for t in tensors)
    if not is_symbolic(iterable):
        return None
    node = iterable.node
    if node.op.name == "range" and node.graph is tracing.current_graph():
        start, limit, delta = node.inputs
        return start, limit, _static(delta), lambda i: i
    return 0, _length(iterable), 1, lambda i: iterable[i]


def _as_python_int(value):
    """A counter computed from the loop index stands for a Python int too."""
    if is_symbolic(value):
        value.weak = True
    return value


def _static(value):
    """A range step known while tracing, as a Python int (``range`` casts its bounds, so a
    constant step arrives as a cast of a constant)."""
    from runtime.ops.registry import constant_value
    source = value.node.inputs[0] if is_symbolic(value) and value.node.op.name == "cast" else value
    known = constant_value(source)
    return int(known) if known is not None and known.ndim == 0 else value


def _python_for(iterable, extra_test, body, get_state, set_state, names) -> None:
    if extra_test is None:
        for item in iterable:
            body(item)
        return
    keep_going = extra_test()
    if not is_symbolic(keep_going) and not keep_going:
        return
    iterator = iter(iterable)
    for item in iterator:
        if is_symbolic(keep_going):
            # A break or return decided by a tensor: the remaining (unrolled) iterations run
            # only where no earlier iteration stopped the loop.
            if_stmt(keep_going, lambda item=item: body(item), lambda: None, get_state, set_state,
                    names)
        else:
            body(item)
        keep_going = extra_test()
        if not is_symbolic(keep_going) and not keep_going:
            return
