"""``if``, ``while`` and ``for`` as functions: Python semantics on Python values, graph
control flow on symbolic tensors.

Generated code passes the block bodies as closures and two accessors for the variables the
block changes: ``get_state()`` returns their values, ``set_state(values)`` writes them back
(the closures share them through ``nonlocal``). On Python values the bodies simply run. On a
symbolic condition or iterable, the bodies are traced into ``rt.cond`` / ``rt.while_loop``,
the state flows in and out of the graph op, and errors name the user's variables.
"""

from __future__ import annotations

import dis
import re
import sys
import types
from types import FrameType
from typing import Any, Callable, Sequence

import numpy as np

import runtime as rt
from runtime import dtypes, nest, outside_objects, tracing
from runtime.control_flow import (Unset, is_symbolic, python_truth, scalar_condition,
                                  zeros_like_leaf)
from runtime.graph import Graph
from runtime.ops.array_ops import RANGE
from runtime.ops.conversion_ops import CAST
from runtime.ops.dispatch import constant_value
from runtime.ops.registry import Promotion
from runtime.staged_list import StagedList
from runtime.source_location import Location, translate, user_location
from transpiler.operators import staging
from transpiler.operators.places import Place
from transpiler.operators.tensor_sequences import is_sequence, item_at, length_of, tensors_of
from transpiler import trace_events
from transpiler.errors import UnsupportedSyntaxError
from transpiler.generated_sources import is_generated
from transpiler.operators.user_warnings import unroll_watch
from transpiler.operators.variables import (ReturnedNone, Undefined, UndefinedReturnValue,
                                            is_return_value_name, returns_a_value, returns_none)

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


class naming_construct:
    """Adds to an error of graph control flow the construct the user wrote, with its line.

    ``rt.cond`` and ``rt.while_loop`` only know they build "a tensor conditional" or "a
    tensor loop"; the user wrote an ``if``, a ``for``, a ternary or an ``and``. The innermost
    construct names an error first; enclosing ones leave it alone."""

    __slots__ = ("construct", "location")

    def __init__(self, construct: str):
        self.construct, self.location = construct, _where()

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, error, traceback) -> bool:
        raised_at = _raise_statement_of(error) if isinstance(error, Exception) else None
        if raised_at is not None:
            raise _raised_while_tracing(error, raised_at, self.construct, self.location) \
                from error
        if isinstance(error, (ValueError, TypeError)) and not getattr(error, _NAMED, False) \
                and _raised_by_control_flow(traceback) and error.args \
                and isinstance(error.args[0], str):
            setattr(error, _NAMED, True)
            error.args = (f"{error.args[0]} This is the {self.construct}{self.location}.",
                          *error.args[1:])
        return False


_NAMED = "_e2g_construct_named"
_CONTROL_FLOW_FILES = (rt.control_flow.__file__, __file__)


def _raise_statement_of(error: BaseException) -> Location | None:
    """Where a `raise` statement of converted user code raised ``error``; None when an op, a
    check of the runtime or code that is not converted raised it."""
    traceback = error.__traceback__
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    if traceback is None or getattr(error, _NAMED, False):
        return None
    code = traceback.tb_frame.f_code
    lasti = traceback.tb_lasti
    if not is_generated(code) or not 0 <= lasti < len(code.co_code) \
            or code.co_code[lasti] != _RAISE_VARARGS:
        return None
    return translate(code.co_filename, traceback.tb_lineno)


_RAISE_VARARGS = dis.opmap["RAISE_VARARGS"]


def _raised_while_tracing(error: Exception, raised_at: Location, construct: str,
                          location: str) -> UnsupportedSyntaxError:
    """The error for a `raise` reached while tracing graph control flow: Python runs it only
    on the paths that reach it, a trace on all of them."""
    what = f"{type(error).__name__}: {error}" if str(error) else type(error).__name__
    if construct.endswith("loop"):
        traced = (f"the body of the {construct} on a tensor{location}: a graph traces the body "
                  f"once, however many times (even zero) the loop runs")
    else:
        traced = (f"a branch of the {construct} on a tensor{location}: a graph traces both "
                  f"branches, whichever the condition picks when it runs")
    named = UnsupportedSyntaxError(
        f"a `raise` statement (at {raised_at}) runs while tracing {traced}, so it raises "
        f"({what}) even where Python would not reach it. A graph cannot raise a Python exception "
        f"that depends on a tensor. To check the condition when the graph runs, use "
        f"rt.assert_(ok, message) with `ok` a tensor that is false exactly where the raise should "
        f"happen (for `if c: raise ...`, rt.assert_(rt.logical_not(c), message)); it raises "
        f"rt.errors.InvalidArgumentError then. Or decide with a Python value.")
    setattr(named, _NAMED, True)
    return named


def _raised_by_control_flow(traceback) -> bool:
    """Whether the innermost frame is a check of graph control flow (not an op in a body)."""
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    return traceback is not None and traceback.tb_frame.f_code.co_filename in _CONTROL_FLOW_FILES


_ONCE_PER_TRACE = "its body is traced once, however many times the loop runs in the graph"


def _object_mutations(mutates: Sequence[str], frame: FrameType) -> tuple[str, ...]:
    """The calls of ``mutates`` that may change an object: the converter names every
    ``x.add(...)``, but where ``x`` is a module in the converted code's ``frame`` (``tf.add``,
    ``tf.math.add``, ``np.sort``) the call changes nothing."""
    def on_module(call: str) -> bool:
        base = re.match(r"[A-Za-z_][A-Za-z_0-9]*", call).group()
        for namespace in (frame.f_locals, frame.f_globals, frame.f_builtins):
            if base in namespace:
                return isinstance(namespace[base], types.ModuleType)
        return False
    return tuple(call for call in mutates if not on_module(call))


def _reject_mutations(mutates: Sequence[str], construct: str, why: str) -> None:
    if mutates:
        calls = ", ".join(f"{m}(...)" for m in mutates)
        raise ValueError(
            f"{calls} inside {construct} on a tensor{_where()} changes a Python object in place, "
            f"but {why}: the change would not happen as in Python. Only a list created in this "
            f"function and only appended to there (not read, not changed otherwise) is carried "
            f"through graph control flow; build such a list and rt.stack it afterwards, carry a "
            f"tensor (or rt.TensorArray) through the block, or make the condition a Python "
            f"value.")


def _state_before(get_state: GetState, names: Sequence[str]) -> tuple:
    """The state when a graph block starts; a part of an object that does not exist yet
    (``d['k']`` first set inside the block) is ``Undefined``, like a variable not yet set."""
    try:
        return tuple(get_state())
    except (LookupError, AttributeError):
        return tuple(Place(get_state, name).read() for name in names)


def _leaf_names(names: Sequence[str], values: Sequence) -> list[str]:
    """Flattened names for the leaves of state values (``x``, ``pair[0]``, ``d['k']``)."""
    result = []
    for name, value in zip(names, values):
        result.extend(f"{_shown(name)}{path}" for path in nest.leaf_paths(value))
    return result


def _shown(name: str) -> str:
    """A state variable as messages name it: the function's return value (a name the user
    never wrote, or "" for what a branch returns) is "the return value"."""
    return "the return value" if not name or is_return_value_name(name) else name


def _refuse_graph_values_outside(outer: Sequence[str], names: Sequence[str], values: Sequence,
                                 get_state: GetState, set_state: SetState, initial: tuple,
                                 construct: str) -> None:
    """A graph value left in a global, in a variable of enclosing code, or in an object the
    call received would outlive the trace: each later call reuses the graph and never updates
    it. Refused, naming the variable; objects the traced code made itself are fine."""
    for name, value in zip(names, values):
        if name not in outer or not any(is_symbolic(leaf) for leaf in nest.flatten(value)):
            continue
        place = Place(get_state, name)
        if place.is_part and not place.is_global \
                and not outside_objects.is_from_outside(place.root()):
            continue
        _set_state_tolerantly(set_state, get_state, names, initial)  # leave everything as it was
        owner = ("is a global variable" if not place.is_part and place.is_global
                 else "is a variable of an enclosing function" if not place.is_part
                 else f"belongs to an object from outside the function ({place.root_name})")
        raise ValueError(
            f"'{name}' is changed by {construct} on a tensor{_where()}, but it {owner}, which "
            f"outlives the call: the graph computes the new value each time it runs but cannot "
            f"store it there, so later calls would not see it. Keep the value in an "
            f"rt.Variable (create it once outside, then .assign(...) it here), or compute it in "
            f"a local variable and return it.")


def _set_state_tolerantly(set_state: SetState, get_state: GetState, names: Sequence[str],
                          values: tuple) -> None:
    """``set_state(values)``, where a part of an object that did not exist (``Undefined``)
    is removed again instead of holding the placeholder."""
    set_state(values)
    for name, value in zip(names, values):
        if type(value) is Undefined:
            place = Place(get_state, name)
            if place.is_part:
                place.remove()


# -- if ------------------------------------------------------------------------------------


def if_stmt(cond, body: Callable, orelse: Callable, get_state: GetState = _no_state,
            set_state: SetState = _ignore_state, names: Sequence[str] = (), nouts: int | None = None,
            *, mutates: Sequence[str] = (), outer: Sequence[str] = (), staged: Sequence[str] = ()):
    """Runs ``body()`` if ``cond`` else ``orelse()``; returns what the branch returns.

    ``names`` names the state variables; the first ``nouts`` of them are outputs (the others
    are only read inside the branches and are restored afterwards). ``mutates`` lists calls
    that change outside objects in place (``out.append``), which a graph cannot repeat;
    ``outer`` the state that may belong to objects or variables from outside the call;
    ``staged`` the lists the branches only append to, carried as staged lists.
    """
    orelse = orelse or _no_branch
    if mutates:
        mutates = _object_mutations(mutates, sys._getframe(1))
    backend = staging.backend_for(cond)
    if backend is None:
        taken = python_truth(cond, "an if statement")
        trace_events.record_branch("if statement", taken)
        return body() if taken else orelse()
    return backend.if_stmt(cond, body, orelse, get_state, set_state, names, nouts,
                           mutates=mutates, outer=outer, staged=staged)


def graph_if_stmt(cond, body: Callable, orelse: Callable, get_state: GetState,
                  set_state: SetState, names: Sequence[str], nouts: int | None, *,
                  mutates: Sequence[str], outer: Sequence[str], staged: Sequence[str]):
    """The runtime backend's ``if`` on a symbolic condition: ``rt.cond``."""
    _reject_mutations(mutates, "an if statement", "both branches are traced once, whichever "
                      "the condition picks when the graph runs")
    cond = scalar_condition(cond, "an if statement")
    nouts = len(names) if nouts is None else nouts
    before = _state_before(get_state, names)
    initial = _staged_lists(before, names, staged, (body, orelse), get_state, set_state)
    location = _where()
    # Filled by the first traced branch, read by rt.cond after both are traced: the names of
    # the flattened outputs, for its error messages.
    leaf_names: list[str] = []
    branch_outputs: list[tuple] = []
    # A branch whose `return` has no value leaves None as the return value; the other branch
    # may not have returned. After the if, the return value stands for both.
    returned_none = ReturnedNone((f"the if statement{location}",))

    def branch(fn: Callable, label: str) -> Callable:
        def traced():
            # Each branch starts from its own copies: one branch's appends are not the other's.
            _set_state_tolerantly(set_state, get_state, names, _fresh(initial))
            result = fn()
            outputs = _state_before(get_state, names)[:nouts]
            _check_branch_outputs(outputs, names, label, location)
            branch_outputs.append((result,) + outputs)
            if len(branch_outputs) == 2:
                _check_return_kinds(*branch_outputs, ("",) + tuple(names), location)
                _check_branch_structures(*branch_outputs, ("",) + tuple(names), location)
            outputs = tuple(returned_none if value is None and is_return_value_name(name)
                            else value for name, value in zip(names, outputs))
            if not leaf_names:
                leaf_names.extend(_leaf_names(("",) + tuple(names), (result,) + outputs))
            return result, outputs
        return traced

    with naming_construct("if statement"):
        result, outputs = rt.cond(cond, branch(body, "if"), branch(orelse, "else"),
                                  names=leaf_names)
    _refuse_graph_values_outside(outer, names, outputs, get_state, set_state, before,
                                 "an if statement")
    _set_state_tolerantly(set_state, get_state, names, tuple(outputs) + tuple(initial[nouts:]))
    return result


def _check_return_kinds(then_values: tuple, else_values: tuple, names: Sequence[str],
                        location: str) -> None:
    """A function returning None on some paths and a value on others cannot be a graph.

    The first values are what the branches return; ``names`` has "" for them. A branch that
    has not returned (an unset return value) agrees with either."""
    for index, (name, a, b) in enumerate(zip(names, then_values, else_values)):
        if index != 0 and not is_return_value_name(name):
            continue
        if {_return_kind(a), _return_kind(b)} != {"None", "value"}:
            continue
        none_side = a if returns_none(a) else b
        if type(none_side) is ReturnedNone:
            raise returned_none_and_a_value(none_side)
        branch = "if" if a is None else "else"
        raise ValueError(
            f"the function returns None on some paths (a bare `return`, or running off its "
            f"end) and a value on others, and which one depends on the tensor condition of "
            f"the if statement{location}: its {branch} branch must also have a return with a "
            f"value. A graph function returns the same kind of value on every path: end every "
            f"path with a `return <value>`.")


def _return_kind(value) -> str:
    return "None" if returns_none(value) else "value" if returns_a_value(value) else "unset"


def returned_none_and_a_value(returned: ReturnedNone) -> ValueError:
    """The error for a value returned where a `return` without a value may have run: the
    message names the constructs that decided that return (already naming the construct)."""
    error = ValueError(
        f"the function returns None on some paths and a value on others, and tensors decide "
        f"which when the graph runs: a `return` without a value (or `return None`) in "
        f"{returned.describe()}, may or may not run, and the other paths return a value. A graph "
        f"function returns the same kind of value on every path: give that `return` a value, "
        f"so that every path ends with a `return <value>`.")
    setattr(error, _NAMED, True)
    return error


def _check_branch_structures(then_values: tuple, else_values: tuple, names: Sequence[str],
                             location: str) -> None:
    """Each variable (and the return value, named "") has one nested structure in both
    branches; a value not set on a path (``Unset``) takes the other branch's."""
    for name, a, b in zip(names, then_values, else_values):
        if isinstance(a, (Unset, ReturnedNone)) or isinstance(b, (Unset, ReturnedNone)) \
                or nest.structure_of(a) == nest.structure_of(b):
            continue
        shown = _shown(name)
        quoted = shown if shown == "the return value" else f"'{shown}'"
        fix = ("make both branches return the same kind of value" if shown == "the return value"
               else f"make both branches assign {quoted} the same kind of value")
        where = f" ({location.strip()})" if location else ""
        raise rt.errors.GraphStructureError(
            f"the two branches of a tensor conditional for {quoted} return different structures: "
            f"the true branch gives {_structure(a)} and the false branch gives {_structure(b)}"
            f"{where}. A conditional must give {quoted} the same nested structure in both "
            f"branches (the same kind of tuple, list or dict, of the same length, or a single "
            f"value): {fix}.")


def _structure(value) -> str:
    return "None" if value is None else nest.describe_structure(value)


def _check_branch_outputs(outputs: Sequence, names: Sequence[str], label: str, location: str) -> None:
    for name, value in zip(names, outputs):
        if type(value) is Undefined and value.deleted:
            raise ValueError(
                f"'{name}' is deleted in the {label} branch of an if statement on a tensor"
                f"{location} (`del {name}`), but it is used after the if statement. A graph "
                f"conditional needs a value from both branches: a variable cannot exist after it "
                f"on one path only. Remove the `del {name}` (assign '{name}' another value there "
                f"instead), or delete it after its last use.")
        if type(value) is Undefined:
            # "main branch" is TensorFlow's name for the if branch; code may match on it.
            branch = "main branch (the if branch)" if label == "if" else "else branch"
            raise ValueError(
                f"'{name}' is not assigned in the {label} branch of an if statement on a tensor"
                f"{location}, but it is used after the if statement. A graph conditional needs a "
                f"value from both branches: '{name}' must also be initialized in the {branch}. "
                f"Assign '{name}' in the {label} branch too, or give it a value before the if "
                f"statement.")


def if_exp(cond, if_true: Callable, if_false: Callable, expression: str = ""):
    """``if_true() if cond else if_false()`` (a conditional expression)."""
    backend = staging.backend_for(cond)
    if backend is None:
        taken = python_truth(cond, "a conditional expression")
        trace_events.record_branch("conditional expression", taken)
        return if_true() if taken else if_false()
    return backend.if_exp(cond, if_true, if_false)


def graph_if_exp(cond, if_true: Callable, if_false: Callable):
    """The runtime backend's conditional expression: ``rt.cond``."""
    with naming_construct("conditional expression"):
        return rt.cond(scalar_condition(cond, "a conditional expression"), if_true, if_false)


# -- while ---------------------------------------------------------------------------------


def while_stmt(test: Callable, body: Callable, get_state: GetState = _no_state,
               set_state: SetState = _ignore_state, names: Sequence[str] = (), opts: dict | None = None,
               *, mutates: Sequence[str] = (), outer: Sequence[str] = (), staged: Sequence[str] = ()):
    """``while test(): body()``; a graph loop when the test is a symbolic tensor.

    If the test starts as a Python value and becomes a tensor after some iterations (a
    variable turned into a tensor), the remaining iterations continue as a graph loop.
    ``staged`` names the lists the body only appends to, carried as staged lists.
    """
    opts = opts or {}
    if mutates:
        mutates = _object_mutations(mutates, sys._getframe(1))
    first = _initial_test(test)
    with unroll_watch("while loop") as watch:
        while (backend := _while_backend(first)) is None:
            if not python_truth(first, "a while loop"):
                return
            body()
            watch.iterations += 1
            first = test()
    backend.while_stmt(test, body, get_state, set_state, names, opts, mutates=mutates,
                       outer=outer, staged=staged)


def _while_backend(test_value):
    """The backend staging a while loop whose test gave ``test_value``; None for Python."""
    if _staged_in_graph(test_value):
        return staging.backend_for_runtime()
    return staging.backend_for_loop_test(test_value)


def graph_while_stmt(test: Callable, body: Callable, get_state: GetState, set_state: SetState,
                     names: Sequence[str], opts: dict, *, mutates: Sequence[str],
                     outer: Sequence[str], staged: Sequence[str]) -> None:
    """The runtime backend's while loop on a tensor test: ``rt.while_loop``."""
    _reject_mutations(mutates, "a while loop", _ONCE_PER_TRACE)
    with naming_construct("while loop"):
        _tensor_while(test, body, get_state, set_state, names, opts, outer, staged)


def _staged_in_graph(test_value) -> bool:
    """Whether a while loop with this test value becomes a graph loop: a symbolic test, or a
    tensor made while tracing (as in TensorFlow, where every tensor in a trace is a graph
    value; unrolling it in Python would trace forever when it stays true)."""
    return is_symbolic(test_value) or (type(test_value) is rt.EagerTensor and tracing.is_tracing())


def _initial_test(test: Callable):
    """The test's first value; while tracing, evaluated in a scratch graph so that a tensor
    test leaves no nodes behind in the real graph (the loop traces it again). Under
    ``jax.jit`` likewise in a scratch trace (``staging.evaluated_aside``)."""
    graph = tracing.current_graph()
    if graph is None:
        return staging.evaluated_aside(test)
    scratch = Graph(f"{graph.name}/scratch", parent=graph)
    with tracing.building(scratch):
        value = test()
    return value


def _tensor_while(test, body, get_state, set_state, names, opts, outer, staged) -> None:
    before = _state_before(get_state, names)
    entering = _staged_lists(before, names, staged, (body,), get_state, set_state)
    loop = _GraphLoop(entering, body, get_state, set_state, names, "while loop", opts)

    def loop_test(*state):
        set_state(state)
        return test()

    def loop_body(*state):
        set_state(state)
        body()
        return tuple(get_state())

    final = loop.run(loop_test, loop_body, (), opts)
    _refuse_graph_values_outside(outer, names, final, get_state, set_state, before, "a while loop")
    set_state(final)


class _GraphLoop:
    """What a converted loop adds around ``rt.while_loop``: initial values the first
    iteration decides, and a run-time check for variables that only the loop assigns."""

    def __init__(self, before: tuple, first_iteration: Callable, get_state: GetState,
                 set_state: SetState, names: Sequence[str], construct: str, opts: dict):
        self.names, self.construct, self.location = names, construct, _where()
        self.get_state, self.set_state = get_state, set_state
        self.given_invariants = opts.get("shape_invariants")
        self.invariants = _aligned_invariants(self.given_invariants, before, names)
        # Values for what is undefined first: their types can decide the numbers' types.
        initial, self.first_set_inside, self.inside_shapes = _settle_undefined(
            before, first_iteration, get_state, set_state, names, self.location)
        _check_loop_inputs(initial, names)
        self.initial = initial

    def _keeping_structures(self, loop_body: Callable, leading: int) -> Callable:
        """``loop_body``, first checking that each variable keeps its nesting, so the error
        names the variable that changed."""
        def body(*state):
            result = tuple(loop_body(*state))
            for name, before, after in zip(self.names, self.initial, result[leading:]):
                if type(after) is Undefined and after.deleted:
                    raise ValueError(
                        f"'{name}' is deleted in the body of the {self.construct}{self.location} "
                        f"(`del {name}`), but it is used after the loop or in the next "
                        f"iteration. A graph loop variable needs a value at the end of every "
                        f"iteration: remove the `del {name}` (assign '{name}' another value "
                        f"instead), or delete it after the loop.")
                if _static_return_value(name, before):
                    continue  # not a loop variable: checked after the loop
                name = _shown(name)
                if nest.structure_of(before) != nest.structure_of(after):
                    _refuse_python_objects_appended(name, before, after, self.construct,
                                                    self.location)
                    raise rt.errors.GraphTypeError(
                        f"'{name}' does not have the same nested structure after one iteration "
                        f"of the {self.construct}{self.location}: the loop body changes the "
                        f"structure of '{name}' from {nest.describe_structure(before)} to "
                        f"{nest.describe_structure(after)}. Keep every loop variable the same kind "
                        f"of value in every iteration; to collect values, append to a list made "
                        f"before the loop, or use rt.TensorArray.")
            return result
        return body

    def run(self, loop_test: Callable, loop_body: Callable, leading: tuple, opts: dict) -> tuple:
        """``rt.while_loop`` over ``leading + state``; returns the final state.

        Python numbers among the loop variables take the type of their first iteration, as
        in Python (``s = 0`` then ``s += x`` with float32 ``x`` makes ``s`` float32). The loop
        is traced with the types they enter with; only if an iteration changes one is it
        traced again from the changed types (a lattice: a few times at most). Tracing each
        loop once in the common case keeps nested loops linear in trace time (probing every
        body first doubled the cost per level of nesting)."""
        saved = _state_before(self.get_state, self.names)
        for _ in range(len(self.initial) + 1):
            try:
                return self._run_once(loop_test, loop_body, leading, opts)
            except _NumberTypesChanged as changed:
                # The aborted trace left the body's values in the variables: put them back.
                _set_state_tolerantly(self.set_state, self.get_state, self.names, saved)
                self.initial = tuple(_settled_structure(value, new)
                                     for value, new in zip(self.initial, changed.after))
        return self._run_once(loop_test, loop_body, leading, opts)

    def _run_once(self, loop_test: Callable, loop_body: Callable, leading: tuple,
                  opts: dict) -> tuple:
        lead = len(leading)
        # A return value that the traced body never sets (its `return` raised, and the
        # exception was caught, while tracing) cannot change in the loop: it stays out of the
        # loop variables, still unset. So does a return value of None (a `return` without a
        # value), which is no tensor: `do_return` says whether it was returned.
        keep = [not _static_return_value(name, value)
                for name, value in zip(self.names, self.initial)]
        produced: dict[int, Any] = {}  # what one iteration leaves in those return values

        def carried(values) -> tuple:
            return tuple(value for value, kept in zip(values, keep) if kept)

        def everything(values) -> tuple:
            values = iter(values)
            return tuple(next(values) if kept else value
                         for value, kept in zip(self.initial, keep))

        test, body = loop_test, self._keeping_structures(loop_body, lead)

        def loop_test(*state):
            result = test(*state[:lead], *everything(state[lead:]))
            _check_integer_widths(self.initial, everything(state[lead:]))
            return result

        def loop_body(*state):
            result = tuple(body(*state[:lead], *everything(state[lead:])))
            _check_integer_widths(self.initial, everything(state[lead:]))
            _check_number_types(self.initial, result[lead:])
            for index, kept in enumerate(keep):
                if not kept:
                    produced[index] = result[lead + index]
            return result[:lead] + carried(result[lead:])

        state_invariants = None if self.invariants is None else carried(self.invariants)
        invariants = _invariants(state_invariants, carried(self.inside_shapes), leading)
        initial = leading + carried(self.initial)
        names = _leaf_names(carried(self.names), carried(self.initial))
        if self.first_set_inside:
            # An extra loop variable records whether the body ran, i.e. assigned them.
            test_first, body_first = loop_test, loop_body
            loop_test = lambda *state: test_first(*state[:-1])  # noqa: E731
            loop_body = lambda *state: tuple(body_first(*state[:-1])) + (True,)  # noqa: E731
            initial, names = initial + (False,), names + ["the loop's ran-once flag"]
            invariants = None if invariants is None else invariants + (None,)
        try:
            final = rt.while_loop(loop_test, loop_body, initial,
                                  maximum_iterations=opts.get("maximum_iterations"),
                                  shape_invariants=invariants,
                                  names=["the loop index"] * lead + names)
        except rt.errors.ShapeError as error:
            if "shape_invariants" not in str(error):
                raise
            raise rt.errors.ShapeError(
                f"{error} In converted code, make `transpiler.set_loop_options(shape_invariants="
                f"[(v, [None, ...])])` the first statement of the loop body.") from None
        if self.first_set_inside:
            listed = ", ".join(f"'{name}'" for name in self.first_set_inside)
            rt.assert_(final[-1],
                       f"the {self.construct}{self.location} ran zero times, so {listed}, first "
                       f"assigned inside it, has no value after it (the loop must iterate at "
                       f"least once to initialize {listed}). Give it a value before the loop.")
            final = final[:-1]
        self.final_leading = tuple(final[:lead])  # where the leading counters ended
        return self._returned_after(everything(final[lead:]), produced)

    def _returned_after(self, state: tuple, produced: dict) -> tuple:
        """``state`` with each return value the loop does not carry as it is after the loop:
        a `return` without a value in the body makes it "returned None", decided by this loop
        (a value where None may have been returned is an error)."""
        state = list(state)
        here = f"the {self.construct}{self.location}"
        for index, new in produced.items():
            entering = self.initial[index]
            if returns_a_value(new) and returns_none(entering):
                raise returned_none_and_a_value(
                    entering if type(entering) is ReturnedNone else ReturnedNone((here,)))
            if new is None:
                state[index] = ReturnedNone((here,))
            elif type(new) is ReturnedNone and new is not entering:
                state[index] = new.inside(here)
        return tuple(state)


def _refuse_python_objects_appended(name: str, before, after, construct: str,
                                    location: str) -> None:
    """The error for a list that a graph loop's body appends something other than numbers and
    tensors to (``fns.append(lambda: i)``): a staged list holds tensors only."""
    if not (isinstance(before, list) and isinstance(after, list) and len(after) > len(before)):
        return
    added = [item for item in after[len(before):]
             if not isinstance(item, (rt.Tensor, np.ndarray, np.generic) + dtypes.PYTHON_SCALARS)]
    if added:
        raise rt.errors.GraphTypeError(
            f"the body of the {construct}{location}, a graph loop, appends "
            f"{type(added[0]).__name__} objects to '{name}': a list grown in a graph loop holds "
            f"tensors only (its items are made when the graph runs, not in Python). Append "
            f"tensors (or numbers), or make the loop a Python loop (over a Python range or "
            f"list).")


def _aligned_invariants(pairs, before: tuple, names: Sequence[str]) -> tuple | None:
    """``set_loop_options``' ``[(value, shape), ...]`` as one entry per state variable: each
    value is found by identity among the values the loop variables enter with."""
    if pairs is None:
        return None
    shapes = {}
    for pair in pairs:
        value, shape = pair
        shapes[id(value)] = shape
    found = set()

    def shape_of(leaf):
        if id(leaf) in shapes:
            found.add(id(leaf))
            return shapes[id(leaf)]
        return None
    aligned = tuple(nest.map_structure(shape_of, value) for value in before)
    missing = [value for value, _ in pairs if id(value) not in found]
    if missing:
        raise ValueError(
            f"set_loop_options(shape_invariants=...){_where()} names {_describe_value(missing[0])}, "
            f"which is not the value of a loop variable when the loop starts (the loop "
            f"variables are {', '.join(repr(n) for n in names) or 'none'}). Pair each shape "
            f"with the variable itself, as it is before the loop: [(v, [None])].")
    return aligned


def _describe_value(value) -> str:
    return f"a tensor {value.name}" if isinstance(value, rt.SymbolicTensor) else repr(value)


def _invariants(given, inside_shapes: tuple, leading: tuple) -> tuple | None:
    """Shape invariants for ``leading + state``: the user's, and for variables first assigned
    in the loop the shapes they have there (their unknown dimensions may vary)."""
    if given is None and not any(shape is not None for shape in inside_shapes):
        return None
    given = tuple(given) if given is not None else (None,) * len(inside_shapes)
    return (None,) * len(leading) + tuple(
        mine if mine is not None else inside for mine, inside in zip(given, inside_shapes))


def _staged_lists(values: tuple, names: Sequence[str], staged: Sequence[str],
                  blocks: Sequence[Callable], get_state: GetState, set_state: SetState) -> tuple:
    """``values`` with the Python lists that the blocks only append to as ``StagedList``s of the
    dtype and shape of their elements: the first one, or, for an empty list, the first value
    a block appends (found by tracing the blocks once)."""
    result = list(values)
    first_appends = {}
    for index, (name, value) in enumerate(zip(names, values)):
        if name not in staged:
            continue
        if type(value) is list and value:
            first = rt.convert_to_tensor(value[0])
            result[index] = StagedList.of(value, first.dtype, first.shape)
        elif type(value) is list or type(value) is _FirstAppend:
            # In an enclosing block's probe the list is a _FirstAppend already: this block's
            # first append is what it learns too.
            first_appends[index] = value if type(value) is _FirstAppend else _FirstAppend()
    if first_appends:
        probing = tuple(first_appends.get(i, value) for i, value in enumerate(result))
        for block in blocks:
            _probe(probing, block, get_state, set_state, names, symbolic=True)
        for index, recorder in first_appends.items():
            if recorder.spec is not None:  # else nothing is appended: it stays a Python list
                result[index] = StagedList.of([], *recorder.spec)
    return tuple(result)


class _FirstAppend:
    """Stands for an empty staged list while the first iteration is traced, to learn the
    dtype and shape of what the loop appends: the first value's shape, and the dtype all the
    values promote to (Python numbers, or tensors standing for them, are weak: a Python int
    appended next to int64 values makes an int64 list)."""

    def __init__(self):
        self.spec = None
        self._types: list = []

    def append(self, value) -> None:
        tensor = value if isinstance(value, rt.Tensor) else rt.convert_to_tensor(value)
        known = dtypes.operand_type(value)
        self._types.append(known if known is not None else tensor.dtype)
        shape = tensor.shape if self.spec is None else self.spec[1]
        self.spec = (dtypes.promote_types(*self._types)[0], shape)


def _static_return_value(name: str, value) -> bool:
    """A return value that is not a tensor: not returned yet (on any path the trace saw), or
    returned without a value."""
    return type(value) in (UndefinedReturnValue, ReturnedNone) or (
        value is None and is_return_value_name(name))


def _check_loop_inputs(initial: Sequence, names: Sequence[str]) -> None:
    for name, value in zip(names, initial):
        if _static_return_value(name, value):
            continue
        if type(value) is Undefined:
            raise ValueError(
                f"'{name}' is assigned inside a loop on a tensor{_where()} and used after it (or in "
                f"the next iteration), but has no value before the loop and the loop body does "
                f"not always assign it: '{name}' must be defined before the loop. Initialize it "
                f"before the loop, with a value of the type it has inside.")
        if value is None:
            raise rt.errors.GraphValueError(
                f"'{name}' is None before a loop on a tensor{_where()}; a graph loop variable must "
                f"be a number or a tensor. Initialize it with a value of the type it has inside "
                f"the loop.")


class _NumberTypesChanged(Exception):
    """An iteration changed the type of a loop variable that entered as a Python number;
    ``after`` is the state it ended with (its values belong to the aborted trace: only their
    types may be used)."""

    def __init__(self, after: tuple):
        super().__init__("a loop variable that is a Python number changed type")
        self.after = after


def _check_number_types(initial: tuple, after: tuple) -> None:
    """Raises ``_NumberTypesChanged`` when one iteration gave a weak loop variable another
    type (without making any op: this runs inside the body's trace)."""
    for value, new in zip(initial, after):
        if nest.structure_of(value) != nest.structure_of(new):
            continue  # the loop reports the change of structure
        if any(dtypes.is_weak(leaf) and _changes_type(leaf, new_leaf)
               for leaf, new_leaf in zip(nest.flatten(value), nest.flatten(new))):
            raise _NumberTypesChanged(after)


def _check_integer_widths(initial: tuple, state: tuple) -> None:
    """Raises ``_NumberTypesChanged`` when a loop variable that entered as a Python int (an
    int32 value in the graph) meets a wider integer in the test or body just traced: ``i = 0``
    then ``while i < n`` with an int64 ``n``. As a Python int it would count past 2**31; as an
    int32 it would wrap around, so the loop is traced again with it as wide as what it meets."""
    graph = tracing.current_graph()
    widened = [_wider_integer_met(graph, value) if type(entered) is int else None
               for entered, value in zip(initial, state)]
    if any(dtype is not None for dtype in widened):
        raise _NumberTypesChanged(tuple(
            value if dtype is None else _weak(rt.cast(value, dtype))
            for value, dtype in zip(state, widened)))


def _wider_integer_met(graph: Graph, value) -> np.dtype | None:
    """The widest signed integer dtype wider than ``value``'s that ``value`` meets in
    ``graph``: the other operand of a comparison, or the cast that arithmetic with a wider
    integer makes of it, here or in a branch or loop that captures it; None if none."""
    if not (is_symbolic(value) and value.dtype.kind == "i"):
        return None
    width = _width_met(graph, value)
    return np.dtype(f"int{8 * width}") if width > value.dtype.itemsize else None


def _width_met(graph: Graph, value) -> int:
    width = value.dtype.itemsize
    for node in graph.nodes:
        met = []
        if node.op is CAST and node.inputs[0] is value:
            met = [node.outputs[0].dtype]
        elif node.op.promotion is Promotion.COMPARE and any(v is value for v in node.inputs):
            met = [operand.dtype for operand in node.inputs]
        width = max([width] + [dtype.itemsize for dtype in met if dtype.kind in "iu"])
        for sub in node.subgraphs.values():
            width = max([width] + [_width_met(sub, inner) for outer, inner in sub.captures
                                   if outer is value])
    return width


def _weak(value):
    value.weak = True
    return value


def _changes_type(value, new) -> bool:
    """Whether ``_settled(value, new)`` gives ``value`` another type."""
    if isinstance(new, rt.Tensor) and new.shape == ():
        own = value.dtype if isinstance(value, rt.Tensor) else dtypes.python_number_dtype(value)
        return new.dtype != own
    return type(new) in (bool, int, float) and isinstance(value, (bool, int, float)) \
        and type(new) is not type(value)


def _settled_structure(value, new):
    """``value`` with each weak leaf in the type of the matching leaf of ``new``."""
    if nest.structure_of(value) != nest.structure_of(new):
        return value  # the loop reports the change of structure
    leaves = [_settled(leaf, after) if dtypes.is_weak(leaf) else leaf
              for leaf, after in zip(nest.flatten(value), nest.flatten(new))]
    return nest.pack_like(value, leaves)


def _settled(value, new):
    """A weak loop variable's value before the loop, in the type it has after one iteration."""
    if isinstance(new, rt.Tensor) and new.shape == ():
        own = value.dtype if isinstance(value, rt.Tensor) else dtypes.python_number_dtype(value)
        if new.dtype == own:
            return value
        # A Python number converts to the new dtype directly (an int too big for it raises):
        # through its own default dtype first, a float64 loop variable that entered as the
        # Python float 9999999999989.0 would start as float32's 9999999827968.0.
        if isinstance(value, rt.Tensor) or (type(value) is float and new.dtype.kind in "iub"):
            settled = rt.cast(value if isinstance(value, rt.Tensor) else rt.constant(value, own),
                              new.dtype)
        else:
            settled = rt.constant(value, new.dtype)
        settled = rt.identity(settled)
        settled.weak = getattr(new, "weak", False)  # may still stand for a Python number
        return settled
    if type(new) in (bool, int, float) and isinstance(value, (bool, int, float)):
        return type(new)(value)  # `s = 0` then `s = s + 0.5`: a Python float, as in Python
    return value


def _settle_undefined(initial: tuple, body, get_state, set_state, names: Sequence[str],
                      location: str) -> tuple[tuple, list[str], tuple]:
    """Loop variables without a value before the loop start as zeros of the type the first
    iteration gives them: a return value (read only after a return ran), and variables first
    assigned inside the loop (``for i in range(n): last = i``), which the loop must then run
    at least once to define. Returns the values, the names of the latter, and their shapes
    in the loop (``None`` for the other variables)."""
    no_shapes = (None,) * len(initial)
    if not any(type(v) in (Undefined, UndefinedReturnValue) for v in initial):
        return initial, [], no_shapes
    # The body must see loop variables as the loop will (tensors, not Python values), or a
    # tensor `if` holding the return would run as a Python `if`.
    after = _probe(initial, body, get_state, set_state, names, symbolic=True)
    undefined = [name for name, value in zip(names, initial) if type(value) is Undefined]
    if isinstance(after, BaseException):
        if undefined and isinstance(after, (NameError, LookupError, AttributeError)):
            raise undefined_before_loop_error(undefined, location, after) from None
        if undefined:
            raise after
        return initial, [], no_shapes
    settled, first_set_inside, shapes = [], [], []
    for name, value, new in zip(names, initial, after):
        if type(value) in (Undefined, UndefinedReturnValue) and type(new) not in (
                Undefined, UndefinedReturnValue) and not isinstance(new, Unset):
            settled.append(nest.map_structure(zeros_like_leaf, new))
            if type(value) is Undefined:
                first_set_inside.append(name)
                shapes.append(nest.map_structure(_shape_or_none, new))
                continue
        else:
            settled.append(value)
        shapes.append(None)
    return tuple(settled), first_set_inside, tuple(shapes)


def undefined_before_loop_error(undefined: Sequence[str], location: str,
                                error: BaseException) -> ValueError:
    """The error for loop variables the body reads before assigning, with no value before."""
    listed = ", ".join(f"'{name}'" for name in undefined)
    return ValueError(
        f"{listed} has no value before a loop on a tensor{location}, and the loop body "
        f"reads it before assigning it ({type(error).__name__}: {error}): it must be "
        f"defined before the loop. Give it a value before the loop, of the type it has "
        f"inside.")


def _shape_or_none(leaf):
    """The shape a loop variable first assigned in the loop keeps (``...``: unknown rank)."""
    if not isinstance(leaf, rt.Tensor):
        return None
    return Ellipsis if leaf.shape is None else leaf.shape


def _probe(values: tuple, body, get_state, set_state, names: Sequence[str],
           symbolic: bool = False):
    """The state after one run of ``body`` from ``values`` (as placeholders if ``symbolic``),
    traced into a scratch graph so the real graph is untouched; the exception if it fails."""
    graph = tracing.current_graph()
    scratch = Graph(f"{graph.name}/probe", parent=graph)
    saved = _state_before(get_state, names)
    try:
        with tracing.building(scratch):
            values = _fresh(values, _as_placeholder if symbolic else None)
            _set_state_tolerantly(set_state, get_state, names, values)
            body()
            return _state_before(get_state, names)
    except Exception as error:  # noqa: BLE001 - the caller decides what it means
        return error
    finally:
        _set_state_tolerantly(set_state, get_state, names, saved)


def _fresh(values: tuple, leaf_of: Callable | None = None) -> tuple:
    """New containers (and staged lists) around the same leaves (or ``leaf_of`` them), so that
    what traced code changes in place is not shared with the caller's values."""
    return tuple(nest.map_structure(leaf_of or (lambda leaf: leaf), value) for value in values)


def _as_placeholder(leaf):
    """A stand-in for a loop variable as the loop body sees it."""
    if isinstance(leaf, (bool, int, float)) or type(leaf) in (rt.EagerTensor, rt.SymbolicTensor):
        array_type = rt.dtypes.to_array(leaf, dtypes.python_number_dtype(leaf)) \
            if isinstance(leaf, (bool, int, float)) else leaf
        placeholder = tracing.current_graph().add_placeholder(array_type.dtype, array_type.shape,
                                                              "probe")
        placeholder.weak = dtypes.is_weak(leaf)  # a Python number stays one in the loop
        return placeholder
    return leaf


def loop_options(shape_invariants=None, maximum_iterations=None, parallel_iterations=None,
                 swap_memory=None) -> dict:
    """What ``set_loop_options(...)`` at the top of a loop body asked for (the last two are
    accepted for TensorFlow code and have no effect here)."""
    if shape_invariants is not None:
        pairs = list(shape_invariants)
        if not all(isinstance(p, (tuple, list)) and len(p) == 2 for p in pairs):
            raise TypeError(
                f"set_loop_options(shape_invariants=...){_where()} takes a list of (variable, "
                f"shape) pairs, such as [(v, [None])]; got {shape_invariants!r}.")
        shape_invariants = pairs
    return {"shape_invariants": shape_invariants, "maximum_iterations": maximum_iterations}


# -- for -----------------------------------------------------------------------------------


def for_stmt(iterable, extra_test: Callable | None, body: Callable[[Any], None],
             get_state: GetState = _no_state, set_state: SetState = _ignore_state,
             names: Sequence[str] = (), opts: dict | None = None, *, mutates: Sequence[str] = (),
             outer: Sequence[str] = (), staged: Sequence[str] = ()):
    """``for item in iterable: body(item)``, stopping when ``extra_test()`` is false (break,
    return). A graph loop over a symbolic range or tensor; unrolled over Python iterables."""
    opts = opts or {}
    if mutates:
        mutates = _object_mutations(mutates, sys._getframe(1))
    backend = _for_backend(iterable)
    if backend is None:
        _python_for(iterable, extra_test, body, get_state, set_state, names, opts,
                    mutates=mutates)
        return
    backend.for_stmt(iterable, extra_test, body, get_state, set_state, names, opts,
                     mutates=mutates, outer=outer, staged=staged)


def _for_backend(iterable):
    """The backend staging a for loop over ``iterable`` (without making any op); None for a
    Python iterable, which the loop unrolls."""
    if isinstance(iterable, StagedList) or (isinstance(iterable, rt.data.Dataset)
                                            and tracing.is_tracing()) \
            or (isinstance(iterable, rt.data.Iterator) and iterable.stages_in_trace()):
        return staging.backend_for_runtime()
    if is_sequence(iterable):
        return staging.backend_for_any(tensors_of(iterable))
    if isinstance(iterable, staging.StagedRange):
        return staging.backend_for_bounds((iterable.start, iterable.limit, iterable.delta))
    return staging.backend_for(iterable)


def graph_for_stmt(iterable, extra_test: Callable | None, body: Callable[[Any], None],
                   get_state: GetState, set_state: SetState, names: Sequence[str], opts: dict, *,
                   mutates: Sequence[str], outer: Sequence[str], staged: Sequence[str]) -> None:
    """The runtime backend's for loop over a symbolic range or tensor: ``rt.while_loop``."""
    loop = _tensor_loop_of(iterable)
    _reject_mutations(mutates, "a for loop", _ONCE_PER_TRACE)
    with naming_construct("for loop"):
        start, limit, delta, item_of = loop
        before = _state_before(get_state, names)
        first_iteration = lambda: body(item_of(_weak_copy(start)))  # noqa: E731
        entering = _staged_lists(before, names, staged, (first_iteration,), get_state, set_state)
        graph_loop = _GraphLoop(entering, first_iteration, get_state, set_state, names, "for loop",
                                opts)

        def loop_test(index, *state):
            set_state(state)
            more = _range_continues(index, limit, delta)
            if extra_test is None:
                return more
            return rt.cond(more, lambda: _as_condition(extra_test()), lambda: rt.constant(False))

        def loop_body(index, *state):
            set_state(state)
            following = _next_index(index, delta)
            index.weak = True  # the counter stands for a Python int, as in the user's loop
            body(item_of(index))
            return (following,) + tuple(get_state())

        final = graph_loop.run(loop_test, loop_body, (start,), opts)
        _refuse_graph_values_outside(outer, names, final, get_state, set_state, before, "a for loop")
        set_state(final)


def kept_number_message(loop: str, name: str, made: str) -> str:
    """What a staged loop that ran zero times says of ``name``, a Python number before it that
    each iteration makes ``made`` (another kind: ``total = 0``, then ``total += x[i]``, a
    float): Python keeps the number there, and one traced value cannot be both."""
    return (f"{loop} ran zero times, so '{name}' keeps the Python number it had before it, "
            f"which each iteration makes {made}; one traced value cannot be both. Give "
            f"'{name}' a value of the loop's kind before it (0.0 for a float).")


def widened_message(loop: str, name: str, narrow: str, wide: str) -> str:
    """What a staged loop that ran zero times says of ``name``, which each iteration makes the
    wider dtype ``wide`` (an int32 ``x``, then ``x = x / 2``): Python keeps ``narrow`` there,
    and one traced value cannot be both."""
    return (f"{loop} ran zero times, so '{name}' keeps the dtype {narrow} it had before it, "
            f"which each iteration makes {wide}; one traced value cannot be both. Give '{name}' "
            f"the dtype {wide} before the loop.")


def zero_step_message() -> str:
    """What a staged ``for`` loop over a range whose step is 0 says (Python's ``range`` raises
    ``ValueError`` with the words this message starts with)."""
    return (f"range() arg 3 must not be zero: the for loop{_where()} iterates over a range "
            f"whose step is 0, which Python refuses. Give range a step other than 0.")


def _as_condition(value):
    if isinstance(value, rt.Tensor):
        return value
    return rt.constant(bool(value))


def _next_index(index, delta):
    """The counter's next value in its own dtype, the range's (computed before the counter
    becomes weak, so an int8 counter stays int8); counting down subtracts, as -1 is no uint8."""
    if not is_symbolic(delta) and isinstance(delta, (int, np.integer)) and delta < 0:
        return index - (-delta)
    return index + delta


def _range_continues(index, limit, delta):
    if not is_symbolic(delta) and isinstance(delta, (int, np.integer)):
        return index < limit if delta > 0 else index > limit
    positive = rt.logical_and(delta > 0, index < limit)
    negative = rt.logical_and(delta < 0, index > limit)
    return rt.logical_or(positive, negative)


def _length(tensor):
    if tensor.shape is not None and tensor.shape and tensor.shape[0] is not None:
        return tensor.shape[0]
    if tensor.shape == ():
        raise TypeError(f"cannot iterate over a scalar tensor{_where()}.")
    return rt.shape(tensor)[0]


def _tensor_loop_of(iterable):
    """``(start, limit, delta, item_of_index)`` for iterables that need a graph loop."""
    if is_sequence(iterable):
        return (0, length_of(iterable, _length, rt.minimum), 1,
                lambda i: item_at(iterable, i, _as_python_int))
    if isinstance(iterable, StagedList):
        return 0, iterable.size(), 1, lambda i: iterable[i]
    if not is_symbolic(iterable):
        return None
    node = iterable.node
    if node.op is RANGE and node.graph is tracing.current_graph():
        start, limit, delta = node.inputs
        return start, limit, _static(delta), lambda i: i
    return 0, _length(iterable), 1, lambda i: iterable[i]


def _weak_copy(value):
    """The range's first item as the probe of the first iteration sees it: standing for a
    Python int, like the counter in later iterations (``value`` itself stays as it is)."""
    if not is_symbolic(value):
        return value
    copy = rt.identity(value)
    copy.weak = True
    return copy


def _as_python_int(value):
    """A counter computed from the loop index stands for a Python int too."""
    if is_symbolic(value):
        value.weak = True
    return value


def _static(value):
    """A range step known while tracing, as a Python number (``range`` casts its bounds, so a
    constant step arrives as a cast of a constant): an int, or a float for a range of floats
    (``rt.range(0.0, 1.0, 0.25)``)."""
    source = value.node.inputs[0] if is_symbolic(value) and value.node.op is CAST else value
    known = constant_value(source)
    if known is None or known.ndim != 0:
        return value
    return float(known) if known.dtype.kind == "f" else int(known)


def _staged_rest(backend, rest: range, extra_test, body, get_state, set_state, names,
                 opts: dict) -> bool:
    """Whether ``backend`` ran the iterations ``rest`` of a ``for`` over a Python range as one
    staged loop, once a ``break`` or ``return`` made ``extra_test()`` a staged value: unrolled,
    each remaining iteration is a conditional nested in the one before (a hundred of them took
    PyTorch over a minute to compile). Its counter is then staged too: a loop that builds a
    list, or a body that needs the counter as a Python int (a list index), is unrolled."""
    before = _state_before(get_state, names)
    if any(type(value) is list for value in before):
        return False
    try:
        return backend.stages_rest_of_range(rest, extra_test, body, get_state, set_state,
                                            names, opts)
    except Exception:  # noqa: BLE001 - unrolled instead, which raises a real error again
        _set_state_tolerantly(set_state, get_state, names, before)
        return False


def _python_for(iterable, extra_test, body, get_state, set_state, names, opts=None, *,
                mutates=()) -> None:
    with unroll_watch("for loop") as watch:
        if extra_test is None:
            for item in iterable:
                body(item)
                watch.iterations += 1
            return
        keep_going = extra_test()
        if staging.backend_for(keep_going) is None and not keep_going:
            return
        for index, item in enumerate(iterable):
            backend = staging.backend_for(keep_going)
            if backend is not None and isinstance(iterable, range) and not mutates and \
                    _staged_rest(backend, iterable[index:], extra_test, body, get_state,
                                 set_state, names, opts or {}):
                return
            if backend is not None:
                # A break or return decided by a tensor: the remaining (unrolled) iterations
                # run only where no earlier iteration stopped the loop.
                if_stmt(keep_going, lambda item=item: body(item), lambda: None, get_state,
                        set_state, names)
            else:
                body(item)
            watch.iterations += 1
            keep_going = extra_test()
            if staging.backend_for(keep_going) is None and not keep_going:
                return
