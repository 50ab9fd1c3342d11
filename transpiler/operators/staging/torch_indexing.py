"""Indexing by 0-d integer tensors in converted code traced by PyTorch: ``x[i]`` and
``x[i] = v`` where ``i`` is the loop variable of a staged ``for i in range(n)`` (a tensor), or a
value computed when the program runs (``i = torch.argmax(x)``), and slices with such bounds
(``x[:n]``).

PyTorch reads a 0-d integer tensor in an index as the integer it holds, asking the tensor for
its value, which a trace does not know ("Could not extract specialized integer from
data-dependent expression"). ``select`` with the tensor's ``.item()`` keeps it a symbolic int
of the trace instead, and gives the same element (a negative index counts from the end).
"""

from __future__ import annotations

import contextlib

import torch
from torch.fx.experimental.proxy_tensor import get_proxy_mode
from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode
from torch.overrides import TorchFunctionMode

import runtime as rt
from transpiler.operators import control_flow as cf
from transpiler.operators.staging import is_torch_unknown_number

_GETITEM = torch.Tensor.__getitem__
_SETITEM = torch.Tensor.__setitem__
_INDEX = torch.Tensor.__index__


def by_integer_tensors(func, args: tuple):
    """``func``, or its replacement reading integer tensors of the index as integers."""
    if func is _GETITEM and len(args) == 2 and _indexes_by_integer_tensors(args[1]):
        return select_integers
    if func is _SETITEM and len(args) == 3 and _indexes_by_integer_tensors(args[1]):
        return _assign_integers
    if func is _INDEX:
        return _python_int
    return func


def _python_int(value: torch.Tensor) -> int:
    """``value.__index__()``: a tensor asked for the Python int it holds (a list index, a
    ``range`` bound outside converted loops, a size), which a trace knows only for some tensors.
    For the others PyTorch's refusal names a symbol, not the user's line: it is raised again
    saying where and what to write instead."""
    try:
        return _INDEX(value)
    except GuardOnDataDependentSymNode as error:
        raise rt.errors.GraphTypeError(
            f"A traced integer tensor is used{cf._where()} where Python needs an int it knows "
            f"while tracing: an index of a list or tuple, or a size. PyTorch knows its value "
            f"only when the program runs. Index a tensor instead (torch.tensor(values)[i], or "
            f"torch.stack(values)[i] for a list of tensors), or pass the int as a Python "
            f"number.") from error


class IndexingByIntegerTensors(TorchFunctionMode):
    """The mode a converted function runs in while PyTorch traces it: its indexing by 0-d
    integer tensors reads them as symbolic integers (blocks of staged control flow do the
    same in their own mode, ``torch_lifting``)."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return by_integer_tensors(func, args)(*args, **(kwargs or {}))


def _is_integer_scalar(item) -> bool:
    """A 0-d integer tensor, or an int known only when the program runs (``x.item()`` of an
    integer tensor: PyTorch's indexing of a functional tensor, under ``torch.compile``, refuses
    such a symbolic int, which ``select`` takes)."""
    if isinstance(item, torch.SymInt):
        return is_torch_unknown_number(item)
    return _is_integer_tensor(item)


def _is_integer_tensor(item) -> bool:
    return (isinstance(item, torch.Tensor) and item.dim() == 0 and item.dtype != torch.bool
            and not item.dtype.is_floating_point and not item.dtype.is_complex)


def _is_traced_slice(item) -> bool:
    """A slice with a 0-d integer tensor as its start or stop (``x[:n]``, ``x[i:i + 2]``) and
    no tensor step (a symbolic step's sign is a decision the trace cannot make: PyTorch's own
    reading of ``x[i * i::i]`` stays)."""
    return isinstance(item, slice) and not isinstance(item.step, torch.Tensor) and any(
        map(_is_integer_tensor, (item.start, item.stop)))


def _indexes_by_integer_tensors(index) -> bool:
    """Whether ``index`` holds 0-d integer tensors, as items or slice bounds (and no other
    tensor)."""
    items = index if isinstance(index, tuple) else (index,)
    return any(_is_integer_scalar(item) or _is_traced_slice(item) for item in items) and not any(
        isinstance(item, torch.Tensor) and not _is_integer_scalar(item) for item in items)


def _symbolic_bounds(item: slice) -> slice:
    """``item`` with its 0-d integer tensor bounds read as symbolic ints: PyTorch slices by
    them as Python slices by ints (clamped to the size, negative from the end)."""
    return slice(*(bound.item() if _is_integer_tensor(bound) else bound
                   for bound in (item.start, item.stop)), item.step)


def select_integers(x: torch.Tensor, index) -> torch.Tensor:
    """``x[index]``, each 0-d integer tensor of ``index`` read as its integer (a view of
    ``x``, as indexing by integers gives)."""
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
    with _unreturned_symbols():
        result = x[tuple(slice(None) if _is_integer_scalar(item) else
                         _symbolic_bounds(item) if _is_traced_slice(item) else item
                         for item in items)]
        for position, item in reversed(selected):
            result = result.select(position, _non_negative(item, result.shape[position]))
    return result


def _unreturned_symbols():
    """The context for reading indices as symbolic ints (``.item()``), whose symbols no shape of
    the result holds. A trace being recorded binds each symbol to the node that reads it
    (``node.meta["unbacked_bindings"]``), which Inductor needs to lower that node, so there
    they are kept. Otherwise (Dynamo running a converted function on fake tensors to learn
    what it returns) nothing would bind them, and a symbol that the result does not hold is
    an error: there they are ignored."""
    shape_env = getattr(torch._guards.detect_fake_mode(), "shape_env", None)
    if shape_env is None or get_proxy_mode() is not None:
        return contextlib.nullcontext()
    return shape_env.ignore_fresh_unbacked_symbols()


def _non_negative(index, size) -> torch.SymInt:
    """``index`` into a dimension of ``size`` as a symbolic int from 0 (one from the end counted
    from the start), checked to be in range when the program runs: an index whose sign is
    unknown gives a view whose offset is unknown too, a new symbol that PyTorch's view of a
    changed tensor makes again where nothing binds it."""
    if isinstance(index, torch.SymInt):
        index = torch.scalar_tensor(index, dtype=torch.int64)
    value = torch.where(index < 0, index + size, index).item()
    torch._check(value >= 0, lambda: f"index is out of bounds for a dimension of size {size}")
    torch._check(value < size, lambda: f"index is out of bounds for a dimension of size {size}")
    return value


def _assign_integers(x: torch.Tensor, index, value) -> None:
    """``x[index] = value``, each 0-d integer tensor of ``index`` read as its integer."""
    select_integers(x, index).copy_(value if isinstance(value, torch.Tensor)
                                    else torch.full((), value, dtype=x.dtype))
