"""Keeping the conversion machinery out of what Dynamo traces (``torch.compile``).

Dynamo runs a compiled function's bytecode symbolically. Run that way, converted code fails
where plain Python does not: the lock the transpiler takes to convert a called function,
the weak references of its caches, the closures that carry a block's state ("weak object has
gone away", "Reconstruction failure ... CellVariable"). So a converted function is an opaque
call for Dynamo (``torch._dynamo.nonstrict_trace``): Dynamo records the call without entering
it, and AOTAutograd then runs it as Python on traced tensors, where the PyTorch backend stages
its control flow (``torch_backend``). With ``backend="eager"`` the function simply runs on the
real tensors, as Python. Imported only when PyTorch is.
"""

from __future__ import annotations

from typing import Callable

import torch
from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
from torch.utils import _pytree as pytree

from transpiler.operators.staging import torch_indexing

# What an opaque call takes and returns must be tensors, numbers and containers of them; a
# static value (None, a string) stands in for itself as a one-key dict whose key holds it. Dict
# keys are part of the structure Dynamo records, so Dynamo knows the value, and the wrappers put
# it back.
_STATIC_KEY = "__eager2graph_static__"
_STATIC_TYPES = (type(None), str, bytes, type(Ellipsis))


def outside_dynamo(converted: Callable) -> Callable:
    """``converted`` as a call Dynamo does not trace into: under ``torch.compile`` it calls
    the marked function, passing the static values of its arguments and its result (None for
    an optional bias or mask, a string) through the call; run as Python (eagerly), it calls
    ``converted`` directly."""
    marked = torch._dynamo.nonstrict_trace(
        lambda *args, **kwargs: _boxed(_run_traced(
            converted, *_unboxed(args), **_unboxed(kwargs))))

    def call(*args, **kwargs):
        if not torch.compiler.is_compiling():
            return converted(*args, **kwargs)
        return _unboxed(marked(*_boxed(args), **_boxed(kwargs)))

    return call


def _run_traced(fn: Callable, *args, **kwargs):
    """``fn(*args, **kwargs)`` as PyTorch traces it: indexing by 0-d integer tensors reads
    them as symbolic integers (``torch_indexing``), and of the new symbols of values known only
    when the program runs (``x.item()``), only those its result holds (a size of ``x[x > 0]``)
    stay pending: Dynamo requires each such symbol made in an opaque call to appear in what the
    call returns, and a staged ``if x.item() > 0.5`` makes one that only its condition uses."""
    shape_env = getattr(torch._guards.detect_fake_mode(), "shape_env", None)
    if shape_env is None:
        with torch_indexing.IndexingByIntegerTensors():
            return fn(*args, **kwargs)
    first_new = len(shape_env.pending_fresh_unbacked_symbols)
    with torch_indexing.IndexingByIntegerTensors():
        result = fn(*args, **kwargs)
    held = set().union(*(free_unbacked_symbols(leaf) for leaf in pytree.tree_leaves(result)
                         if isinstance(leaf, (torch.Tensor, torch.SymInt, torch.SymFloat,
                                              torch.SymBool))))
    pending = shape_env.pending_fresh_unbacked_symbols
    pending[first_new:] = [symbol for symbol in pending[first_new:] if symbol in held]
    return result


def _boxed(value):
    if isinstance(value, _STATIC_TYPES):
        return {_STATIC_KEY: {value: ()}}
    if type(value) in (tuple, list):
        return type(value)(_boxed(item) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_boxed(item) for item in value))
    if type(value) is dict:
        if _STATIC_KEY in value:
            raise ValueError(f"A converted function returned a dict with the key "
                             f"{_STATIC_KEY!r}, which eager2graph reserves to pass static "
                             f"values through torch.compile. Rename the key.")
        return {key: _boxed(item) for key, item in value.items()}
    return value


def _unboxed(value):
    if type(value) in (tuple, list):
        return type(value)(_unboxed(item) for item in value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_unboxed(item) for item in value))
    if type(value) is dict:
        if len(value) == 1 and _STATIC_KEY in value:
            (static,) = value[_STATIC_KEY]
            return static
        return {key: _unboxed(item) for key, item in value.items()}
    return value
