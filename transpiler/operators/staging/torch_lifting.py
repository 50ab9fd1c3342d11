"""Tensors a staged block uses from outside it, made inputs of PyTorch's ``cond``/``while_loop``.

A branch or loop body of converted code reads tensors of the enclosing trace through its
closure (a parameter, a module's weight, a value computed before the ``if``). PyTorch's
``cond`` and ``while_loop`` trace each block into a subgraph that may only use its own inputs:
under ``torch.export`` a captured tensor would be baked in as a constant of the trace, and under
``torch.compile`` (functionalization) it raises. Dynamo lifts such free variables itself, but
converted code is kept away from Dynamo (see ``transpiler.api``), so this module does it:

1. ``discover`` runs the block once with the tracer switched off (fake tensors only, nothing
   recorded) under a mode that notes every tensor an operation receives that neither the block
   made nor was given: what it captures.
2. ``substituting`` runs the block inside the engine's subgraph with those tensors replaced, at
   every operation, by the subgraph's inputs that stand for them.
3. A block may not change its inputs either: an in-place change of a tensor from outside it
   (``out[i] = v``, ``s.add_(v)``) changes a copy, which the block's later operations read; the
   tensors changed so are given back by the block and written after it
   (``Captured.written_tensors``, ``bind``).
"""

from __future__ import annotations

import contextlib
from typing import Callable, Sequence

import torch
from torch._subclasses.fake_tensor import is_fake
from torch._subclasses.functional_tensor import FunctionalTensor
from torch.fx.experimental.proxy_tensor import (disable_proxy_modes_tracing, get_proxy_mode,
                                               get_proxy_slot)
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import _detect_infra_mode
from torch.utils import _pytree as pytree

from transpiler.operators.staging import torch_indexing
from transpiler.operators.staging.torch_symbols import symbol_inputs

# The substitutions of the blocks being traced, innermost last: operands handed to a nested
# cond or while_loop (which does not go through torch functions) are resolved through them.
_active: list[dict[int, torch.Tensor]] = []
# What the tensors from outside read as in the blocks being run or discovered, innermost last.
_reading: list[dict[int, torch.Tensor]] = []
# The blocks being discovered: what a nested cond or while_loop outputs is made inside them.
_discovering: list["Captured"] = []


# ``x += y`` on a loop variable rebinds ``x`` to a new tensor, as it does for the Python numbers
# such tensors often stand for (``i += 1``; another name for the old value keeps it).
# PyTorch reports ``x += y`` to torch-function modes as ``x.add_(y)``, and so on.
_OUT_OF_PLACE = {
    getattr(owner, inplace): getattr(torch.Tensor, outplace)
    for owner in (torch._C.TensorBase, torch.Tensor)
    for inplace, outplace in (
        ("add_", "add"), ("sub_", "sub"), ("mul_", "mul"), ("div_", "div"),
        ("floor_divide_", "floor_divide"), ("remainder_", "remainder"), ("pow_", "pow"),
        ("bitwise_and_", "bitwise_and"), ("bitwise_or_", "bitwise_or"),
        ("bitwise_xor_", "bitwise_xor"), ("__iadd__", "__add__"), ("__isub__", "__sub__"),
        ("__imul__", "__mul__"), ("__itruediv__", "__truediv__"),
        ("__ifloordiv__", "__floordiv__"), ("__imod__", "__mod__"), ("__ipow__", "__pow__"),
        ("__iand__", "__and__"), ("__ior__", "__or__"), ("__ixor__", "__xor__"),
        ("__ilshift__", "__lshift__"), ("__irshift__", "__rshift__"))
    if hasattr(owner, inplace)}

# Operations that change their first argument in place.
_IN_PLACE_DUNDERS = frozenset((
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
    "__imatmul__"))


# Methods named like in-place operations that change no value.
_NOT_VALUES = frozenset(("requires_grad_", "share_memory_", "retain_grad"))


def _in_place(func) -> bool:
    name = getattr(func, "__name__", "")
    owner = getattr(func, "__qualname__", "").partition(".")[0]
    return owner in ("TensorBase", "Tensor") and (name in _IN_PLACE_DUNDERS or (
        name.endswith("_") and not name.startswith("_") and name not in _NOT_VALUES))


# Showing a tensor computes nothing the block outputs. Under torch.compile a FunctionalTensor's
# repr shows the tensor it wraps (``torch._from_functional_tensor``), a tensor of the
# functionalization layer that no block may take as an input ("'Tensor' object has no attribute
# 'constant'" when cond checks its branches): what ``print(x)`` in a block passes is not captured.
_SHOWING = frozenset(getattr(torch.Tensor, name) for name in ("__repr__", "__str__", "__format__"))


# What a block may read from outside: tensors, and the symbolic numbers of the trace.
_CAPTURABLE = (torch.Tensor, torch.SymInt, torch.SymFloat)


class _Capturing(TorchFunctionMode):
    """Replaces captured tensors by the subgraph's inputs (``mapping``), and, when
    ``recorded`` is given, notes the tensors from outside the block that operations receive.

    An operation changing a tensor from outside the block in place (one of ``inputs``, or,
    while discovering, one the block did not make: ``x += y``, ``s.add_(v)``, ``t[i] = v``)
    changes a copy instead, which every later operation of the block reads in its place and
    the block gives back where it gives the tensor: cond and while_loop may not change their
    inputs. Discovering notes the tensors from outside changed so (``Captured.written``): the
    block gives them back too, and they are written after it."""

    def __init__(self, mapping: dict[int, torch.Tensor], recorded: "Captured | None" = None,
                 inputs: Sequence = (), carried: Sequence = (), captured: Sequence = (),
                 location: str = ""):
        super().__init__()
        self.location = location
        self.mapping, self.recorded = mapping, recorded
        self.inputs = {id(tensor) for tensor in (*inputs, *carried)}
        self.carried = {id(tensor) for tensor in carried}
        self.captured = [tensor for tensor in captured if isinstance(tensor, torch.Tensor)]
        # Views of tensors from outside, made in the block: (view, the function that made it,
        # its first argument as the block wrote it and as it was used, the other arguments).
        self.views: dict[int, tuple] = {}
        # The tensors ``mapping`` has replacements for, kept alive: its keys are their ids,
        # which a tensor made later would otherwise take over once one is freed (a view
        # written through, ``x[j] = v``), and be replaced in its turn.
        self.replaced: list[torch.Tensor] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        written = args[0] if args else None
        if self.mapping:
            args, kwargs = pytree.tree_map(self._substituted, (args, kwargs))
        changes = args and _in_place(func) and isinstance(args[0], torch.Tensor)
        if changes and self._outside(args[0]):
            if func in _OUT_OF_PLACE and written is args[0] and self._variable(written):
                func = _OUT_OF_PLACE[func]
            else:
                args = (self._copy_on_write(written, args[0], func), *args[1:])
        elif changes and id(args[0]) in self.views:
            args = (self._rebased(args[0], func), *args[1:])
        view_of = args[0] if args and isinstance(args[0], torch.Tensor) else None
        func = torch_indexing.by_integer_tensors(func, args)
        if self.recorded is not None and func not in _SHOWING:
            for leaf in _leaves((args, kwargs)):
                if isinstance(leaf, _CAPTURABLE):
                    self.recorded.note(leaf)
        result = func(*args, **kwargs)
        if self.recorded is not None:
            for leaf in pytree.tree_leaves(result):
                if isinstance(leaf, _CAPTURABLE):
                    self.recorded.made(leaf)
        # (An operation that gives back its argument, ``.to()`` of the dtype it has, makes no
        # view: noted as its own view, it would be its own base.)
        if (view_of is not None and isinstance(result, torch.Tensor) and result._is_view()
                and result is not view_of
                and (self._outside(view_of) or id(view_of) in self.views)):
            self.views[id(result)] = (result, func, written, view_of, args[1:], kwargs)
        return result

    def _rebased(self, view: torch.Tensor, func) -> torch.Tensor:
        """``view`` (of a tensor from outside the block, ``x[i]`` in ``x[i] += v``) made again
        from the copy that the block changes in place of that tensor (made now if ``func``, an
        in-place change of the view, is the first change)."""
        _, make, original, base, rest, kwargs = self.views.pop(id(view))
        if id(base) in self.mapping:
            base = self.mapping[id(base)]
        elif id(base) in self.views:
            base = self._rebased(base, func)
        else:
            base = self._copy_on_write(original, base, func)
        again = make(base, *rest, **kwargs)
        self._replace(view, again)
        if self.recorded is not None:
            self.recorded.made(again)
        return again

    def _copy_on_write(self, original: torch.Tensor, current: torch.Tensor, func):
        copy = current.clone()
        self._replace(original, copy)
        self._replace(current, copy)
        if self.recorded is not None:
            if id(current) not in self.recorded._given:  # not a variable of the block
                self.recorded.note(original)  # read: the copy starts from it
                self.recorded.written(original, func, copy)
            self.recorded.made(copy)
        return copy

    def _replace(self, tensor: torch.Tensor, replacement: torch.Tensor) -> None:
        self.mapping[id(tensor)] = replacement
        self.replaced.append(tensor)

    def _variable(self, tensor) -> bool:
        """Whether ``tensor`` is the value of a variable of the loop being run or discovered."""
        if self.recorded is not None:
            return id(tensor) in self.recorded._given
        return id(tensor) in self.carried

    def _outside(self, tensor) -> bool:
        if self.recorded is not None:
            return id(tensor) not in self.recorded._inside or id(tensor) in self.recorded._given
        return id(tensor) in self.inputs

    def _substituted(self, leaf):
        if isinstance(leaf, slice):  # ``x[i::i]`` with a tensor ``i`` from outside
            return slice(*map(self._substituted, (leaf.start, leaf.stop, leaf.step)))
        if isinstance(leaf, _CAPTURABLE):
            if id(leaf) not in self.mapping and isinstance(leaf, torch.Tensor) and self.captured:
                self._restored(leaf)
            if self._stale(leaf):  # ``v = y[0]``, then ``y.add_(1)``: ``v`` sees the change
                return self._rebased(leaf, None)
            return self.mapping.get(id(leaf), leaf)
        return leaf

    def _stale(self, leaf) -> bool:
        """Whether ``leaf`` is a view made in the block of a tensor that the block has since
        changed in place (on a copy)."""
        if id(leaf) not in self.views:
            return False
        base = self.views[id(leaf)][3]
        return id(base) in self.mapping or self._stale(base)

    def _restored(self, leaf: torch.Tensor) -> None:
        """A real tensor read while PyTorch traces: the block runs again for its gradient after
        AOTAutograd put back a module's real parameters in place of the traced ones it ran
        with. The traced one ``leaf`` stands for is the captured tensor made from it (the fake
        tensor the trace's fake mode made of ``leaf``, or the functional tensor around it)."""
        if is_fake(leaf):  # made in the block, or an input of its trace
            return
        mode = torch._guards.detect_fake_mode()
        if mode is None:
            return
        memo = getattr(mode.fake_tensor_converter, "_get_memo", lambda tensor: None)
        fake = memo(leaf)
        for tensor in self.captured:
            if fake is not None and _unwrapped(tensor) is fake and id(tensor) in self.mapping:
                self.mapping[id(leaf)] = self.mapping[id(tensor)]
                return
        if isinstance(leaf, torch.nn.Parameter):
            raise RuntimeError(
                f"While PyTorch traces it, a staged block{self.location} reads a parameter of "
                f"shape {tuple(leaf.shape)} that the trace does not know (torch.compile's "
                f"gradient pass runs the block again after putting a module's real parameters "
                f"back). Read it into a local variable before the if statement or loop "
                f"(w = self.weight), so that the block reads the traced one.")
        raise RuntimeError(
            f"While PyTorch traces it, a staged block{self.location} reads a real tensor of "
            f"shape {tuple(leaf.shape)} from outside the function, which the trace cannot hold. "
            f"Pass it to the function as an argument, or register it as a module's buffer.")


def _leaves(tree) -> list:
    """The leaves of ``tree``, the bounds of its slices among them (an index ``x[i:j]`` holds
    the tensors ``i`` and ``j`` in a slice, which pytree takes for a leaf)."""
    leaves = []
    for leaf in pytree.tree_leaves(tree):
        leaves.extend((leaf.start, leaf.stop, leaf.step) if isinstance(leaf, slice) else (leaf,))
    return leaves


def _unwrapped(tensor: torch.Tensor) -> torch.Tensor:
    """The fake tensor inside ``tensor`` (the functional tensor of torch.compile's trace)."""
    inner = getattr(tensor, "elem", None)
    if inner is not None and torch._is_functional_tensor(inner):
        return torch._from_functional_tensor(inner)
    return tensor


class Captured:
    """The tensors one staged construct reads from outside its blocks, in the order first
    seen (kept alive here, so their ids stay theirs while the construct is traced)."""

    def __init__(self):
        self.tensors: list[torch.Tensor] = []
        self._seen: set[int] = set()
        self._inside: set[int] = set()
        self._given: set[int] = set()
        self._alive: list[torch.Tensor] = []
        self._readers: list[Callable[[Sequence], object]] = []
        self._written: dict[int, tuple] = {}
        self._numbers_given: list = []  # symbolic numbers among the block's outputs

    def written(self, tensor: torch.Tensor, func, copy: torch.Tensor) -> None:
        """``tensor``, from outside the block, is changed in place by ``func`` in it (its
        ``copy`` is, in fact)."""
        self._written.setdefault(id(tensor), (tensor, copy, getattr(func, "__name__", "?")))

    def written_tensors(self, outputs: Sequence = ()) -> list:
        """The tensors from outside that the block changes in place and does not give back
        among ``outputs`` (its variables' values), in the order first seen."""
        given_back = {id(leaf) for leaf in pytree.tree_leaves(list(outputs))}
        return [tensor for tensor, copy, _ in self._written.values()
                if id(tensor) not in given_back and id(copy) not in given_back]

    def given(self, tensors: Sequence) -> None:
        """Tensors the block receives as inputs (loop variables): not captured."""
        for tensor in tensors:
            if isinstance(tensor, torch.Tensor):
                self.made(tensor)
                self._given.add(id(tensor))

    def made(self, tensor: torch.Tensor) -> None:
        self._inside.add(id(tensor))
        self._alive.append(tensor)

    def note(self, tensor: torch.Tensor) -> None:
        key = id(tensor)
        if key not in self._inside and key not in self._seen:
            self._seen.add(key)
            self.tensors.append(tensor)

    def note_outputs(self, leaves: Sequence) -> None:
        """A block's outputs that are tensors from outside it (``y = w``): captured too; the
        symbols of its symbolic numbers are inputs (``torch_symbols``), those of a symbolic
        bool too (``x > 0 and n > 2`` with an int ``n`` that torch.compile made dynamic)."""
        for leaf in leaves:
            if isinstance(leaf, torch.Tensor):
                self.note(leaf)
            elif isinstance(leaf, (*_CAPTURABLE, torch.SymBool)):
                self._numbers_given.append(leaf)

    def operands(self) -> tuple:
        """The captured tensors as the enclosing block sees them (its own inputs), each once.

        Two captured tensors may be one there: a nested block notes both a tensor from outside
        and the enclosing block's input that stands for it (which reaches it as an operand of
        the inner cond or while_loop). The engines refuse operands that alias each other."""
        unique: dict[int, int] = {}
        operands, self._readers = [], []
        for value in map(resolve, self.tensors):
            if not isinstance(value, torch.Tensor) and not _traced_here(value):
                # made from the block's own values while it was discovered: stays itself
                self._readers.append(lambda inputs, value=value: value)
                continue
            if id(value) not in unique:
                unique[id(value)] = len(operands)
                # The engines take tensors and ints (a float goes in as a tensor), and refuse
                # operands that alias each other (a view goes in as a copy: ``y`` and ``y[0]``).
                operand = value
                if isinstance(value, torch.SymFloat):
                    operand = torch.scalar_tensor(value, dtype=torch.float64)
                elif isinstance(value, torch.Tensor) and value._is_view():
                    operand = value.clone()
                operands.append(operand)
            index = unique[id(value)]
            self._readers.append((lambda inputs, index=index: inputs[index].item())
                                 if isinstance(value, torch.SymFloat) else
                                 (lambda inputs, index=index: inputs[index]))
        numbers = [value for value in (*self.tensors, *self._numbers_given)
                   if not isinstance(value, torch.Tensor)]
        operands += [symbol for symbol in symbol_inputs(numbers, operands) if _traced_here(symbol)]
        return tuple(operands)

    def per_tensor(self, inputs: Sequence[torch.Tensor]) -> list:
        """The values standing for ``tensors`` in the block, from its ``inputs`` (one per
        operand)."""
        return [read(inputs) for read in self._readers]


def _traced_here(number) -> bool:
    """Whether the trace being recorded knows ``number`` (a symbolic int or float of the
    enclosing program, such as a Python number argument that ``torch.compile`` made dynamic):
    the blocks of cond and while_loop then take it as an input, as they cannot read it from
    outside."""
    mode = get_proxy_mode()
    return mode is None or get_proxy_slot(number, mode.tracer, None) is not None


def unaliased(tensors: Sequence[torch.Tensor]) -> list:
    """``tensors``, each one given twice, and each view, copied: the inputs of cond and
    while_loop may not alias each other (``y = x`` before a loop, and ``x`` also read inside it;
    ``out[0]`` and ``out``). A tensor from outside the enclosing block and the block's input
    that stands for it are one (an array a nested loop changes in place, carried by it, and read
    by it as a captured operand): the block reads both as its input."""
    seen, result = set(), []
    for tensor in tensors:
        if id(resolve(tensor)) in seen or (isinstance(tensor, torch.Tensor) and
                                           tensor._is_view()):
            tensor = tensor.clone()
        seen.add(id(resolve(tensor)))
        result.append(tensor)
    return result


def bind(tensors: Sequence[torch.Tensor], values: Sequence[torch.Tensor]) -> None:
    """In the block being run, each of ``tensors`` (from outside) reads as its value."""
    _reading[-1].update({id(tensor): value for tensor, value in zip(tensors, values)})


def current(tensors: Sequence[torch.Tensor]) -> list:
    """What each of ``tensors`` reads as in the block being run (changed in place, bound)."""
    return [_reading[-1].get(id(tensor), tensor) for tensor in tensors]


def resolve(tensor):
    """``tensor`` as the innermost block being traced sees it."""
    for mapping in reversed(_active):
        if isinstance(tensor, _CAPTURABLE) and id(tensor) in mapping:
            return mapping[id(tensor)]
    return tensor


def discover(fn: Callable, captured: Captured, given: Sequence = ()):
    """Runs ``fn`` once on fake tensors without tracing it, noting what it captures."""
    captured.given(given)
    captured.note_outputs(_closure_numbers(fn))
    _discovering.append(captured)
    mapping: dict[int, torch.Tensor] = {}
    _reading.append(mapping)
    try:
        with disable_proxy_modes_tracing(), _scratch_symbols(), _Capturing(mapping, captured):
            return fn()
    finally:
        _reading.pop()
        _discovering.pop()


def _closure_numbers(fn: Callable) -> list:
    """The symbolic numbers held by the closures of ``fn`` and of the functions they hold: a
    block may compare one in Python (``if n > 4`` in a branch, with an ``n`` that
    torch.compile made dynamic), which no operation of PyTorch sees, and its subgraph can only
    compute that with the number's symbols as inputs."""
    numbers, seen, stack = [], set(), [fn]
    while stack:
        function = stack.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        for cell in getattr(function, "__closure__", None) or ():
            try:
                value = cell.cell_contents
            except ValueError:  # a variable not assigned yet
                continue
            if isinstance(value, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                numbers.append(value)
            elif callable(value) and hasattr(value, "__code__"):
                stack.append(value)
    return numbers


def _scratch_symbols():
    """A context in which the numbers known only when the program runs (``x.item()``) are
    scratch: a block being discovered is not recorded, so nothing in the trace will bind them."""
    shape_env = getattr(torch._guards.detect_fake_mode(), "shape_env", None)
    return shape_env.ignore_fresh_unbacked_symbols() if shape_env else contextlib.nullcontext()


def stand_ins(specs: Sequence[tuple], like: Sequence) -> list:
    """Zero tensors of ``specs`` (shape, dtype pairs) of the kind being traced (fake, or
    functional around fake), made without a node in the graph and outside any recording:
    what a block's inputs are while it is discovered."""
    reference = next((leaf for leaf in like if isinstance(leaf, torch.Tensor)), None)
    with disable_proxy_modes_tracing():
        if reference is not None:
            return [reference.new_zeros(shape, dtype=dtype) for shape, dtype in specs]
        mode = torch._guards.detect_fake_mode()
        with mode if mode is not None else contextlib.nullcontext():
            return [torch.zeros(shape, dtype=dtype) for shape, dtype in specs]


def symbolic_numbers(zeros: Sequence) -> list:
    """Symbolic Python numbers of the kinds of ``zeros`` (ints and floats) whose value the trace
    does not know, made outside any recording (``.item()``'s kind of number): a loop variable
    that enters as a Python number while the body is discovered, so that PyTorch promotes it as
    a Python number (next to an int32 tensor it gives int32). Without a shape environment, the
    zeros themselves."""
    shape_env = getattr(torch._guards.detect_fake_mode(), "shape_env", None)
    if shape_env is None or not zeros:
        return list(zeros)
    with disable_proxy_modes_tracing(), shape_env.ignore_fresh_unbacked_symbols():
        return [shape_env.create_unbacked_symfloat() if isinstance(zero, float)
                else shape_env.create_unbacked_symint() for zero in zeros]


def made(outputs):
    """``outputs`` of a higher-order operator (which bypasses torch functions), noted as made
    inside the blocks being discovered."""
    for captured in _discovering:
        captured.given(outputs)
    return outputs


@contextlib.contextmanager
def substituting(captured: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor],
                 carried: Sequence[torch.Tensor] = (), location: str = ""):
    """Inside: each of ``captured`` reads as the matching subgraph input of ``inputs``; neither
    those nor ``carried`` (the loop's own inputs) change in place. ``location`` (`` at f.py:3``)
    names the construct in errors."""
    mapping = {id(outer): inner for outer, inner in zip(captured, inputs) if outer is not inner}
    _active.append(mapping)
    _reading.append(mapping)
    try:
        with _Capturing(mapping, inputs=inputs, carried=carried, captured=captured,
                        location=location), _conversions_reach_modes():
            yield mapping
    finally:
        _reading.pop()
        _active.pop()


@contextlib.contextmanager
def _conversions_reach_modes():
    """Inside: ``.to(...)`` and the methods that call it (``.double()``, ``.long()``, ...) of a
    functional tensor work where no functionalization mode is active. Under ``torch.compile``,
    ``cond`` and ``while_loop`` trace a block again for their schema with functionalization
    switched off; a tensor the block reads from outside is still the outer trace's functional
    tensor, whose ``to`` asks for that mode before anything reaches ``_Capturing`` (which would
    put the subgraph's input in its place) and fails ("'NoneType' object has no attribute
    'export'"). There it goes straight to ``Tensor.to``, through the torch-function modes."""
    original = FunctionalTensor.to

    def to(self, *args, **kwargs):
        if _detect_infra_mode(torch._C._TorchDispatchModeKey.FUNCTIONAL) is None:
            return torch.Tensor.to(self, *args, **kwargs)
        return original(self, *args, **kwargs)

    FunctionalTensor.to = to
    try:
        yield
    finally:
        FunctionalTensor.to = original


def distinct(leaves: Sequence) -> tuple:
    """``leaves`` with each tensor given again copied: a block's outputs may not alias each
    other (two variables holding one tensor)."""
    seen, result = set(), []
    for leaf in leaves:
        if isinstance(leaf, torch.Tensor):
            if id(leaf) in seen:
                leaf = leaf.clone()
            seen.add(id(leaf))
        result.append(leaf)
    return tuple(result)


def as_output(leaf, mapping: dict[int, torch.Tensor], inputs: Sequence[torch.Tensor]):
    """A block's output leaf as the subgraph returns it: a captured tensor becomes its input,
    and an input (or a view of one, or a tensor sharing its storage: ``float(x)`` of a 0-d
    float ``x`` is ``x`` reshaped, which under ``torch.compile`` is not marked a view) is copied,
    as cond and while_loop outputs may not alias their inputs."""
    if not isinstance(leaf, torch.Tensor):
        return leaf
    leaf = mapping.get(id(leaf), leaf)
    if leaf._is_view() or any(isinstance(tensor, torch.Tensor) and (
            leaf is tensor or torch._C._is_alias_of(leaf, tensor)) for tensor in inputs):
        return leaf.clone()
    return leaf
