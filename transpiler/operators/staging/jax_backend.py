"""The JAX backend: control flow on JAX tracers (under ``jax.jit``, ``grad``, ``vmap``) becomes
``lax.cond``, ``lax.while_loop`` and ``lax.fori_loop``.

Imported only when a tracer reaches an ``ag__`` operator (so JAX is already imported). The
Python semantics and the checks with their messages are the shared ones of
``transpiler.operators.control_flow``; what is JAX's own:

* Leaves. Arrays, tracers and Python numbers are values the engine carries; any other leaf
  (None, a string, a function, an unset return value) is static: it must be the same on both
  branches and in every iteration.
* Types. ``lax.cond`` needs one dtype and one shape per output. A Python number (weak type)
  next to an array takes the array's dtype where its kind fits (``1`` next to float32), as in
  the runtime; anything else is an error naming the variable. Branches are traced once; only
  when the branch traced first needs a conversion (or a zero for an unset return value) are
  they traced again, knowing the types.
* Loops. ``lax.while_loop`` promotes weak loop variables itself (``s = 0`` then ``s += x``);
  a strong dtype or a shape that changes is an error naming the variable. A variable first
  assigned in the loop (and the return value of a ``return`` in it) starts as zeros of the
  type one probe iteration gives it (``jax.eval_shape``, so nothing is left in the trace); if
  the loop may run zero times, a run-time check raises when it did. A ``for`` over a range or
  an array of static length without ``break``/``return`` is a ``lax.fori_loop`` (a ``scan``,
  so ``jax.grad`` goes through it); others are ``lax.while_loop``.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import runtime as rt
from runtime import nest
from runtime.control_flow import Unset
from transpiler.operators import control_flow as cf
from transpiler.operators.control_flow import TensorEnumerate, TensorZip, naming_construct
from transpiler.operators.staging import StagedRange, is_jax_tracer
from transpiler.operators.variables import (ReturnedNone, Undefined, UndefinedReturnValue,
                                            is_return_value_name)

_NUMBERS = (bool, int, float, complex)
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


# -- leaves ------------------------------------------------------------------------------------


def _is_array(leaf) -> bool:
    """A leaf the engine carries (the others are static Python values)."""
    return isinstance(leaf, (jax.Array, np.ndarray, np.generic, jax.ShapeDtypeStruct) + _NUMBERS)


def _spec(leaf) -> jax.ShapeDtypeStruct:
    if isinstance(leaf, jax.ShapeDtypeStruct):
        return leaf
    if isinstance(leaf, _NUMBERS):
        return jax.ShapeDtypeStruct((), jnp.result_type(leaf), weak_type=type(leaf) is not bool)
    aval = getattr(leaf, "aval", None)
    if aval is not None:
        return jax.ShapeDtypeStruct(aval.shape, aval.dtype, weak_type=aval.weak_type)
    array = np.asarray(leaf)
    return jax.ShapeDtypeStruct(array.shape, array.dtype)


def _zeros(spec: jax.ShapeDtypeStruct):
    """A zero of ``spec``'s type: a Python zero for a weak scalar (it stays weak)."""
    if spec.weak_type and spec.shape == ():
        return {"b": False, "f": 0.0, "c": 0j}.get(np.dtype(spec.dtype).kind, 0)
    return jnp.zeros(spec.shape, spec.dtype)


def _zeros_like(value):
    return nest.map_structure(lambda leaf: _zeros(_spec(leaf)) if _is_array(leaf) else leaf,
                              value)


def _converted(leaf, spec: jax.ShapeDtypeStruct):
    """``leaf`` in ``spec``'s dtype (a Python number stays one when ``spec`` is weak)."""
    if _spec(leaf).dtype == spec.dtype:
        return leaf
    if spec.weak_type and isinstance(leaf, _NUMBERS):
        return {"b": bool, "i": int, "u": int, "f": float, "c": complex}[
            np.dtype(spec.dtype).kind](leaf)
    return jnp.asarray(leaf, spec.dtype)


def _describe(spec: jax.ShapeDtypeStruct) -> str:
    if spec.weak_type:
        kind = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[
            np.dtype(spec.dtype).kind]
        return f"a Python {kind}"
    return f"dtype {np.dtype(spec.dtype).name}"


def _joined(name: str, a: jax.ShapeDtypeStruct, b: jax.ShapeDtypeStruct, construct: str,
            location: str) -> jax.ShapeDtypeStruct:
    """The one type a conditional gives ``name`` from the true branch's ``a`` and the false
    branch's ``b``, or the error naming it."""
    if tuple(a.shape) != tuple(b.shape):
        raise rt.errors.GraphTypeError(
            f"'{name}' has shape {tuple(a.shape)} in the true branch but {tuple(b.shape)} in the "
            f"false branch of the {construct} on a JAX tracer{location}; lax.cond needs the same "
            f"shape from both branches. Pad or reshape one of them, or decide with a Python value.")
    kind_a, kind_b = np.dtype(a.dtype).kind, np.dtype(b.dtype).kind
    if a.dtype == b.dtype:
        return jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type and b.weak_type)
    if a.weak_type and b.weak_type and kind_a != kind_b:
        raise rt.errors.GraphTypeError(
            f"'{name}' is {_describe(a)} in the true branch but {_describe(b)} in the false "
            f"branch of the {construct} on a JAX tracer{location}; Python would give a different "
            f"type on each path, which one traced value cannot. Make both the same type (e.g. "
            f"write 1.0 instead of 1).")
    if a.weak_type != b.weak_type:
        weak, strong = (a, b) if a.weak_type else (b, a)
        if _KIND_RANK[np.dtype(weak.dtype).kind] <= _KIND_RANK[np.dtype(strong.dtype).kind]:
            return jax.ShapeDtypeStruct(strong.shape, strong.dtype)
    elif a.weak_type:
        return jax.ShapeDtypeStruct(a.shape, jnp.promote_types(a.dtype, b.dtype), weak_type=True)
    raise rt.errors.GraphTypeError(
        f"'{name}' has {_describe(a)} in the true branch but {_describe(b)} in the false branch "
        f"of the {construct} on a JAX tracer{location}; both branches must give the same dtype "
        f"(convert one of them with .astype(...)).")


def _condition(value, construct: str):
    """A bool scalar from a traced condition: numbers mean ``!= 0``; non-scalars are errors."""
    if np.ndim(value) != 0:
        raise ValueError(
            f"the condition of {construct} must be a scalar, got an array of shape "
            f"{tuple(np.shape(value))}{cf._where()}. Reduce it with jnp.all or jnp.any to say "
            f"which truth you mean.")
    value = jnp.asarray(value)
    return value if value.dtype == jnp.bool_ else value != 0


# -- conditionals ------------------------------------------------------------------------------


class _Retry(Exception):
    """The branch traced first must be traced again, knowing the types of both."""

    def __init__(self, targets: list):
        super().__init__("retrace the branches of a conditional")
        self.targets = targets


def _apply(values: tuple, targets: list | None) -> tuple:
    """``values`` with unset values filled with zeros and numbers converted, per ``targets``."""
    if targets is None:
        return values
    result = []
    for value, target in zip(values, targets):
        if target is None:
            result.append(value)
        elif isinstance(value, Unset):
            result.append(nest.map_structure(
                lambda leaf: _zeros(leaf) if isinstance(leaf, jax.ShapeDtypeStruct) else leaf,
                target))
        else:
            leaves = [_converted(leaf, spec) if _is_array(leaf) and
                      isinstance(spec, jax.ShapeDtypeStruct) else leaf
                      for leaf, spec in zip(nest.flatten(value), nest.flatten(target))]
            result.append(nest.pack_like(value, leaves))
    return tuple(result)


def _targets(then_values: tuple, else_values: tuple, names: Sequence[str], construct: str,
             location: str) -> list:
    """Per value, the types both branches give it (a structure of ``ShapeDtypeStruct``s and
    static leaves), or None when neither branch sets it."""
    targets = []
    for name, a, b in zip(names, then_values, else_values):
        if isinstance(a, Unset) and isinstance(b, Unset):
            targets.append(None)
            continue
        if isinstance(a, Unset) or isinstance(b, Unset):
            known = b if isinstance(a, Unset) else a
            targets.append(nest.map_structure(lambda x: _spec(x) if _is_array(x) else x, known))
            continue
        shown = cf._shown(name) if name != "the value" else name
        if nest.structure_of(a) != nest.structure_of(b):
            raise rt.errors.GraphStructureError(
                f"the two branches of the {construct} on a JAX tracer give '{shown}' different "
                f"structures: {nest.describe_structure(a)} and {nest.describe_structure(b)}"
                f"{location}. Give it the same nested structure in both branches.")
        paths = nest.leaf_paths(a)
        leaves = []
        for path, x, y in zip(paths, nest.flatten(a), nest.flatten(b)):
            leaf_name = f"{shown}{path}"
            if not (_is_array(x) and _is_array(y)):
                if (x is None) != (y is None):
                    branch = "true" if x is None else "false"
                    raise rt.errors.GraphValueError(
                        f"'{leaf_name}' is None in the {branch} branch of the {construct} on a "
                        f"JAX tracer but a value in the other{location}. Give it a value in both "
                        f"branches.")
                if _is_array(x) != _is_array(y) or not (x is y or _equal(x, y)):
                    raise rt.errors.GraphTypeError(
                        f"'{leaf_name}' is {x!r} in the true branch and {y!r} in the false "
                        f"branch of the {construct} on a JAX tracer{location}; a traced "
                        f"conditional can only choose between arrays and numbers, so make both "
                        f"branches give arrays of the same dtype.")
                leaves.append(x)
                continue
            leaves.append(_joined(leaf_name, _spec(x), _spec(y), construct, location))
        targets.append(nest.pack_like(a, leaves))
    return targets


def _equal(a, b) -> bool:
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - an object without a truthful == is not equal
        return False


def _needs_change(values: tuple, targets: list) -> bool:
    """Whether ``_apply(values, targets)`` changes anything (a fill or a conversion)."""
    for value, target in zip(values, targets):
        if target is None:
            continue
        if isinstance(value, Unset):
            return True
        for leaf, spec in zip(nest.flatten(value), nest.flatten(target)):
            if _is_array(leaf) and isinstance(spec, jax.ShapeDtypeStruct) \
                    and _spec(leaf).dtype != spec.dtype:
                return True
    return False


def _cond(pred, true_fn: Callable[[], tuple], false_fn: Callable[[], tuple], *, construct: str,
          location: str, names: Sequence[str], check_pair: Callable | None = None,
          prepare: Callable = lambda values: values) -> tuple:
    """``true_fn() if pred else false_fn()`` for functions returning tuples of values, as a
    ``lax.cond``. ``check_pair(then_values, else_values)`` runs the shared checks on what the
    branches gave; ``prepare`` turns a branch's values into what the conditional outputs."""
    pred = _condition(pred, f"the {construct}")
    targets = None
    for _ in range(3):
        seen: dict[str, tuple] = {}
        try:
            flat = lax.cond(pred, _branch(true_fn, "true", seen, targets, check_pair, prepare,
                                          names, construct, location),
                            _branch(false_fn, "false", seen, targets, check_pair, prepare,
                                    names, construct, location))
            break
        except _Retry as retry:
            targets = retry.targets
    else:  # pragma: no cover - types settle after one retry
        raise AssertionError("the branches' types did not settle")
    outputs = iter(flat)
    template = seen["true"]
    return nest.pack_like(template, [next(outputs) if _is_array(leaf) else leaf
                                     for leaf in nest.flatten(template)])


def _branch(fn: Callable, label: str, seen: dict, targets, check_pair, prepare, names,
            construct: str, location: str) -> Callable:
    other = "false" if label == "true" else "true"

    def traced():
        raw = tuple(fn())
        seen[f"raw {label}"] = raw
        values = _apply(prepare(raw), targets)
        if other in seen and targets is None:
            then_raw, else_raw = (seen["raw true"], seen["raw false"])
            if check_pair is not None:
                check_pair(then_raw, else_raw)
            then_values, else_values = (values, seen[other]) if label == "true" \
                else (seen[other], values)
            found = _targets(then_values, else_values, names, construct, location)
            if _needs_change(seen[other], found):
                raise _Retry(found)
            values = _apply(values, found)
        seen[label] = values
        return [leaf for leaf in nest.flatten(values) if _is_array(leaf)]
    return traced


# -- loops -------------------------------------------------------------------------------------


def _refuse_staged_lists(values: tuple, names: Sequence[str], staged: Sequence[str],
                         construct: str) -> None:
    for name, value in zip(names, values):
        if name in staged and type(value) is list:
            raise NotImplementedError(
                f"'{name}' is a list appended to inside {construct} on a JAX tracer{cf._where()}; "
                f"the JAX backend does not carry lists through traced control flow yet. Carry an "
                f"array instead (e.g. preallocate with jnp.zeros and write with .at[i].set), or "
                f"decide with a Python value.")


class _Loop:
    """``lax.while_loop`` / ``fori_loop`` over the state of a converted loop."""

    def __init__(self, get_state, set_state, names: Sequence[str], construct: str):
        self.get_state, self.set_state, self.names = get_state, set_state, tuple(names)
        self.construct, self.location = construct, cf._where()

    # The state as the loop carries it: the array leaves of every variable, in order; the
    # static leaves stay those of ``self.initial``.
    def _carried(self, values: tuple) -> list:
        return [leaf for value in values for leaf in nest.flatten(value) if _is_array(leaf)]

    def _unpacked(self, carried: Sequence) -> tuple:
        leaves = iter(carried)
        return tuple(nest.pack_like(value, [next(leaves) if _is_array(leaf) else leaf
                                            for leaf in nest.flatten(value)])
                     for value in self.initial)

    def _checked(self, after: tuple, entering: Sequence) -> list:
        """The carried leaves of ``after``, checked against the loop variables' types."""
        for name, before, new in zip(self.names, self.initial, after):
            shown = cf._shown(name)
            if type(new) is Undefined and new.deleted:
                raise ValueError(
                    f"'{name}' is deleted in the body of the {self.construct}{self.location} "
                    f"(`del {name}`), but it is used after the loop or in the next iteration. A "
                    f"traced loop variable needs a value at the end of every iteration.")
            if nest.structure_of(before) != nest.structure_of(new) or any(
                    _is_array(a) != _is_array(b)
                    for a, b in zip(nest.flatten(before), nest.flatten(new))):
                if is_return_value_name(name) and cf._static_return_value(name, before):
                    raise NotImplementedError(
                        f"a `return` without a value inside the {self.construct} on a JAX "
                        f"tracer{self.location} is not supported yet; return a value.")
                raise rt.errors.GraphTypeError(
                    f"'{shown}' does not have the same nested structure after one iteration of "
                    f"the {self.construct}{self.location}: the loop body changes it from "
                    f"{nest.describe_structure(before)} to {nest.describe_structure(new)}. Keep "
                    f"every loop variable the same kind of value in every iteration.")
        carried = self._carried(after)
        paths = [f"{cf._shown(name)}{path}" for name, value in zip(self.names, self.initial)
                 for path, leaf in zip(nest.leaf_paths(value), nest.flatten(value))
                 if _is_array(leaf)]
        for path, old, new in zip(paths, entering, carried):
            old_spec, new_spec = _spec(old), _spec(new)
            if tuple(old_spec.shape) != tuple(new_spec.shape):
                raise rt.errors.GraphTypeError(
                    f"'{path}' has shape {tuple(old_spec.shape)} before an iteration of the "
                    f"{self.construct}{self.location} and {tuple(new_spec.shape)} after it; a "
                    f"JAX loop variable keeps its shape. Pad it to its final shape before the "
                    f"loop.")
            if old_spec.dtype != new_spec.dtype and not old_spec.weak_type:
                raise rt.errors.GraphTypeError(
                    f"'{path}' has {_describe(old_spec)} before an iteration of the "
                    f"{self.construct}{self.location} and {_describe(new_spec)} after it; a JAX "
                    f"loop variable keeps its dtype. Convert it with .astype(...) in the body, "
                    f"or give it the loop's dtype before the loop.")
        return carried

    def settle(self, before: tuple, first_iteration: Callable) -> None:
        """Initial values: zeros of the type the first iteration gives what has none yet."""
        self.first_set_inside: list[str] = []
        self.initial = before
        if not any(type(v) in (Undefined, UndefinedReturnValue) for v in before):
            cf._check_loop_inputs(before, self.names)
            return
        saved = cf._state_before(self.get_state, self.names)
        found: dict[str, tuple] = {}

        def probe(*carried):
            cf._set_state_tolerantly(self.set_state, self.get_state, self.names,
                                     cf._fresh(self._unpacked(carried)))
            first_iteration()
            after = cf._state_before(self.get_state, self.names)
            found["after"] = after
            return [leaf for value in after for leaf in nest.flatten(value) if _is_array(leaf)]

        undefined = [n for n, v in zip(self.names, before) if type(v) is Undefined]
        try:
            specs = jax.eval_shape(probe, *self._carried(before))
        except (NameError, LookupError, AttributeError) as error:
            if not undefined:
                raise
            raise cf.undefined_before_loop_error(undefined, self.location, error) from None
        finally:
            cf._set_state_tolerantly(self.set_state, self.get_state, self.names, saved)
        specs = iter(specs)
        after = tuple(nest.pack_like(v, [next(specs) if _is_array(leaf) else leaf
                                         for leaf in nest.flatten(v)]) for v in found["after"])
        settled = []
        for name, value, new in zip(self.names, before, after):
            if type(value) in (Undefined, UndefinedReturnValue) and type(new) not in (
                    Undefined, UndefinedReturnValue) and not isinstance(new, Unset) \
                    and new is not None:
                settled.append(_zeros_like(new))
                if type(value) is Undefined:
                    self.first_set_inside.append(name)
            else:
                settled.append(value)
        self.initial = tuple(settled)
        cf._check_loop_inputs(self.initial, self.names)

    def run(self, leading: tuple, test: Callable, step: Callable,
            trips: int | None = None) -> tuple:
        """Runs the loop with ``leading`` values (a counter) before the state; ``test(*lead)``
        and ``step(*lead) -> lead`` see the state through ``get_state``/``set_state``. With
        ``trips`` (a static trip count and no early exit) it is a ``fori_loop``."""
        lead = len(leading)
        flag = bool(self.first_set_inside)

        def split(carry):
            carry = list(carry)
            if flag:
                carry = carry[:-1]
            return tuple(carry[:lead]), carry[lead:]

        def cond_fun(carry):
            lead_values, carried = split(carry)
            self.set_state(self._unpacked(carried))
            return _condition(test(*lead_values), f"the {self.construct}")

        def body_fun(carry):
            lead_values, carried = split(carry)
            self.set_state(self._unpacked(carried))
            new_lead = tuple(step(*lead_values))
            after = cf._state_before(self.get_state, self.names)
            result = [*new_lead, *self._checked(after, carried)]
            return tuple(result + [True]) if flag else tuple(result)

        init = [*leading, *self._carried(self.initial)] + ([False] if flag else [])
        if trips is not None:
            final = lax.fori_loop(0, trips, lambda _, carry: body_fun(carry), tuple(init))
        else:
            final = lax.while_loop(cond_fun, body_fun, tuple(init))
        if flag:
            listed = ", ".join(f"'{name}'" for name in self.first_set_inside)
            message = (f"the {self.construct}{self.location} ran zero times, so {listed}, first "
                       f"assigned inside it, has no value after it. Give it a value before the "
                       f"loop.")
            jax.debug.callback(_check_ran, final[-1], message)
            final = final[:-1]
        return self._unpacked(final[lead:])


def _check_ran(ran, message: str) -> None:
    if not np.all(np.asarray(ran)):
        raise ValueError(message)


def _sequence(iterable):
    """``(start, limit, delta, item_of_index, static_length)`` of a staged iterable."""
    if isinstance(iterable, StagedRange):
        bounds = [iterable.start, iterable.limit, iterable.delta]
        for bound in bounds:
            if np.dtype(_spec(bound).dtype).kind not in "iu":
                raise TypeError(
                    f"range() takes integers, but got an array of dtype "
                    f"{np.dtype(_spec(bound).dtype).name}{cf._where()}. Convert it with "
                    f".astype(jnp.int32) if a whole number is meant.")
        dtype = jnp.result_type(*[b for b in bounds if is_jax_tracer(b)])
        start, limit = (jnp.asarray(b, dtype) for b in bounds[:2])
        delta = bounds[2] if isinstance(bounds[2], int) else jnp.asarray(bounds[2], dtype)
        return start, limit, delta, lambda i: i, None
    if isinstance(iterable, TensorEnumerate):
        array, offset = iterable.tensor, iterable.start
        return 0, _length(array), 1, lambda i: (i + offset, array[i]), _length(array)
    if isinstance(iterable, TensorZip):
        length = min(_length(array) for array in iterable.tensors)
        arrays = iterable.tensors
        return 0, length, 1, lambda i: tuple(array[i] for array in arrays), length
    return 0, _length(iterable), 1, lambda i: iterable[i], _length(iterable)


def _length(array) -> int:
    if np.ndim(array) == 0:
        raise TypeError(f"cannot iterate over a scalar array{cf._where()}.")
    return np.shape(array)[0]


def _continues(index, limit, delta):
    if isinstance(delta, int):
        return index < limit if delta > 0 else index > limit
    return jnp.where(delta > 0, index < limit, index > limit)


# -- the backend -------------------------------------------------------------------------------


class JaxBackend:
    """Stages control flow on JAX tracers."""

    name = "jax"
    stages = staticmethod(is_jax_tracer)

    @staticmethod
    def if_stmt(cond, body, orelse, get_state, set_state, names, nouts, *, mutates, outer,
                staged):
        cf._reject_mutations(mutates, "an if statement", "both branches are traced once, "
                             "whichever the condition picks when it runs")
        nouts = len(names) if nouts is None else nouts
        before = cf._state_before(get_state, names)
        _refuse_staged_lists(before, names, staged, "an if statement")
        location = cf._where()
        returned_none = ReturnedNone((f"the if statement{location}",))
        labelled = ("",) + tuple(names[:nouts])

        def branch(fn: Callable, label: str) -> Callable:
            def run() -> tuple:
                cf._set_state_tolerantly(set_state, get_state, names, cf._fresh(before))
                result = fn()
                outputs = cf._state_before(get_state, names)[:nouts]
                cf._check_branch_outputs(outputs, names, label, location)
                return (result,) + outputs
            return run

        def check_pair(then_values: tuple, else_values: tuple) -> None:
            cf._check_return_kinds(then_values, else_values, labelled, location)
            cf._check_branch_structures(then_values, else_values, labelled, location)

        def prepare(values: tuple) -> tuple:
            return values[:1] + tuple(
                returned_none if value is None and is_return_value_name(name) else value
                for name, value in zip(names, values[1:]))

        with naming_construct("if statement"):
            result, *outputs = _cond(cond, branch(body, "if"), branch(orelse, "else"),
                                     construct="if statement", location=location,
                                     names=labelled, check_pair=check_pair, prepare=prepare)
        cf._set_state_tolerantly(set_state, get_state, names,
                                 tuple(outputs) + tuple(before[nouts:]))
        return result

    @staticmethod
    def if_exp(cond, if_true, if_false):
        return JaxBackend._choose(cond, if_true, if_false, "conditional expression")

    @staticmethod
    def _choose(cond, if_true: Callable, if_false: Callable, construct: str):
        location = cf._where()
        with naming_construct(construct):
            value, = _cond(cond, lambda: (if_true(),), lambda: (if_false(),),
                           construct=construct, location=location, names=("the value",))
        return value

    @staticmethod
    def not_(value):
        return jnp.logical_not(_condition(value, "a `not` expression"))

    @staticmethod
    def and_(value, right):
        return JaxBackend._choose(value, right, lambda: value, "`and` expression")

    @staticmethod
    def or_(value, right):
        return JaxBackend._choose(value, lambda: value, right, "`or` expression")

    @staticmethod
    def while_stmt(test, body, get_state, set_state, names, opts, *, mutates, outer, staged):
        cf._reject_mutations(mutates, "a while loop", cf._ONCE_PER_TRACE)
        before = cf._state_before(get_state, names)
        _refuse_staged_lists(before, names, staged, "a while loop")
        with naming_construct("while loop"):
            loop = _Loop(get_state, set_state, names, "while loop")
            loop.settle(before, body)
            final = loop.run((), test, lambda: (body(), ())[1])
        set_state(final)

    @staticmethod
    def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts, *, mutates,
                 outer, staged):
        cf._reject_mutations(mutates, "a for loop", cf._ONCE_PER_TRACE)
        before = cf._state_before(get_state, names)
        _refuse_staged_lists(before, names, staged, "a for loop")
        with naming_construct("for loop"):
            start, limit, delta, item_of, length = _sequence(iterable)
            loop = _Loop(get_state, set_state, names, "for loop")
            loop.settle(before, lambda: body(item_of(start)))

            def test(index):
                more = _continues(index, limit, delta)
                if extra_test is None:
                    return more
                return jnp.logical_and(more, _condition(extra_test(), "the for loop"))

            def step(index):
                body(item_of(index))
                return (index + delta,)

            static = length if extra_test is None and not loop.first_set_inside else None
            final = loop.run((jnp.asarray(start),), test, step, trips=static)
        set_state(final)

    @staticmethod
    def range(*args):
        if len(args) == 1:
            return StagedRange(0, args[0], 1)
        start, limit, *delta = args
        return StagedRange(start, limit, delta[0] if delta else 1)


BACKEND = JaxBackend()
