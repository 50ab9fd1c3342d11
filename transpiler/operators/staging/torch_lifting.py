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
"""

from __future__ import annotations

import contextlib
from typing import Callable, Sequence

import torch
from torch.fx.experimental.proxy_tensor import (disable_proxy_modes_tracing, get_proxy_mode,
                                               get_proxy_slot)
from torch.overrides import TorchFunctionMode
from torch.utils import _pytree as pytree

# The substitutions of the blocks being traced, innermost last: operands handed to a nested
# cond or while_loop (which does not go through torch functions) are resolved through them.
_active: list[dict[int, torch.Tensor]] = []
# The blocks being discovered: what a nested cond or while_loop outputs is made inside them.
_discovering: list["Captured"] = []


# ``x += y`` on a tensor from outside the block (a loop variable, a number carried as a
# tensor, a captured value) rebinds ``x`` to a new tensor, as it does for the Python numbers
# those tensors often stand for: cond and while_loop may not change their inputs in place.
# (PyTorch reports ``x += y`` to torch-function modes as ``x.add_(y)``, and so on.)
_OUT_OF_PLACE = {
    getattr(owner, inplace): getattr(torch.Tensor, outplace)
    for owner in (torch._C.TensorBase, torch.Tensor)
    for inplace, outplace in (
        ("add_", "add"), ("sub_", "sub"), ("mul_", "mul"), ("div_", "div"),
        ("__iadd__", "__add__"), ("__isub__", "__sub__"), ("__imul__", "__mul__"),
        ("__itruediv__", "__truediv__"), ("__ifloordiv__", "__floordiv__"),
        ("__imod__", "__mod__"), ("__ipow__", "__pow__"), ("__iand__", "__and__"),
        ("__ior__", "__or__"), ("__ixor__", "__xor__"), ("__ilshift__", "__lshift__"),
        ("__irshift__", "__rshift__"), ("floor_divide_", "floor_divide"),
        ("remainder_", "remainder"), ("pow_", "pow"), ("bitwise_and_", "bitwise_and"),
        ("bitwise_or_", "bitwise_or"), ("bitwise_xor_", "bitwise_xor"))
    if hasattr(owner, inplace)}


# Showing a tensor computes nothing the block outputs. Under torch.compile a FunctionalTensor's
# repr shows the tensor it wraps (``torch._from_functional_tensor``), a tensor of the
# functionalization layer that no block may take as an input ("'Tensor' object has no attribute
# 'constant'" when cond checks its branches): what ``print(x)`` in a block passes is not captured.
_SHOWING = frozenset(getattr(torch.Tensor, name) for name in ("__repr__", "__str__", "__format__"))


# What a block may read from outside: tensors, and the symbolic numbers of the trace.
_CAPTURABLE = (torch.Tensor, torch.SymInt, torch.SymFloat)


_GETITEM = torch.Tensor.__getitem__


def _is_integer_scalar(item) -> bool:
    return (isinstance(item, torch.Tensor) and item.dim() == 0 and item.dtype != torch.bool
            and not item.dtype.is_floating_point and not item.dtype.is_complex)


def _indexes_by_integer_tensors(index) -> bool:
    """Whether ``x[index]`` uses 0-d integer tensors as integers (and no other tensor)."""
    items = index if isinstance(index, tuple) else (index,)
    return any(map(_is_integer_scalar, items)) and not any(
        isinstance(item, torch.Tensor) and not _is_integer_scalar(item) for item in items)


def _select_integers(x: torch.Tensor, index) -> torch.Tensor:
    """``x[index]`` where each 0-d integer tensor of ``index`` is read as the integer it holds,
    as PyTorch reads it, through ``select`` with its ``.item()``: PyTorch's indexing asks the
    tensor for its value, which a trace does not know ("Could not extract specialized integer
    from data-dependent expression"), while ``select`` keeps a symbolic int (the loop variable
    of a staged ``for i in range(n)``, used as ``x[i]``)."""
    items = index if isinstance(index, tuple) else (index,)
    consumed = sum(item is not None and item is not Ellipsis for item in items)
    selected, position = [], 0
    for item in items:
        if _is_integer_scalar(item):
            selected.append((position, item))
            position += 1
        elif item is None or isinstance(item, slice):
            position += 1
        elif item is Ellipsis:
            position += x.dim() - consumed
    result = x[tuple(slice(None) if _is_integer_scalar(item) else item for item in items)]
    fake_mode = torch._guards.detect_fake_mode()
    shape_env = getattr(fake_mode, "shape_env", None)
    # The symbols stay inside: no shape of the result depends on them.
    with shape_env.ignore_fresh_unbacked_symbols() if shape_env else contextlib.nullcontext():
        for position, item in reversed(selected):
            result = result.select(position, item.item())
    return result


class _Capturing(TorchFunctionMode):
    """Replaces captured tensors by the subgraph's inputs (``mapping``), and, when
    ``recorded`` is given, notes the tensors from outside the block that operations receive.
    An augmented assignment to a tensor from outside the block (one of ``inputs``, or, while
    discovering, one the block did not make) does not change it in place."""

    def __init__(self, mapping: dict[int, torch.Tensor], recorded: "Captured | None" = None,
                 inputs: Sequence = ()):
        super().__init__()
        self.mapping, self.recorded = mapping, recorded
        self.inputs = {id(tensor) for tensor in inputs}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if self.mapping:
            args, kwargs = pytree.tree_map(self._substituted, (args, kwargs))
        if func in _OUT_OF_PLACE and args and self._outside(args[0]):
            func = _OUT_OF_PLACE[func]
        if func is _GETITEM and len(args) == 2 and _indexes_by_integer_tensors(args[1]):
            func = _select_integers
        if self.recorded is not None and func not in _SHOWING:
            for leaf in pytree.tree_leaves((args, kwargs)):
                if isinstance(leaf, _CAPTURABLE):
                    self.recorded.note(leaf)
        result = func(*args, **kwargs)
        if self.recorded is not None:
            for leaf in pytree.tree_leaves(result):
                if isinstance(leaf, _CAPTURABLE):
                    self.recorded.made(leaf)
        return result

    def _outside(self, tensor) -> bool:
        if self.recorded is not None:
            return id(tensor) not in self.recorded._inside or id(tensor) in self.recorded._given
        return id(tensor) in self.inputs

    def _substituted(self, leaf):
        if isinstance(leaf, _CAPTURABLE):
            return self.mapping.get(id(leaf), leaf)
        return leaf


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
        """A block's outputs that are tensors from outside it (``y = w``): captured too."""
        for leaf in leaves:
            if isinstance(leaf, torch.Tensor):
                self.note(leaf)

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
                # the engines take tensors and ints: a float goes in as a tensor
                operands.append(torch.scalar_tensor(value, dtype=torch.float64)
                                if isinstance(value, torch.SymFloat) else value)
            index = unique[id(value)]
            self._readers.append((lambda inputs, index=index: inputs[index].item())
                                 if isinstance(value, torch.SymFloat) else
                                 (lambda inputs, index=index: inputs[index]))
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
    """``tensors``, each one that is given twice copied: the inputs of cond and while_loop may
    not alias each other (``y = x`` before a loop, and ``x`` also read inside it)."""
    seen, result = set(), []
    for tensor in tensors:
        if id(tensor) in seen:
            tensor = tensor.clone()
        seen.add(id(tensor))
        result.append(tensor)
    return result


def resolve(tensor):
    """``tensor`` as the innermost block being traced sees it."""
    for mapping in reversed(_active):
        if isinstance(tensor, _CAPTURABLE) and id(tensor) in mapping:
            return mapping[id(tensor)]
    return tensor


def discover(fn: Callable, captured: Captured, given: Sequence = ()):
    """Runs ``fn`` once on fake tensors without tracing it, noting what it captures."""
    captured.given(given)
    _discovering.append(captured)
    try:
        with disable_proxy_modes_tracing(), _Capturing({}, captured):
            return fn()
    finally:
        _discovering.pop()


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


def made(outputs):
    """``outputs`` of a higher-order operator (which bypasses torch functions), noted as made
    inside the blocks being discovered."""
    for captured in _discovering:
        captured.given(outputs)
    return outputs


@contextlib.contextmanager
def substituting(captured: Sequence[torch.Tensor], inputs: Sequence[torch.Tensor],
                 carried: Sequence[torch.Tensor] = ()):
    """Inside: each of ``captured`` reads as the matching subgraph input of ``inputs``; neither
    those nor ``carried`` (the loop's own inputs) change in place."""
    mapping = {id(outer): inner for outer, inner in zip(captured, inputs) if outer is not inner}
    _active.append(mapping)
    try:
        with _Capturing(mapping, inputs=(*inputs, *carried)):
            yield mapping
    finally:
        _active.pop()


def as_output(leaf, mapping: dict[int, torch.Tensor], inputs: Sequence[torch.Tensor]):
    """A block's output leaf as the subgraph returns it: a captured tensor becomes its input,
    and an input (or a view of one) is copied, as cond and while_loop outputs may not alias
    their inputs."""
    if not isinstance(leaf, torch.Tensor):
        return leaf
    leaf = mapping.get(id(leaf), leaf)
    if any(leaf is tensor for tensor in inputs) or leaf._is_view():
        return leaf.clone()
    return leaf
