"""``lax.while_loop`` / ``fori_loop`` for converted loops on JAX tracers.

``lax.while_loop`` promotes weak loop variables itself (``s = 0`` then ``s += x``); a strong
dtype or a shape that changes is an error naming the variable. A variable first assigned in
the loop (and the return value of a ``return`` in it) starts as zeros of the type one probe
iteration gives it (``jax.eval_shape``, so nothing is left in the trace); if the loop may run
zero times, a run-time check raises when it did. A ``for`` over a range or an array of static
length without ``break``/``return`` is a ``lax.fori_loop`` (a ``scan``, so ``jax.grad`` goes
through it); a loop with a static bound that can stop early is a ``lax.while_loop`` that
differentiates as a scan (``bounded_while``); others are ``lax.while_loop``.
"""

from __future__ import annotations

import functools
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import runtime as rt
from runtime import nest
from runtime.control_flow import Unset
from transpiler.operators import control_flow as cf
from transpiler.operators.tensor_sequences import is_sequence, item_at, length_of
from transpiler.operators.staging import StagedRange, is_jax_tracer, jax_lists
from transpiler.operators.staging.jax_values import (condition, converted_type, describe,
                                                     is_array, spec_of, staged, weak,
                                                     zeros_like)
from transpiler.operators.variables import (ReturnedNone, Undefined, UndefinedReturnValue,
                                            returns_a_value, returns_none)


class Loop:
    """``lax.while_loop`` / ``fori_loop`` over the state of a converted loop."""

    def __init__(self, get_state, set_state, names: Sequence[str], construct: str, *,
                 length: int | None = None, exits_early: bool = True, maximum=None,
                 staged: Sequence[str] = (), first_runs: bool = False):
        """``length`` is a static trip count (a ``for`` over an array), ``exits_early`` whether
        the test can stop the loop before it (a ``while``, ``break``, ``return``), ``maximum``
        the ``maximum_iterations`` of ``set_loop_options``, ``staged`` the lists the body only
        appends to, ``first_runs`` whether the test cannot stop the first of those iterations
        (a ``for``, whose ``break`` and ``return`` flags are false before it)."""
        self.get_state, self.set_state, self.names = get_state, set_state, tuple(names)
        self.construct, self.location = construct, cf._where()
        self.maximum = maximum = _static_int(maximum)
        self.counted = maximum is not None and not isinstance(maximum, int)
        self.bound = length if maximum is None or self.counted else (
            maximum if length is None else min(length, maximum))
        self.exits_early, self.staged, self.first_runs = exits_early, tuple(staged), first_runs
        self.added: dict[int, int | None] = {}  # appends per iteration to each carried list
        self.produced: dict[int, object] = {}  # return values without arrays the body set
        # Python numbers an iteration makes another kind (``total = 0``, then ``total += x[i]``,
        # a float), with their type after it: found while the body is traced.
        self.kind_changed: dict[str, jax.ShapeDtypeStruct] = {}
        # Arrays an iteration makes a wider dtype, with both dtypes (an int32 ``x``, then
        # ``x = x / 2``): carried in the wider one, as Python's value is after an iteration.
        self.widened: dict[str, tuple[np.dtype, np.dtype]] = {}

    # The state as the loop carries it: the array leaves of every variable, in order; the
    # static leaves stay those of ``self.initial``.
    def _carried(self, values: tuple) -> list:
        return [leaf for value in values for leaf in nest.flatten(value) if is_array(leaf)]

    def _unpacked(self, carried: Sequence) -> tuple:
        leaves = iter(carried)
        return tuple(nest.pack_like(value, [next(leaves) if is_array(leaf) else leaf
                                            for leaf in nest.flatten(value)])
                     for value in self.initial)

    def _checked(self, after: tuple, entering: Sequence) -> list:
        """The carried leaves of ``after``, checked against the loop variables' types."""
        for index, (name, before, new) in enumerate(zip(self.names, self.initial, after)):
            shown = cf._shown(name)
            if type(new) is Undefined and new.deleted:
                raise ValueError(
                    f"'{name}' is deleted in the body of the {self.construct}{self.location} "
                    f"(`del {name}`), but it is used after the loop or in the next iteration. A "
                    f"traced loop variable needs a value at the end of every iteration.")
            if cf._static_return_value(name, before):
                self.produced[index] = new  # no array: decided after the loop
                continue
            if nest.structure_of(before) != nest.structure_of(new) or any(
                    is_array(a) != is_array(b)
                    for a, b in zip(nest.flatten(before), nest.flatten(new))):
                raise rt.errors.GraphTypeError(
                    f"'{shown}' does not have the same nested structure after one iteration of "
                    f"the {self.construct}{self.location}: the loop body changes it from "
                    f"{nest.describe_structure(before)} to {nest.describe_structure(new)}. Keep "
                    f"every loop variable the same kind of value in every iteration.")
        carried = self._carried(after)
        paths = [f"{cf._shown(name)}{path}" for name, value in zip(self.names, self.initial)
                 for path, leaf in zip(nest.leaf_paths(value), nest.flatten(value))
                 if is_array(leaf)]
        for path, old, new in zip(paths, entering, carried):
            old_spec, new_spec = spec_of(old), spec_of(new)
            if tuple(old_spec.shape) != tuple(new_spec.shape):
                raise rt.errors.GraphTypeError(
                    f"'{path}' has shape {tuple(old_spec.shape)} before an iteration of the "
                    f"{self.construct}{self.location} and {tuple(new_spec.shape)} after it; a "
                    f"JAX loop variable keeps its shape. Pad it to its final shape before the "
                    f"loop.")
            if old_spec.weak_type and _kind(old_spec) != _kind(new_spec):
                self.kind_changed.setdefault(path, new_spec)  # ``total = 0``, then a float
            if old_spec.dtype != new_spec.dtype and not old_spec.weak_type:
                if _widens(old_spec, new_spec):
                    narrow = self.widened.get(path, (np.dtype(old_spec.dtype),))[0]
                    self.widened[path] = (narrow, np.dtype(new_spec.dtype))
                    continue  # carried in the wider dtype (``_settled_weak_carry``)
                raise rt.errors.GraphTypeError(
                    f"'{path}' has {describe(old_spec)} before an iteration of the "
                    f"{self.construct}{self.location} and {describe(new_spec)} after it; a JAX "
                    f"loop variable keeps its dtype. Convert it with .astype(...) in the body, "
                    f"or give it the loop's dtype before the loop.")
        return carried

    def settle(self, before: tuple, first_iteration: Callable) -> None:
        """Initial values: zeros of the type the first iteration gives what has none yet."""
        self.first_set_inside: list[str] = []
        before = jax_lists.recorders(before, self.names, self.staged)
        self.initial = before
        if not any(type(v) in (Undefined, UndefinedReturnValue, jax_lists.Recorder)
                   for v in before):
            cf._check_loop_inputs(before, self.names)
            return
        saved = cf._state_before(self.get_state, self.names)
        found: dict[str, tuple] = {}

        @staged
        def probe(*carried):
            cf._set_state_tolerantly(self.set_state, self.get_state, self.names,
                                     cf._fresh(self._unpacked(carried)))
            first_iteration()
            after = cf._state_before(self.get_state, self.names)
            found["after"] = after
            return [leaf for value in after for leaf in nest.flatten(value) if is_array(leaf)]

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
        after = tuple(nest.pack_like(v, [next(specs) if is_array(leaf) else leaf
                                         for leaf in nest.flatten(v)]) for v in found["after"])
        settled = []
        for name, value, new in zip(self.names, before, after):
            if type(value) in (Undefined, UndefinedReturnValue) and type(new) not in (
                    Undefined, UndefinedReturnValue) and not isinstance(new, Unset) \
                    and new is not None:
                settled.append(zeros_like(new))
                if type(value) is Undefined:
                    self.first_set_inside.append(name)
            else:
                settled.append(value)
        self.initial = jax_lists.carried(tuple(settled), self.names, self.bound,
                                         self.construct, self.location)
        cf._check_loop_inputs(self.initial, self.names)

    def run(self, leading: tuple, test: Callable, step: Callable) -> tuple:
        """Runs the loop with ``leading`` values (a counter) before the state; ``test(*lead)``
        and ``step(*lead) -> lead`` see the state through ``get_state``/``set_state``.

        With a static bound and no early exit the loop is a ``fori_loop`` (a ``scan``:
        ``jax.grad`` goes through it); with a static bound and an early exit, a
        ``while_loop`` whose derivatives are those of a scan over the bound
        (``bounded_while``, as TensorFlow differentiates bounded while loops); otherwise a
        ``while_loop`` (counting the iterations when ``maximum_iterations`` is traced)."""
        maximum, bound, counted = self.maximum, self.bound, self.counted
        # Whether an iteration ran, carried when the loop may run zero times: what the body
        # does to the variables (a Python number or an array it makes another type) is known
        # only once the body is traced, inside the loop.
        flag = bool(self.first_set_inside) or self._may_run_zero_times()

        @staged
        def cond_fun(carry):
            lead_values, carried, _, count = carry
            self.set_state(self._unpacked(carried))
            more = condition(test(*lead_values), f"the {self.construct}")
            return jnp.logical_and(more, count < maximum) if counted else more

        @staged
        def body_fun(carry):
            lead_values, carried, ran, count = carry
            self.set_state(self._unpacked(carried))
            new_lead = tuple(step(*lead_values))
            after = cf._state_before(self.get_state, self.names)
            self.added.update((index, value.added) for index, value in enumerate(after)
                              if type(value) is jax_lists.JaxList)
            return (new_lead, self._checked(after, carried), True if flag else (),
                    count + 1 if counted else ())

        init = (tuple(leading), self._carried(self.initial), False if flag else (),
                jnp.zeros((), np.asarray(maximum).dtype) if counted else ())
        if bound is not None and not self.exits_early:
            final = _weak_carry_settled(
                lambda init: lax.fori_loop(0, bound, lambda _, carry: body_fun(carry), init),
                body_fun, init)
        elif bound is not None:
            final = _weak_carry_settled(
                lambda init: bounded_while(cond_fun, body_fun, init, bound,
                                           counts=isinstance(maximum, int)), body_fun, init)
        else:
            final = _weak_carry_settled(lambda init: lax.while_loop(cond_fun, body_fun, init),
                                        body_fun, init)
            final = _refusing_reverse_mode(final, self.construct, self.location)
        lead_values, carried, ran, _ = final
        if flag:
            self._check_ran(ran)
        state = self._returned_after(self._unpacked(carried))
        return jax_lists.after_loop(state, self.initial, self.added,
                                    bound if not self.exits_early else None)

    def _may_run_zero_times(self) -> bool:
        return not (self.bound is not None and self.bound > 0
                    and (self.first_runs or not self.exits_early))

    def _check_ran(self, ran) -> None:
        """When the function runs, the loop must have run once for the variables first assigned
        in it to have a value, and for the Python numbers it makes another kind to have it."""
        loop = f"the {self.construct}{self.location}"
        if self.first_set_inside:
            listed = ", ".join(f"'{name}'" for name in self.first_set_inside)
            jax.debug.callback(_raise_unless, ran, (
                f"{loop} ran zero times, so {listed}, first assigned inside it, has no value "
                f"after it. Give it a value before the loop."))
        for name, spec in self.kind_changed.items():
            made = describe(spec) if spec.weak_type else \
                f"a {np.dtype(spec.dtype).name} array"
            jax.debug.callback(_raise_unless, ran, cf.kept_number_message(loop, name, made))
        for name, (narrow, wide) in self.widened.items():
            jax.debug.callback(_raise_unless, ran,
                               cf.widened_message(loop, name, narrow.name, wide.name))

    def _returned_after(self, state: tuple) -> tuple:
        """``state`` with each return value that is no array (a `return` without a value in
        the body) as it is after the loop: "returned None", decided by this loop."""
        state = list(state)
        here = f"the {self.construct}{self.location}"
        for index, new in self.produced.items():
            entering = self.initial[index]
            if returns_a_value(new) and returns_none(entering):
                raise cf.returned_none_and_a_value(
                    entering if type(entering) is ReturnedNone else ReturnedNone((here,)))
            if new is None:
                state[index] = ReturnedNone((here,))
            elif type(new) is ReturnedNone and new is not entering:
                state[index] = new.inside(here)
        return tuple(state)


_CARRY_TYPES_DIFFER = "carry input and carry output must have equal types"


def _weak_carry_settled(loop: Callable, body: Callable, init):
    """``loop(init)``. JAX's loops promote a Python number of the carry (weak) to the dtype
    one iteration gives it, once; when that made another number change in turn
    (``u, v = v, b`` with ``u, v = 1, 0`` and an int8 ``b``: ``v`` becomes int8, then ``u``),
    they refuse the carry, and the numbers are promoted until one iteration keeps every type,
    as Python's values would change from one iteration to the next."""
    try:
        return loop(init)
    except TypeError as error:
        if _CARRY_TYPES_DIFFER not in str(error):
            raise
    return loop(_settled_weak_carry(body, init))


def _settled_weak_carry(body: Callable, init):
    """``init`` with each weak leaf promoted until ``body`` gives back the types it takes."""
    flat, tree = jax.tree_util.tree_flatten(init)
    for _ in range(len(flat) + 1):
        out = jax.tree_util.tree_leaves(
            jax.eval_shape(body, jax.tree_util.tree_unflatten(tree, flat)))
        changed = [_takes_type(spec_of(value), leaving) for value, leaving in zip(flat, out)]
        if not any(changed):
            break
        flat = [converted_type(value, jnp.result_type(value, leaving), leaving.weak_type)
                if change else value
                for value, leaving, change in zip(flat, out, changed)]
    return jax.tree_util.tree_unflatten(tree, flat)


def _takes_type(entering: jax.ShapeDtypeStruct, leaving: jax.ShapeDtypeStruct) -> bool:
    """Whether a carried leaf takes the type an iteration gives it: a Python number (weak)
    takes any, an array a wider dtype."""
    if entering.weak_type:
        return (entering.dtype, entering.weak_type) != (leaving.dtype, leaving.weak_type)
    return _widens(entering, leaving)


def _widens(entering: jax.ShapeDtypeStruct, leaving: jax.ShapeDtypeStruct) -> bool:
    """Whether an iteration makes an array of dtype ``entering`` the wider dtype ``leaving``
    (int32 to float32, float32 to float64), as promotion does."""
    return entering.dtype != leaving.dtype and \
        jnp.promote_types(entering.dtype, leaving.dtype) == leaving.dtype


def bounded_while(cond_fun: Callable, body_fun: Callable, init, bound: int, *, counts: bool):
    """``while cond_fun(carry): carry = body_fun(carry)``, at most ``bound`` iterations: a
    ``lax.while_loop`` that stops when the test fails, whose derivatives (``jax.jvp``, and so
    ``jax.grad``, which transposes them) are those of a ``fori_loop`` over the bound whose
    iterations after the test first fails change nothing (a ``scan``, which reverse mode goes
    through). ``counts``: the test alone does not stop the loop within ``bound`` iterations
    (``maximum_iterations``), so the while loop counts them.

    A ``jax.custom_jvp`` joins the two. Its functions must not close over tracers (under
    ``jax.grad(jax.jit(f))`` the rule is traced after ``f``'s trace ended), so the test and the
    body are traced once each to jaxprs whose constants, the tracers they close over among
    them, are passed in as arguments."""
    flat, tree = jax.tree_util.tree_flatten(init)
    unflat = functools.partial(jax.tree_util.tree_unflatten, tree)
    body, body_consts, types = _closed(lambda *carry: body_fun(unflat(carry)), flat)
    promoted = [_promote_weak_typed_input(value, entering, leaving)
                for value, entering, leaving in zip(flat, *types)]
    if any(changed for _, changed in promoted):  # ``s = 0`` in the loop state, then ``s += x``
        flat = [value for value, _ in promoted]
        body, body_consts, _ = _closed(lambda *carry: body_fun(unflat(carry)), flat)
    test, test_consts, _ = _closed(lambda *carry: cond_fun(unflat(carry)), flat)

    def step(consts, carry):
        return jax.tree_util.tree_leaves(jax.core.eval_jaxpr(body, consts, *carry))

    def more(consts, carry):
        return jax.core.eval_jaxpr(test, consts, *carry)[0]

    @jax.custom_jvp
    def loop(test_consts, body_consts, carry):
        if not counts:
            return lax.while_loop(functools.partial(more, test_consts),
                                  functools.partial(step, body_consts), carry)
        _, carry = lax.while_loop(
            lambda state: jnp.logical_and(state[0] < bound, more(test_consts, state[1])),
            lambda state: (state[0] + 1, step(body_consts, state[1])), (0, carry))
        return carry

    def gated(test_consts, body_consts, carry):
        def iteration(_, state):
            active, carry = state
            active = jnp.logical_and(active, more(test_consts, carry))
            return active, lax.cond(active, functools.partial(step, body_consts),
                                    lambda same: same, carry)
        return lax.fori_loop(0, bound, iteration, (jnp.asarray(True), carry))[1]

    loop.defjvp(lambda primals, tangents: jax.jvp(gated, primals, tangents))
    return unflat(loop(test_consts, body_consts, flat))


def _closed(fn: Callable, args: list) -> tuple:
    """``fn`` traced at ``args``: its jaxpr, the constants it closes over (tracers of an
    enclosing trace among them), and the abstract values of its inputs and outputs."""
    closed = jax.make_jaxpr(fn)(*args)
    return closed.jaxpr, list(closed.consts), (closed.in_avals, closed.out_avals)


try:
    from jax._src.lax.control_flow.loops import _promote_weak_typed_input
except ImportError:  # pragma: no cover - another JAX version: the types of the entry leaves
    def _promote_weak_typed_input(value, entering, leaving):
        if entering.weak_type and (entering.dtype, entering.weak_type) != (leaving.dtype,
                                                                          leaving.weak_type):
            return lax.convert_element_type(value, jnp.result_type(value, leaving.dtype)), True
        return value, False


def _static_int(value):
    """``maximum_iterations`` as a Python int when it is known while tracing."""
    if value is None or isinstance(value, int):
        return value
    if is_jax_tracer(value):
        return value
    return int(value)


_REVERSE_MODE = ("Reverse-mode differentiation does not work for lax.while_loop or "
                 "lax.fori_loop with dynamic start/stop values.")


def _refusing_reverse_mode(final, construct: str, location: str):
    """``final``, whose float values, when ``jax.grad`` differentiates them, raise JAX's own
    refusal of ``while_loop`` with a sentence naming the loop (JAX raises it later, while
    transposing, where the loop is no longer known)."""
    if _LinearizeTracer is None:
        return final
    message = (f"{_REVERSE_MODE} The {construct}{location} has no static bound, so it is a "
               f"lax.while_loop: make `transpiler.set_loop_options(maximum_iterations=N)` the "
               f"first statement of its body (N a Python int that bounds its iterations), and it "
               f"becomes a scan that jax.grad differentiates.")

    def marked(leaf):
        if isinstance(leaf, _LinearizeTracer) and jnp.issubdtype(leaf.dtype, jnp.inexact):
            return _no_reverse_mode(leaf, message)
        return leaf
    return jax.tree_util.tree_map(marked, final)


@functools.partial(jax.custom_vjp, nondiff_argnums=(1,))
def _no_reverse_mode(value, message: str):
    return value


def _no_reverse_mode_fwd(value, message: str):
    return value, None


def _no_reverse_mode_bwd(message: str, _residuals, _cotangent):
    raise ValueError(message)


_no_reverse_mode.defvjp(_no_reverse_mode_fwd, _no_reverse_mode_bwd)

try:  # the tracer of jax.grad / jax.linearize (not of forward-mode jvp, which while_loop allows)
    from jax._src.interpreters.ad import LinearizeTracer as _LinearizeTracer
except ImportError:  # pragma: no cover - another JAX version: JAX's own message alone
    _LinearizeTracer = None


def _raise_unless(holds, message: str) -> None:
    """A run-time check (a ``jax.debug.callback``): raises ``ValueError(message)`` unless
    ``holds`` is true (everywhere, under ``vmap``)."""
    if not np.all(np.asarray(holds)):
        raise ValueError(message)


def _kind(spec: jax.ShapeDtypeStruct) -> str:
    """A dtype's kind as Python's numbers tell them apart (bool, int, float, complex)."""
    kind = np.dtype(spec.dtype).kind
    return "i" if kind == "u" else kind


def sequence(iterable):
    """``(start, limit, delta, item_of_index, static_length)`` of a staged iterable."""
    if isinstance(iterable, StagedRange):
        bounds = [iterable.start, iterable.limit, iterable.delta]
        for bound in bounds:
            if np.dtype(spec_of(bound).dtype).kind not in "iu":
                raise TypeError(
                    f"range() takes integers, but got an array of dtype "
                    f"{np.dtype(spec_of(bound).dtype).name}{cf._where()}. Convert it with "
                    f".astype(jnp.int32) if a whole number is meant.")
        traced = [b for b in bounds if is_jax_tracer(b)]
        # Python ints only: the rest of a Python range (JaxBackend.stages_rest_of_range)
        dtype = jnp.result_type(*traced) if traced else jnp.result_type(int)
        start, limit = (jnp.asarray(b, dtype) for b in bounds[:2])
        length = None if traced else len(range(*bounds))
        return start, limit, _nonzero_step(bounds[2], dtype), weak, length
    if is_sequence(iterable):
        length = length_of(iterable, _length, min)
        return 0, length, 1, lambda i: item_at(iterable, i, weak), length
    return 0, _length(iterable), 1, lambda i: iterable[i], _length(iterable)


def _nonzero_step(delta, dtype):
    """A range's step: a Python int when it is known while tracing (0 is refused at once, as
    Python refuses it), else an array of ``dtype`` checked when the function runs (a callback
    raises if it is 0; ``continues`` then ends the loop, so that it cannot run forever)."""
    if not is_jax_tracer(delta):
        if int(delta) == 0:
            raise ValueError(cf.zero_step_message())
        return int(delta)
    delta = jnp.asarray(delta, dtype)
    jax.debug.callback(_raise_unless, delta != 0, cf.zero_step_message())
    return delta


def _length(array) -> int:
    if np.ndim(array) == 0:
        raise TypeError(f"cannot iterate over a scalar array{cf._where()}.")
    return np.shape(array)[0]


def continues(index, limit, delta):
    if isinstance(delta, int):
        return index < limit if delta > 0 else index > limit
    return jnp.where(delta > 0, index < limit, jnp.logical_and(delta < 0, index > limit))
