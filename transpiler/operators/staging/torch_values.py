"""What PyTorch's staged control flow carries: tensors, and Python numbers made tensors.

A leaf of a branch's or loop's state is a tensor (carried), a Python number (carried as a 0-d
tensor when the paths disagree on it or a loop changes it) or anything else (None, a string, a
function, an unset return value), which is static: the same on every path. ``torch.cond`` and
``while_loop`` need one dtype and one shape per output; a Python number next to a tensor takes
the tensor's dtype when its kind fits (``1`` next to float32), as in the other engines, and
anything else is an error naming the variable.
"""

from __future__ import annotations

import torch
from torch.fx.experimental.proxy_tensor import disable_proxy_modes_tracing

import runtime as rt
from transpiler.operators import control_flow as cf

NUMBERS = (bool, int, float)
# Python numbers the trace knows symbolically: a size of a dynamic dimension, an int that
# torch.compile made dynamic, arithmetic on them (``hi = n - 1``), ``x.item()`` of an int.
SYMBOLIC_NUMBERS = (torch.SymBool, torch.SymInt, torch.SymFloat)
_KIND_RANK = {"b": 0, "i": 1, "f": 2, "c": 3}


def kind(dtype: torch.dtype) -> str:
    if dtype == torch.bool:
        return "b"
    if dtype.is_complex:
        return "c"
    return "f" if dtype.is_floating_point else "i"


def number(value, dtype: torch.dtype | None = None) -> torch.Tensor:
    """A Python number as a 0-d tensor of ``dtype`` (PyTorch's type for it by default), made by
    an operation the trace records (``full``) rather than as a constant of the graph."""
    return torch.full((), value, dtype=number_dtype(value) if dtype is None else dtype)


def number_dtype(value) -> torch.dtype:
    """The dtype PyTorch gives a Python number (``torch.tensor(value)``)."""
    if isinstance(value, (bool, torch.SymBool)):
        return torch.bool
    if isinstance(value, (int, torch.SymInt)):
        return torch.int64
    return torch.get_default_dtype()


class Spec:
    """The type of a carried leaf: shape, dtype, and whether it stands for a Python number."""

    __slots__ = ("shape", "dtype", "weak")

    def __init__(self, shape: tuple, dtype: torch.dtype, weak: bool = False):
        self.shape, self.dtype, self.weak = tuple(shape), dtype, weak

    @staticmethod
    def of(leaf) -> "Spec":
        if isinstance(leaf, (*NUMBERS, *SYMBOLIC_NUMBERS)):
            return Spec((), number_dtype(leaf), weak=True)
        return Spec(tuple(leaf.shape), leaf.dtype)

    def describe(self) -> str:
        if self.weak:
            return f"a Python {type(self.zero()).__name__}"
        return f"dtype {str(self.dtype).replace('torch.', '')}"

    def zero(self):
        if self.weak:
            return {"b": False, "i": 0, "f": 0.0}.get(kind(self.dtype), 0)
        return torch.zeros(self.shape, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"Spec({self.shape}, {self.dtype}, weak={self.weak})"


def same_shape(a: tuple, b: tuple) -> bool:
    """Whether shapes ``a`` and ``b`` are equal, asked outside any trace: a block's subgraph
    may be traced apart from the program (``while_loop`` does so for its gradient), where the
    program's symbolic sizes have no node to compare them in the graph."""
    with disable_proxy_modes_tracing():
        return a == b


def is_carried(leaf) -> bool:
    return isinstance(leaf, (torch.Tensor, *NUMBERS, *SYMBOLIC_NUMBERS))


def as_tensor(leaf, spec: Spec) -> torch.Tensor:
    """``leaf`` as a tensor of ``spec``'s dtype (a Python number, or a tensor to convert)."""
    if isinstance(leaf, torch.Tensor):
        return leaf if leaf.dtype == spec.dtype else leaf.to(spec.dtype)
    if isinstance(leaf, SYMBOLIC_NUMBERS):
        return torch.scalar_tensor(leaf, dtype=spec.dtype)
    return number(leaf, spec.dtype)


def joined(name: str, a: Spec, b: Spec, construct: str, location: str,
           sides: tuple = ("true branch", "false branch")) -> Spec:
    """The one type a conditional's output ``name`` has, from the types the two branches give
    it, or the error naming it."""
    first, second = sides
    if not same_shape(a.shape, b.shape):
        raise rt.errors.GraphTypeError(
            f"'{name}' has shape {a.shape} in the {first} but {b.shape} in the {second} of the "
            f"{construct} on a traced PyTorch tensor{location}; torch.cond needs the same shape "
            f"from both branches. Pad or reshape one of them, or decide with a Python value.")
    if a.dtype == b.dtype:
        return Spec(a.shape, a.dtype, a.weak and b.weak)
    if a.weak and b.weak and kind(a.dtype) != kind(b.dtype):
        raise rt.errors.GraphTypeError(
            f"'{name}' is {a.describe()} in the {first} but {b.describe()} in the {second} of "
            f"the {construct} on a traced PyTorch tensor{location}; Python would give a "
            f"different type on each path, which one traced value cannot. Make both the same "
            f"type (e.g. write 1.0 instead of 1).")
    if a.weak != b.weak:
        weak, strong = (a, b) if a.weak else (b, a)
        if _KIND_RANK[kind(weak.dtype)] <= _KIND_RANK[kind(strong.dtype)]:
            return Spec(strong.shape, strong.dtype)
    raise rt.errors.GraphTypeError(
        f"'{name}' has {a.describe()} in the {first} but {b.describe()} in the {second} of the "
        f"{construct} on a traced PyTorch tensor{location}; both branches must give the same "
        f"dtype (convert one of them with .to(...)).")


def condition(value, construct: str) -> torch.Tensor:
    """A bool scalar from a traced condition: numbers mean ``!= 0``; more than one element is
    ambiguous (as ``bool(tensor)`` is), so it is an error."""
    if isinstance(value, NUMBERS):
        return number(bool(value))
    if isinstance(value, (torch.SymBool, torch.SymInt, torch.SymFloat)):
        # known only when the program runs (``x.item() > 0.5``)
        return torch.scalar_tensor(value if isinstance(value, torch.SymBool) else value != 0,
                                   dtype=torch.bool)
    if value.numel() != 1:
        raise ValueError(
            f"the condition of {construct} must be a single value, got a tensor of shape "
            f"{tuple(value.shape)}{cf._where()}. Reduce it with .all() or .any() to say which "
            f"truth you mean.")
    if value.dim() != 0:
        value = value.reshape(())
    return value if value.dtype == torch.bool else value != 0


def same_static(a, b) -> bool:
    if a is b:
        return True
    try:
        return bool(type(a) is type(b) and a == b)
    except Exception:  # noqa: BLE001 - an object without a truthful == is not equal
        return False
