"""The PyTorch backend: control flow on traced PyTorch tensors (under ``torch.export`` and
``torch.compile(fullgraph=True)``) becomes ``torch.cond`` and ``while_loop``.

A tensor is traced when it is fake (``torch._subclasses.fake_tensor.is_fake``): a FakeTensor of
``torch.export``'s non-strict trace, or the functional tensor wrapping one that AOTAutograd
traces under ``torch.compile``. Its value is unknown, so ``bool()`` of it cannot be answered;
on real (eager) tensors converted code runs as Python. Imported only when such a tensor
reaches an ``ag__`` operator (so PyTorch is already imported).

The higher-order operators are called directly (``cond_op``, ``while_loop_op``), not through
``torch.cond``, which would hand the blocks to Dynamo: converted code, with its closures that
share the state, is traced by PyTorch's own tracer instead (see ``torch_lifting`` for the
tensors the blocks capture). Python semantics, the flags of return/break and the checks with
their messages are the shared ones of ``transpiler.operators.control_flow``.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Callable, Sequence

import torch
from torch._higher_order_ops.cond import cond_op

import runtime as rt
from runtime import nest
from runtime.control_flow import Unset
from transpiler.operators import control_flow as cf
from transpiler.operators.staging import (StagedRange, is_torch_traced, torch_builtins,
                                          torch_differentiable)
from transpiler.operators.staging.expressions import StagedExpressions
from transpiler.operators.staging.torch_lifting import (Captured, as_output, discover,
                                                        distinct, made, substituting)
from transpiler.operators.staging.torch_values import (Spec, as_tensor, condition, is_carried,
                                                       joined, same_static)
from transpiler.operators.places import Place
from transpiler.operators.variables import Undefined


def _targets(then_values: tuple, else_values: tuple, names: Sequence[str], construct: str,
             location: str) -> list:
    """Per value, what the conditional outputs for it: a structure of ``Spec``s (carried
    leaves) and static leaves, or None when neither branch sets it."""
    targets = []
    for name, a, b in zip(names, then_values, else_values):
        if isinstance(a, Unset) and isinstance(b, Unset):
            targets.append(None)
            continue
        if isinstance(a, Unset) or isinstance(b, Unset):
            known = b if isinstance(a, Unset) else a
            targets.append(nest.map_structure(
                lambda x: Spec.of(x) if isinstance(x, torch.Tensor) else x, known))
            continue
        shown = cf._shown(name) if name != "the value" else name
        if nest.structure_of(a) != nest.structure_of(b):
            raise rt.errors.GraphStructureError(
                f"the two branches of the {construct} on a traced PyTorch tensor give '{shown}' "
                f"different structures: {nest.describe_structure(a)} and "
                f"{nest.describe_structure(b)}{location}. Give it the same nested structure in "
                f"both branches.")
        leaves = []
        for path, x, y in zip(nest.leaf_paths(a), nest.flatten(a), nest.flatten(b)):
            leaf_name = f"{shown}{path}"
            if not (is_carried(x) and is_carried(y)) or (
                    not isinstance(x, torch.Tensor) and not isinstance(y, torch.Tensor)
                    and type(x) is type(y) and x == y):
                if (x is None) != (y is None):
                    branch = "true" if x is None else "false"
                    raise rt.errors.GraphValueError(
                        f"'{leaf_name}' is None in the {branch} branch of the {construct} on a "
                        f"traced PyTorch tensor but a value in the other{location}. Give it a "
                        f"value in both branches.")
                if is_carried(x) != is_carried(y) or not same_static(x, y):
                    raise rt.errors.GraphTypeError(
                        f"'{leaf_name}' is {x!r} in the true branch and {y!r} in the false "
                        f"branch of the {construct} on a traced PyTorch tensor{location}; "
                        f"torch.cond can only choose between tensors and numbers, so make both "
                        f"branches give tensors of the same dtype.")
                leaves.append(x)
                continue
            leaves.append(joined(leaf_name, Spec.of(x), Spec.of(y), construct, location))
        targets.append(nest.pack_like(a, leaves))
    return targets


def _outputs(values: tuple, targets: list) -> list:
    """The carried leaves of a branch's ``values``, as ``targets`` types them."""
    leaves = []
    for value, target in zip(values, targets):
        if target is None:
            continue
        specs = nest.flatten(target)
        given = [None] * len(specs) if isinstance(value, Unset) else nest.flatten(value)
        for leaf, spec in zip(given, specs):
            if isinstance(spec, Spec):
                leaves.append(torch.zeros(spec.shape, dtype=spec.dtype) if leaf is None
                              else as_tensor(leaf, spec))
    return leaves


def staged_cond(pred, true_fn: Callable[[], tuple], false_fn: Callable[[], tuple], *,
                construct: str, location: str, names: Sequence[str],
                check_pair: Callable | None = None,
                prepare: Callable = lambda values: values) -> tuple:
    """``true_fn() if pred else false_fn()`` for functions returning tuples of values, as a
    ``cond``. ``check_pair(then_values, else_values)`` runs the shared checks on what the
    branches gave; ``prepare`` turns a branch's values into what the conditional outputs."""
    pred = condition(pred, f"the {construct}")
    captured = Captured()
    raw_true, raw_false = discover(true_fn, captured), discover(false_fn, captured)
    if check_pair is not None:
        check_pair(raw_true, raw_false)
    then_values, else_values = prepare(raw_true), prepare(raw_false)
    targets = _targets(then_values, else_values, names, construct, location)
    for values in (then_values, else_values):
        captured.note_outputs([leaf for value in values if not isinstance(value, Unset)
                               for leaf in nest.flatten(value)])
    outer, operands = list(captured.tensors), captured.operands()
    # Tensors from outside that a branch changes in place (``y[0] = v``, ``s.add_(v)``) are
    # outputs too, written back after the cond, so that they change as in Python.
    written = captured.written_tensors((*raw_true, *raw_false))
    dtypes = [spec.dtype for target in targets if target is not None
              for spec in nest.flatten(target) if isinstance(spec, Spec)]
    dtypes += [tensor.dtype for tensor in written]
    floats_only = torch_differentiable.needed(operands, dtypes)

    def branch(fn: Callable) -> Callable:
        def run(*inputs):
            with substituting(outer, captured.per_tensor(inputs), location=location) as mapping:
                leaves = _outputs(prepare(tuple(fn())), targets)
                leaves += [mapping.get(id(tensor), tensor) for tensor in written]
                leaves = [as_output(leaf, mapping, inputs) for leaf in leaves]
                return distinct(torch_differentiable.encoded(leaves) if floats_only else leaves)
        return run

    outputs = made(cond_op(pred, branch(true_fn), branch(false_fn), operands))
    flat = iter(torch_differentiable.decoded(outputs, dtypes) if floats_only else outputs)
    result = []
    for value, target in zip(then_values, targets):
        if target is None:
            result.append(value)
        else:
            result.append(nest.pack_like(target, [next(flat) if isinstance(leaf, Spec) else leaf
                                                  for leaf in nest.flatten(target)]))
    for tensor in written:
        tensor.copy_(next(flat))
    for then_value, else_value in zip(raw_true, raw_false):
        for value, other in ((then_value, else_value), (else_value, then_value)):
            if isinstance(value, UnassignedInBranch) and not isinstance(other, Unset):
                value.check(pred)
    # A variable neither branch assigns stays unassigned, as in Python.
    return tuple(Undefined(value.name) if isinstance(value, UnassignedInBranch) else value
                 for value in result)


class UnassignedInBranch(Unset):
    """A variable used after an if statement that one of its branches does not assign: the
    conditional gives it the other branch's value, and taking this branch fails when the
    program runs (Python raises UnboundLocalError where the variable is read next; the check
    comes at the if statement, so a program that assigns it again before reading it fails
    too, with a message that says how to avoid it)."""

    __slots__ = ("name", "label", "location")

    def __init__(self, name: str, label: str, location: str):
        self.name, self.label, self.location = name, label, location

    def check(self, pred: torch.Tensor) -> None:
        taken = pred if self.label == "if" else torch.logical_not(pred)
        torch._assert_async(torch.logical_not(taken), (
            f"'{self.name}' is not assigned in the {self.label} branch of the if statement"
            f"{self.location}, which the condition took, and it may be used after the if "
            f"statement: a traced if statement gives such a variable a value from both "
            f"branches (where Python reads it unassigned, it raises UnboundLocalError). "
            f"Assign '{self.name}' in the {self.label} branch too, or give it a value before "
            f"the if statement."))


class TorchBackend(StagedExpressions):
    """Stages control flow on traced PyTorch tensors."""

    name = "torch"
    stages = staticmethod(is_torch_traced)
    staged_cond = staticmethod(staged_cond)
    condition = staticmethod(condition)
    logical_not = staticmethod(torch.logical_not)
    builtins = torch_builtins  # int, float, min, max, assert... on traced tensors

    @staticmethod
    def while_stmt(test, body, get_state, set_state, names, opts, *, mutates, outer, staged):
        from transpiler.operators.staging.torch_loops import while_stmt
        while_stmt(test, body, get_state, set_state, names, opts, mutates=mutates, staged=staged)

    @staticmethod
    def for_stmt(iterable, extra_test, body, get_state, set_state, names, opts, *, mutates,
                 outer, staged):
        from transpiler.operators.staging.torch_loops import for_stmt
        for_stmt(iterable, extra_test, body, get_state, set_state, names, opts,
                 mutates=mutates, staged=staged)

    range = staticmethod(StagedRange.of)

    @staticmethod
    def stages_rest_of_range(rest: range, extra_test, body, get_state, set_state, names,
                             opts) -> bool:
        """The rest of a Python range as one ``while_loop`` (see ``control_flow._staged_rest``;
        PyTorch traces each unrolled ``cond`` several times over). What PyTorch logs of the
        attempt is said only if it stages: a failed one is unrolled."""
        from transpiler.operators.staging.torch_loops import for_stmt
        with _records_held(_SHAPES_LOG) as held:
            for_stmt(StagedRange(rest.start, rest.stop, rest.step), extra_test, body,
                     get_state, set_state, names, opts, mutates=(), staged=())
        for record in held:  # what PyTorch said of the loop staged: said now
            _SHAPES_LOG.handle(record)
        return True

    def if_stmt(self, *args, **kwargs):
        with buffer_assignments_unhooked():
            return super().if_stmt(*args, **kwargs)

    @staticmethod
    def writing_back(before, names, get_state):
        """A module's buffer the branches change is written in place."""
        return module_tensors_written_in_place(before, names, get_state)

    def branch_outputs(self, outputs: tuple, names, label: str, location: str) -> tuple:
        """A variable a branch leaves unassigned is checked when the program runs (see
        ``UnassignedInBranch``); one it deletes is still an error."""
        outputs = tuple(UnassignedInBranch(name, label, location)
                        if type(value) is Undefined and not value.deleted else value
                        for name, value in zip(names, outputs))
        return super().branch_outputs(outputs, names, label, location)


# Where PyTorch reports the symbols it makes (``x.item()`` of the counter, in a body that needs a
# Python int of it: "Unable to find user code corresponding to {u0}").
_SHAPES_LOG = logging.getLogger("torch.fx.experimental.symbolic_shapes")


class _Held(logging.Handler):
    def __init__(self, records: list):
        super().__init__()
        self.records = records

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def _records_held(log: logging.Logger):
    """Inside: what ``log`` records is held in the list given, not shown; a staged attempt that
    is given up (the loop unrolled instead) says nothing of it."""
    records: list = []
    handlers, propagate = log.handlers, log.propagate
    log.handlers, log.propagate = [_Held(records)], False
    try:
        yield records
    finally:
        log.handlers, log.propagate = handlers, propagate


def module_tensors_written_in_place(before: tuple, names: Sequence[str],
                                    get_state: Callable) -> Callable:
    """``finish(after, construct)``: ``after``, the state after a staged block, where an
    attribute that held a module's registered buffer ``before`` it (``self.count += 1`` in a
    branch) is that buffer again, the block's value copied into it: rebinding the attribute to
    the block's output would leave the module's real buffer unchanged under ``torch.compile``
    and ``torch.export``, which record a buffer's change only as a change in place. Which
    attributes hold buffers is read now, before the block rebinds them."""
    buffers = {index for index, (name, value) in enumerate(zip(names, before))
               if _is_buffer_of(get_state, name, value)}

    def finish(after: tuple, construct: str) -> tuple:
        after = list(after)
        for index in buffers:
            old, new = before[index], after[index]
            if new is not old:
                _check_buffer_value(names[index], old, new, construct)
                old.copy_(new)
                after[index] = old
        return tuple(after)
    return finish


def _check_buffer_value(name: str, old: torch.Tensor, new, construct: str) -> None:
    if isinstance(new, torch.Tensor) and tuple(new.shape) == tuple(old.shape) \
            and new.dtype == old.dtype:
        return
    shown = (f"a tensor of shape {tuple(new.shape)} and dtype {new.dtype}"
             if isinstance(new, torch.Tensor) else repr(new))
    raise rt.errors.GraphTypeError(
        f"'{name}' is a registered buffer of shape {tuple(old.shape)} and dtype {old.dtype}, "
        f"and {construct} on a traced PyTorch tensor makes it {shown}. A buffer changed in a "
        f"staged block is written in place (torch.compile and torch.export record only such "
        f"changes of a buffer), so give it a value of the same shape and dtype, or keep the "
        f"value in a plain attribute.")


@contextlib.contextmanager
def buffer_assignments_unhooked():
    """Inside: assigning a tensor to a module's buffer (``self.count = v``, as ``+=`` does)
    calls no global buffer-registration hook. ``torch.export`` maps each assigned buffer to
    the graph node of its new value that way, which a staged block's own values (traced apart,
    or not recorded at all while the block is discovered) do not have; the block's final value
    is copied into the buffer instead (``module_tensors_written_in_place``)."""
    hooks = getattr(torch.nn.modules.module, "_global_buffer_registration_hooks", None)
    if not hooks:
        yield
        return
    saved = dict(hooks)
    hooks.clear()
    try:
        yield
    finally:
        hooks.update(saved)


def _is_buffer_of(get_state: Callable, name: str, value) -> bool:
    """Whether the attribute ``name`` (``self.count``) held ``value`` as a registered buffer of
    a module."""
    if not isinstance(value, torch.Tensor) or "." not in name:
        return False
    place = Place(get_state, name)
    if not (place.is_part and place.qn.has_attr):
        return False
    try:
        holder = place.holder()
    except (LookupError, AttributeError, TypeError, ValueError):
        return False
    buffers = getattr(holder, "_buffers", None) if isinstance(holder, torch.nn.Module) else None
    return buffers is not None and buffers.get(place.qn.attr) is value


def _refuse_staged_lists(before: tuple, names: Sequence[str], staged: Sequence[str],
                         construct: str) -> None:
    for name, value in zip(names, before):
        if name in staged and type(value) is list:
            raise NotImplementedError(
                f"'{name}' is a list appended to inside {construct} on a traced PyTorch tensor"
                f"{cf._where()}; the PyTorch backend does not carry lists through torch.cond or "
                f"while_loop yet. Preallocate a tensor and write into it (t = t.index_put(...)"
                f" or torch.where), or decide with a Python value.")


BACKEND = TorchBackend()
