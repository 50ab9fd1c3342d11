"""Loops of the PyTorch backend: a ``while`` on a traced tensor, and a ``for`` over ``range`` with a
traced bound, become ``while_loop``.

The loop carries every tensor and Python number of its variables (numbers as 0-d tensors);
other values (None, strings, an unset return value) are static and must stay as they are.
One untraced run of the body first (``torch_lifting.discover``) finds what the body captures
and the types the variables have after an iteration: a Python number takes the type the body
gives it (``s = 0`` then ``s += x`` with float32 ``x`` makes ``s`` float32, as in Python), so
does a tensor an iteration makes a wider dtype (float32 zeros plus float64 elements), and a
variable first assigned in the loop starts as zeros of its type, with a run-time check that the
loop ran (where Python would keep the number or the narrower dtype too). A ``for`` over a
tensor's rows (``for row in x``, ``enumerate``, ``zip``) has a length known while tracing: it
is unrolled, its body staged like any other code.
"""

from __future__ import annotations

from typing import Callable, Sequence

import torch

import runtime as rt
from runtime import nest
from runtime.control_flow import Unset
from transpiler.operators import control_flow as cf
from transpiler.operators.control_flow import naming_construct
from transpiler.operators.staging import (StagedRange, is_torch_symbolic, is_torch_traced,
                                          torch_differentiable)
from transpiler.operators.staging.torch_backend import (_refuse_staged_lists,
                                                        buffer_assignments_unhooked,
                                                        module_tensors_written_in_place)
from transpiler.operators.staging.torch_lifting import (Captured, as_output, bind, current,
                                                        discover, distinct, made,
                                                        stand_ins, substituting,
                                                        symbolic_numbers, unaliased)
from transpiler.operators.staging.torch_values import (Spec, as_tensor, condition, is_carried,
                                                       kind, number, number_dtype, same_shape,
                                                       same_static)
from transpiler.operators.tensor_sequences import python_iterable
from transpiler.operators.variables import Undefined, UndefinedReturnValue

_RANK = {"b": 0, "i": 1, "f": 2, "c": 3}


class _Retype(Exception):
    """An iteration gave a loop variable standing for a Python number another type."""


def _adopted_dtype(spec: Spec, after: Spec) -> torch.dtype:
    """The dtype a loop variable that entered as a Python number (``spec``) carries once an
    iteration made it ``after``: a number still of PyTorch's type for it adopts a tensor's dtype
    (``r = 0``, then ``r = r * 10 + n`` with an int32 ``n``: int32, as in Python); one already
    retyped keeps a dtype that holds both."""
    if after.weak or spec.dtype != number_dtype(spec.zero()):
        return torch.promote_types(spec.dtype, after.dtype)
    return after.dtype


class _Loop:
    """``while_loop`` over the state of a converted loop, with ``leading`` tensors (a
    counter) before it."""

    def __init__(self, get_state, set_state, names: Sequence[str], construct: str):
        self.get_state, self.set_state, self.names = get_state, set_state, tuple(names)
        self.construct, self.location = construct, cf._where()
        self.first_set_inside: list[str] = []
        self.settled = False  # the types found: an iteration changing one is an error then
        # Python numbers the loop makes tensors of another kind (``total = 0``, then
        # ``total += x[i]``, a float): Python keeps the number when the loop runs zero times.
        self.kind_changed: dict[str, torch.dtype] = {}
        # Tensors the loop makes a wider dtype, with both dtypes (``h = torch.zeros(n)``, then
        # ``h = h + x[i]`` of a float64 ``x``): Python keeps the narrower when it runs zero times.
        self.widened: dict[str, tuple[torch.dtype, torch.dtype]] = {}

    # -- the carried leaves ------------------------------------------------------------------

    def _leaf_names(self) -> list[str]:
        return [f"{cf._shown(name)}{path}" for name, value in zip(self.names, self.initial)
                for path, leaf in zip(nest.leaf_paths(value), nest.flatten(value))
                if isinstance(leaf, Spec)]

    def _unpacked(self, carried: Sequence) -> tuple:
        leaves = iter(carried)
        return tuple(nest.pack_like(value, [next(leaves) if isinstance(leaf, Spec) else leaf
                                            for leaf in nest.flatten(value)])
                     for value in self.initial)

    def _carried(self, values: tuple, names: list[str]) -> list:
        """The carried leaves of ``values`` (the state after an iteration) in the loop's types;
        raises ``_Retype`` when a number's type must change, or the error naming a variable."""
        for name, before, after in zip(self.names, self.initial, values):
            if type(before) in (Undefined, UndefinedReturnValue):
                continue
            if type(after) is Undefined and after.deleted:
                raise ValueError(
                    f"'{name}' is deleted in the body of the {self.construct}{self.location} "
                    f"(`del {name}`), but it is used after the loop or in the next iteration. A "
                    f"traced loop variable needs a value at the end of every iteration.")
            if nest.structure_of(before) != nest.structure_of(after):
                raise rt.errors.GraphTypeError(
                    f"'{cf._shown(name)}' does not have the same nested structure after one "
                    f"iteration of the {self.construct}{self.location}: the loop body changes it "
                    f"from {nest.describe_structure(before)} to "
                    f"{nest.describe_structure(after)}. Keep every loop variable the same kind "
                    f"of value in every iteration.")
        carried, index = [], 0
        for name, before, after in zip(self.names, self.initial, values):
            if type(before) in (Undefined, UndefinedReturnValue):
                continue  # no value yet: settled from this iteration, or never carried
            paths = nest.leaf_paths(before)
            for path, spec, leaf in zip(paths, nest.flatten(before), nest.flatten(after)):
                shown = f"{cf._shown(name)}{path}"
                if not isinstance(spec, Spec):
                    if not (same_static(spec, leaf) or isinstance(spec, Unset)
                            and isinstance(leaf, Unset)):
                        raise rt.errors.GraphTypeError(
                            f"'{shown}' is {spec!r} before an iteration of the {self.construct}"
                            f"{self.location} and {leaf!r} after it; a traced loop carries "
                            f"tensors and numbers only. Give it a tensor or number before the "
                            f"loop.")
                    continue
                carried.append(self._typed(shown, spec, leaf, index))
                index += 1
        return carried

    def _typed(self, name: str, spec: Spec, leaf, index: int) -> torch.Tensor:
        if not is_carried(leaf):
            raise rt.errors.GraphTypeError(
                f"'{name}' is {spec.describe()} before an iteration of the {self.construct}"
                f"{self.location} and {leaf!r} after it; a traced loop variable stays a tensor "
                f"or number.")
        after = Spec.of(leaf)
        if not same_shape(after.shape, spec.shape):
            raise rt.errors.GraphTypeError(
                f"'{name}' has shape {spec.shape} before an iteration of the {self.construct}"
                f"{self.location} and {after.shape} after it; a PyTorch loop variable keeps its "
                f"shape. Pad it to its final shape before the loop.")
        if after.dtype != spec.dtype:
            if spec.weak and not (after.weak and _RANK[kind(after.dtype)] <= _RANK[kind(spec.dtype)]):
                self._retype(name, spec, after, index)
            elif not spec.weak and not after.weak:
                self._widen(name, spec, after, index)
            if not after.weak or _RANK[kind(after.dtype)] > _RANK[kind(spec.dtype)]:
                raise rt.errors.GraphTypeError(
                    f"'{name}' has {spec.describe()} before an iteration of the "
                    f"{self.construct}{self.location} and {after.describe()} after it; a "
                    f"PyTorch loop variable keeps its dtype. Convert it with .to(...) in the "
                    f"body, or give it the loop's dtype before the loop.")
        return as_tensor(leaf, spec)

    def _retype(self, name: str, spec: Spec, after: Spec, index: int) -> None:
        """Notes the dtype a Python-number loop variable takes after an iteration that made it
        ``after`` and raises ``_Retype`` (the loop is settled again at that dtype), unless its
        dtype already holds it; a number made a tensor of a lower kind (a float made an int
        tensor) cannot be carried."""
        dtype = _adopted_dtype(spec, after)
        if dtype == spec.dtype:
            return  # the loop's dtype holds what the iteration made
        if _RANK[kind(dtype)] < _RANK[kind(spec.dtype)] or self.settled:
            raise rt.errors.GraphTypeError(
                f"'{name}' is {spec.describe()} before an iteration of the {self.construct}"
                f"{self.location} and {after.describe()} after it; one traced loop variable "
                f"cannot hold both. Give it the value's type before the loop (for example "
                f"{name} = torch.zeros((), dtype=torch."
                f"{str(after.dtype).replace('torch.', '')})).")
        self.retype[index] = dtype
        if kind(dtype) != kind(spec.dtype):
            self.kind_changed[name] = dtype
        raise _Retype()

    def _widen(self, name: str, spec: Spec, after: Spec, index: int) -> None:
        """Notes that an iteration makes the tensor ``name`` the wider dtype ``after``, as
        Python's promotion does (float32 zeros plus a float64 row), and raises ``_Retype``
        (the loop is settled again carrying that dtype); a change to a dtype that does not hold
        the one before, or once the types are settled, is left to the caller's error."""
        if self.settled or torch.promote_types(spec.dtype, after.dtype) != after.dtype:
            return
        self.retype[index] = after.dtype
        self.widened[name] = (self.widened.get(name, (spec.dtype,))[0], after.dtype)
        raise _Retype()

    # -- settling the initial values -------------------------------------------------------

    def settle(self, before: tuple, test: Callable, step: Callable, leading: tuple) -> None:
        """Types of the carried leaves, what the blocks capture, and initial values for the
        variables first assigned in the loop, from untraced runs of ``test`` and ``step``."""
        self.initial = tuple(nest.map_structure(
            lambda leaf: Spec.of(leaf) if is_carried(leaf) else leaf, value) for value in before)
        self.values = before
        self.retype: dict[int, torch.dtype] = {}
        undefined = [n for n, v in zip(self.names, before) if type(v) is Undefined]
        saved = cf._state_before(self.get_state, self.names)
        like = [*leading, *(leaf for value in before for leaf in nest.flatten(value))]
        lead = stand_ins([(tuple(t.shape), t.dtype) for t in leading], like)
        # First as Python numbers (symbolic ones), the variables that enter as numbers: what
        # the body makes of them then is their type, as in Python (a number next to an int32
        # tensor gives int32). Then, types settled, as tensors: what the blocks capture.
        self.settled = False
        as_numbers = any(_enters_as_number(spec) for spec in self._specs())
        for _ in range(4 * len(before) + 4):
            self.captured = Captured()
            as_numbers = as_numbers and any(_enters_as_number(spec) for spec in self._specs())
            # Stand-ins for the loop variables: the body's uses of the values they enter with
            # (``y = w`` before the loop, ``w`` read inside) are then captures.
            fresh = self._stand_ins(like, as_numbers)
            try:
                after = discover(lambda: self._one_iteration(fresh, lead, test, step),
                                 self.captured, fresh + lead)
            except _Retype:
                self._apply_retype()
                continue
            except (NameError, LookupError, AttributeError) as error:
                if as_numbers:
                    as_numbers = False  # the body needs tensors: typed as tensors only
                    continue
                if not undefined:
                    raise
                raise cf.undefined_before_loop_error(undefined, self.location, error) from None
            except Exception:  # noqa: BLE001 - the same body runs again on tensors
                if not as_numbers:
                    raise
                as_numbers = False
                continue
            finally:
                cf._set_state_tolerantly(self.set_state, self.get_state, self.names, saved)
            if as_numbers:  # types settled: once more on tensors
                as_numbers = False
                continue
            if self._settle_undefined(after):
                continue
            break
        else:
            raise rt.errors.GraphTypeError(
                f"The types of the variables of the {self.construct}{self.location} do not "
                f"settle: an iteration keeps changing the dtype of "
                f"{', '.join(repr(name) for name in self._leaf_names())}. Give each loop "
                f"variable the dtype it has after an iteration before the loop.")
        self.settled = True
        cf._check_loop_inputs(self.values, self.names)

    def _stand_ins(self, like: Sequence, as_numbers: bool) -> list:
        """What the loop variables are while the body is discovered: tensors of their types,
        or, ``as_numbers``, symbolic Python numbers for those that enter as numbers."""
        specs = self._specs()
        number = [as_numbers and _enters_as_number(spec) for spec in specs]
        tensors = iter(stand_ins([(spec.shape, spec.dtype)
                                  for spec, is_number in zip(specs, number) if not is_number],
                                 like))
        numbers = iter(symbolic_numbers(
            [spec.zero() for spec, is_number in zip(specs, number) if is_number]))
        return [next(numbers) if is_number else next(tensors) for is_number in number]

    def _specs(self) -> list[Spec]:
        return [leaf for value in self.initial for leaf in nest.flatten(value)
                if isinstance(leaf, Spec)]

    def _one_iteration(self, fresh, lead, test, step) -> tuple:
        """The state after an iteration from ``fresh``, checked to be carried in the loop's
        types. Checked while discovering, outside any recording: the symbolic numbers that
        stand for Python-number variables have no node in the trace to convert them with."""
        self.set_state(cf._fresh(self._unpacked(fresh)))
        test(*lead)
        step(*lead)
        after = cf._state_before(self.get_state, self.names)
        self._carried(after, self._leaf_names())
        return after

    def _apply_retype(self) -> None:
        specs = iter(range(len(self._specs())))
        self.initial = tuple(nest.pack_like(value, [
            _retyped(leaf, self.retype.get(next(specs))) if isinstance(leaf, Spec) else leaf
            for leaf in nest.flatten(value)]) for value in self.initial)
        self.retype.clear()

    def _settle_undefined(self, after: tuple) -> bool:
        """Gives the variables without a value before the loop the type the body gives them;
        whether one did (the body must then be run again)."""
        changed = False
        settled = []
        for name, value, spec, new in zip(self.names, self.values, self.initial, after):
            if type(value) in (Undefined, UndefinedReturnValue) and type(new) not in (
                    Undefined, UndefinedReturnValue) and not isinstance(new, Unset) \
                    and new is not None:
                changed = True
                zeros = nest.map_structure(
                    lambda leaf: Spec.of(leaf).zero() if is_carried(leaf) else leaf, new)
                settled.append((zeros, nest.map_structure(
                    lambda leaf: Spec.of(leaf) if is_carried(leaf) else leaf, zeros)))
                if type(value) is Undefined:
                    self.first_set_inside.append(name)
            else:
                settled.append((value, spec))
        self.values = tuple(value for value, _ in settled)
        self.initial = tuple(spec for _, spec in settled)
        return changed

    # -- the loop ----------------------------------------------------------------------------

    def run(self, leading: tuple, test: Callable, step: Callable) -> tuple:
        """Runs the loop from ``leading`` (tensors before the state); ``test(*lead)`` and
        ``step(*lead) -> lead`` see the state through ``get_state``/``set_state``."""
        lead_count = len(leading)
        flag = bool(self.first_set_inside or self.kind_changed or self.widened)
        outer, operands = list(self.captured.tensors), self.captured.operands()
        names = self._leaf_names()
        start = [as_tensor(leaf, spec) for leaf, spec in zip(
            [leaf for value in self.values for leaf in nest.flatten(value) if is_carried(leaf)],
            self._specs())]

        def split(args):
            carried, extra = args[:len(args) - len(operands)], args[len(args) - len(operands):]
            if flag:
                carried = carried[:-1]
            return carried[:lead_count], carried[lead_count:], self.captured.per_tensor(extra)

        def cond_fn(*args):
            lead, carried, extra = split(args)
            with substituting(outer, extra, args, self.location) as mapping:
                self.set_state(self._unpacked(carried))
                return as_output(condition(test(*lead), f"the {self.construct}"), mapping, args)

        def body_fn(*args):
            lead, carried, extra = split(args)
            with substituting(outer, extra, args, self.location) as mapping:
                self.set_state(self._unpacked(carried))
                new_lead = tuple(step(*lead))
                after = cf._state_before(self.get_state, self.names)
                out = [*new_lead, *self._carried(after, names)]
                if flag:
                    out.append(torch.ones((), dtype=torch.bool))
                return distinct([as_output(leaf, mapping, args) for leaf in out])

        init = [*leading, *start] + ([torch.zeros((), dtype=torch.bool)] if flag else [])
        init = unaliased([*operands, *init])[len(operands):]
        final = made(torch_differentiable.while_loop(cond_fn, body_fn, tuple(init), operands))
        if flag:
            self._check_ran(final[-1])
            final = final[:-1]
        return self._unpacked(final[lead_count:]), final[:lead_count]


    def _check_ran(self, ran: torch.Tensor) -> None:
        """When the program runs, the loop must have run once for the variables first assigned
        in it to have a value, and for those whose type it changes to have that type."""
        where = f"the {self.construct}{self.location} ran zero times, so"
        if self.first_set_inside:
            listed = ", ".join(f"'{name}'" for name in self.first_set_inside)
            torch._assert_async(ran, f"{where} {listed}, first assigned inside it, has no "
                                     f"value after it. Give it a value before the loop.")
        for name, dtype in self.kind_changed.items():
            shown = str(dtype).replace("torch.", "")
            torch._assert_async(ran, cf.kept_number_message(
                f"the {self.construct}{self.location}", name, f"a {shown} tensor"))
        for name, (narrow, wide) in self.widened.items():
            narrow, wide = (str(dtype).replace("torch.", "") for dtype in (narrow, wide))
            torch._assert_async(ran, cf.widened_message(
                f"the {self.construct}{self.location}", name, narrow, wide))


def _enters_as_number(spec: Spec) -> bool:
    """Whether a loop variable is still the Python int or float it entered the loop as."""
    return spec.weak and kind(spec.dtype) in "if" and spec.dtype == number_dtype(spec.zero())


def _retyped(spec: Spec, dtype) -> Spec:
    return spec if dtype is None else Spec(spec.shape, dtype, spec.weak)


def while_stmt(test, body, get_state, set_state, names, opts, *, mutates, staged) -> None:
    cf._reject_mutations(mutates, "a while loop", cf._ONCE_PER_TRACE)
    before = cf._state_before(get_state, names)
    _refuse_staged_lists(before, names, staged, "a while loop")
    with naming_construct("while loop"), buffer_assignments_unhooked():
        loop = _Loop(get_state, set_state, names, "while loop")
        finish = module_tensors_written_in_place(before, names, get_state)
        final = finish(_run_writing_back(loop, before, (), test, lambda: (body(), ())[1]),
                       f"the while loop{loop.location}")
        set_state(final)


def _run_writing_back(loop: _Loop, before: tuple, leading: tuple, test: Callable,
                      step: Callable) -> tuple:
    """Runs ``loop`` and gives its final state. Tensors from outside that the body changes in
    place (``out[i] = v``, ``s.add_(v)`` on a tensor that is not a variable of the loop) are
    carried too, after the ``leading`` tensors, and written back after the loop, as Python
    changes them."""
    written: list[torch.Tensor] = []
    count = len(leading)

    def carried_test(*lead):
        bind(written, lead[count:])
        return test(*lead[:count])

    def carried_step(*lead):
        bind(written, lead[count:])
        return (*step(*lead[:count]), *current(written))

    while True:  # each round carries at least one more tensor of the enclosing code
        loop.settle(before, carried_test, carried_step, (*leading, *written))
        more = [t for t in loop.captured.written_tensors() if all(t is not w for w in written)]
        if not more:
            break
        written += more
    final, lead = loop.run((*leading, *written), carried_test, carried_step)
    for tensor, value in zip(written, lead[len(leading):]):
        tensor.copy_(value)
    return final


def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts, *, mutates,
             staged) -> None:
    builds_list = any(type(value) is list for value in cf._state_before(get_state, names))
    if isinstance(iterable, StagedRange) and builds_list and _known_while_tracing(iterable):
        # A loop building a list over a range of symbolic ints that have a value while
        # tracing (a Python int torch.compile made dynamic) runs as Python, fixing them, as
        # lists are not carried by while_loop.
        iterable = range(iterable.start, iterable.limit, iterable.delta)
        cf._python_for(iterable, extra_test, body, get_state, set_state, names)
        return
    if _rows_of_symbolic_length(iterable) and not builds_list:
        # Rows of a dimension torch.compile made dynamic: a staged loop over their indices,
        # as unrolling would fix the length (and compile again for every length); a loop
        # building a list stays unrolled (lists are not carried by while_loop).
        rows, row_body = iterable, body
        iterable, body = StagedRange(0, rows.shape[0], 1), lambda index: row_body(rows[index])
    if not isinstance(iterable, StagedRange):
        # Rows of a traced tensor: their number is known while tracing.
        if isinstance(iterable, torch.Tensor) and iterable.dim() == 0:
            raise TypeError(f"cannot iterate over a scalar tensor{cf._where()}.")
        cf._python_for(python_iterable(iterable), extra_test, body, get_state, set_state,
                       names)
        return
    cf._reject_mutations(mutates, "a for loop", cf._ONCE_PER_TRACE)
    before = cf._state_before(get_state, names)
    _refuse_staged_lists(before, names, staged, "a for loop")
    with naming_construct("for loop"), buffer_assignments_unhooked():
        start, limit, delta = _bounds(iterable)

        def test(index):
            if not isinstance(delta, torch.Tensor):  # a step known while tracing (its sign)
                more = index < limit if delta > 0 else index > limit
            else:  # a step of 0 stops the loop at once (its check fails the run)
                more = torch.where(delta > 0, index < limit,
                                   torch.logical_and(delta < 0, index > limit))
            if extra_test is None:
                return more
            return torch.logical_and(more, condition(extra_test(), "the for loop"))

        def step(index):
            body(index)
            return (index + delta,)

        loop = _Loop(get_state, set_state, names, "for loop")
        finish = module_tensors_written_in_place(before, names, get_state)
        final = finish(_run_writing_back(loop, before, (start,), test, step),
                       f"the for loop{loop.location}")
        set_state(final)


def _known_while_tracing(staged: StagedRange) -> bool:
    return all(isinstance(bound, int) or (isinstance(bound, torch.SymInt)
                                          and bound.node.has_hint())
               for bound in (staged.start, staged.limit, staged.delta))


def _rows_of_symbolic_length(iterable) -> bool:
    return isinstance(iterable, torch.Tensor) and iterable.dim() > 0 and is_torch_symbolic(
        iterable.shape[0])


def _bounds(staged: StagedRange):
    bounds = [staged.start, staged.limit, staged.delta]
    for bound in bounds:
        if isinstance(bound, torch.Tensor) and (bound.dtype.is_floating_point
                                                or bound.dtype.is_complex):
            raise TypeError(
                f"range() takes integers, but got a tensor of dtype "
                f"{str(bound.dtype).replace('torch.', '')}{cf._where()}. Convert it with "
                f".long() if a whole number is meant.")
        if isinstance(bound, float):
            raise TypeError(f"range() takes integers, but got {bound!r}{cf._where()}.")
    dtype = torch.int64
    for bound in bounds:
        if is_torch_traced(bound):
            dtype = bound.dtype
    start = bounds[0] if isinstance(bounds[0], torch.Tensor) else number(bounds[0])
    delta = bounds[2]
    if isinstance(delta, torch.Tensor) and not is_torch_traced(delta):
        delta = int(delta)
    if isinstance(delta, int) and delta == 0:
        raise ValueError(cf.zero_step_message())
    if isinstance(delta, torch.Tensor):  # known only when the program runs: checked then
        torch._assert_async(delta != 0, cf.zero_step_message())
    elif not isinstance(delta, int):  # a symbolic int of the trace
        message = cf.zero_step_message()
        torch._check(delta != 0, lambda: message)
        if not delta.node.has_hint():  # known only when the program runs: so is its sign
            delta = torch.scalar_tensor(delta, dtype=dtype)
    # The counter is a tensor of its own: a start read from a tensor of the enclosing code
    # (``range(i, n)`` in a loop over ``i``, which the body may read as well) would otherwise
    # alias that tensor as an input of the loop, which while_loop refuses.
    return start.reshape(()).to(dtype).clone(), bounds[1], delta

