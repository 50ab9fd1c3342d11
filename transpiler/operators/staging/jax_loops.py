"""``lax.while_loop`` / ``fori_loop`` for converted loops on JAX tracers.

``lax.while_loop`` promotes weak loop variables itself (``s = 0`` then ``s += x``); a strong
dtype or a shape that changes is an error naming the variable. A variable first assigned in
the loop (and the return value of a ``return`` in it) starts as zeros of the type one probe
iteration gives it (``jax.eval_shape``, so nothing is left in the trace); if the loop may run
zero times, a run-time check raises when it did. A ``for`` over a range or an array of static
length without ``break``/``return`` is a ``lax.fori_loop`` (a ``scan``, so ``jax.grad`` goes
through it); others are ``lax.while_loop``.
"""

from __future__ import annotations

from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

import runtime as rt
from runtime import nest
from runtime.control_flow import Unset
from transpiler.operators import control_flow as cf
from transpiler.operators.control_flow import TensorEnumerate, TensorZip
from transpiler.operators.staging import StagedRange, is_jax_tracer
from transpiler.operators.staging.jax_values import (condition, describe, is_array, spec_of,
                                                     zeros_like)
from transpiler.operators.variables import (Undefined, UndefinedReturnValue,
                                            is_return_value_name)


def refuse_staged_lists(values: tuple, names: Sequence[str], staged: Sequence[str],
                         construct: str) -> None:
    for name, value in zip(names, values):
        if name in staged and type(value) is list:
            raise NotImplementedError(
                f"'{name}' is a list appended to inside {construct} on a JAX tracer{cf._where()}; "
                f"the JAX backend does not carry lists through traced control flow yet. Carry an "
                f"array instead (e.g. preallocate with jnp.zeros and write with .at[i].set), or "
                f"decide with a Python value.")


class Loop:
    """``lax.while_loop`` / ``fori_loop`` over the state of a converted loop."""

    def __init__(self, get_state, set_state, names: Sequence[str], construct: str):
        self.get_state, self.set_state, self.names = get_state, set_state, tuple(names)
        self.construct, self.location = construct, cf._where()

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
        for name, before, new in zip(self.names, self.initial, after):
            shown = cf._shown(name)
            if type(new) is Undefined and new.deleted:
                raise ValueError(
                    f"'{name}' is deleted in the body of the {self.construct}{self.location} "
                    f"(`del {name}`), but it is used after the loop or in the next iteration. A "
                    f"traced loop variable needs a value at the end of every iteration.")
            if nest.structure_of(before) != nest.structure_of(new) or any(
                    is_array(a) != is_array(b)
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
                 if is_array(leaf)]
        for path, old, new in zip(paths, entering, carried):
            old_spec, new_spec = spec_of(old), spec_of(new)
            if tuple(old_spec.shape) != tuple(new_spec.shape):
                raise rt.errors.GraphTypeError(
                    f"'{path}' has shape {tuple(old_spec.shape)} before an iteration of the "
                    f"{self.construct}{self.location} and {tuple(new_spec.shape)} after it; a "
                    f"JAX loop variable keeps its shape. Pad it to its final shape before the "
                    f"loop.")
            if old_spec.dtype != new_spec.dtype and not old_spec.weak_type:
                raise rt.errors.GraphTypeError(
                    f"'{path}' has {describe(old_spec)} before an iteration of the "
                    f"{self.construct}{self.location} and {describe(new_spec)} after it; a JAX "
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
            return condition(test(*lead_values), f"the {self.construct}")

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


def continues(index, limit, delta):
    if isinstance(delta, int):
        return index < limit if delta > 0 else index > limit
    return jnp.where(delta > 0, index < limit, index > limit)
