"""Which engine stages a statement: the staging-backend seam of the ``ag__`` operators.

The transpiler generates one code for every engine. At run time each operator (``if_stmt``,
``while_stmt``, ``for_stmt``, ``if_exp``, ``and_``/``or_``/``not_``, ``range``) asks
``backend_for(value)`` which engine the value it decides on belongs to:

* a symbolic eager2graph tensor → ``runtime_backend`` (``rt.cond`` / ``rt.while_loop``);
* a JAX tracer → ``jax_backend`` (``lax.cond`` / ``while_loop`` / ``fori_loop``);
* a traced (fake) PyTorch tensor, or a number PyTorch's trace knows only when the program
  runs (``x.item() > 0.5``) → ``torch_backend`` (``cond`` / ``while_loop``);
* anything else → ``None``: the operator runs the statement as Python.

A backend (see ``base.StagingBackend``) says how its engine builds a conditional, a while
loop and a loop over a sequence. What Python means (truth, the undefined-variable and
return/break flag values, the checks of branch outputs and their messages) lives in the
operators and is shared. A backend module, and its engine, is imported the first time one of
its values appears: the JAX check only looks at ``sys.modules``, so ``import transpiler``
never imports JAX (a program that never imported JAX cannot hold a tracer).
"""

from __future__ import annotations

import sys
from typing import Iterable

from runtime.tensor import SymbolicTensor

_loaded: dict[str, object] = {}


def _backend(name: str):
    backend = _loaded.get(name)
    if backend is None:
        if name == "runtime":
            from transpiler.operators.staging import runtime_backend as module
        elif name == "torch":
            from transpiler.operators.staging import torch_backend as module
        else:
            from transpiler.operators.staging import jax_backend as module
        backend = _loaded[name] = module.BACKEND
    return backend


def is_jax_tracer(value) -> bool:
    """Whether ``value`` is a JAX tracer, without importing JAX."""
    jax = sys.modules.get("jax")
    if jax is None:
        return False
    core = getattr(jax, "core", None)
    tracer = getattr(core, "Tracer", None)
    return tracer is not None and isinstance(value, tracer)


def is_torch_traced(value) -> bool:
    """Whether ``value`` is a PyTorch tensor whose value is unknown while it is traced (a fake
    tensor of ``torch.export``, or the functional tensor around one under ``torch.compile``),
    without importing PyTorch. A real tensor is not: on it, converted code runs as Python."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(value, getattr(torch, "Tensor", ())):
        return False
    fake_tensor = sys.modules.get("torch._subclasses.fake_tensor")
    return fake_tensor is not None and fake_tensor.is_fake(value)


# Values no engine stages, told apart by their type alone (most decisions of Python code).
_PYTHON_VALUES = frozenset((bool, int, float, str, type(None)))


def backend_for(value):
    """The backend that stages a statement deciding on ``value``; None for Python."""
    if type(value) in _PYTHON_VALUES:
        return None
    if type(value) is SymbolicTensor:
        return _backend("runtime")
    if is_jax_tracer(value):
        return _backend("jax")
    if is_torch_traced(value) or is_torch_unknown_number(value):
        return _backend("torch")
    return None


def is_torch_unknown_number(value) -> bool:
    """Whether ``value`` is a symbolic bool, int or float of a PyTorch trace that has no value
    while it is traced (``x.item()``, and what is computed from it): Python cannot decide on it
    ("Could not guard on data-dependent expression"), so the decision is staged."""
    torch = sys.modules.get("torch")
    if torch is None or type(value) not in (torch.SymBool, torch.SymInt, torch.SymFloat):
        return False
    return value.node.is_symbolic() and not value.node.has_hint()


_torch_functions: dict | None = None  # torch_builtins.FUNCTIONS, once PyTorch is imported


def library_replacement(fn):
    """A library function's version for values an engine traces, dispatching on the values
    it is called with (``torch.equal``, whose result PyTorch computes from the data, which a
    trace does not have), or None. Only engines already imported have such functions."""
    global _torch_functions
    if _torch_functions is None:
        if "torch" not in sys.modules:
            return None
        from transpiler.operators.staging import torch_builtins
        _torch_functions = torch_builtins.FUNCTIONS
    try:
        return _torch_functions.get(fn)
    except TypeError:  # unhashable callables are not library functions
        return None


def evaluated_aside(fn):
    """``fn()``; while JAX builds a jaxpr (under ``jax.jit``), in a scratch trace whose
    equations are dropped: a while loop's first test only decides which engine stages the
    loop, which traces the test again (unused, it stayed in the jaxpr)."""
    if "jax" not in sys.modules:
        return fn()
    from transpiler.operators.staging import jax_values
    return jax_values.evaluated_aside(fn)


def backend_for_any(values: Iterable):
    """The backend of the first staged value among ``values`` (``range(a, b)``'s bounds)."""
    for value in values:
        backend = backend_for(value)
        if backend is not None:
            return backend
    return None


def backend_for_bounds(bounds: Iterable):
    """The backend staging ``range(*bounds)``: the one of a staged bound, or PyTorch's for a
    symbolic int that Python's range cannot take without fixing it to the value traced: one
    known only when the program runs (``n.item()``), a size of a dimension exported as
    dynamic, or a Python int that ``torch.compile`` made dynamic after a second value (fixing
    it would compile again for every value, up to Dynamo's recompile limit)."""
    backend = backend_for_any(bounds)
    if backend is None and any(is_torch_symbolic(bound) for bound in bounds):
        return _backend("torch")
    return backend


def backend_for_loop_test(value):
    """The backend staging a while loop whose test gave ``value``: the one of a staged value,
    or PyTorch's for a comparison of symbolic ints (``i < n`` with an ``n`` that
    ``torch.compile`` made dynamic), which Python would decide by fixing ``n``."""
    backend = backend_for(value)
    if backend is None and is_torch_symbolic(value):
        return _backend("torch")
    return backend


def is_torch_symbolic(value) -> bool:
    """Whether ``value`` is a symbolic bool or int of a PyTorch trace that is no constant."""
    torch = sys.modules.get("torch")
    if torch is None or type(value) not in (torch.SymInt, torch.SymBool):
        return False
    return value.node.is_symbolic()


class StagedRange:
    """``range(start, limit, delta)`` with a bound an engine stages (a JAX tracer): iterated by
    that engine's loop. (Runtime tensors have their own range op, ``rt.range``.)"""

    __slots__ = ("start", "limit", "delta")

    def __init__(self, start, limit, delta):
        self.start, self.limit, self.delta = start, limit, delta

    @staticmethod
    def of(*args) -> "StagedRange":
        """``range(*args)``'s bounds, as Python reads its one, two or three arguments."""
        if len(args) == 1:
            return StagedRange(0, args[0], 1)
        start, limit, *delta = args
        return StagedRange(start, limit, delta[0] if delta else 1)

    def __reversed__(self) -> "StagedRange":
        """``reversed(range(start, limit, delta))``: the range counting down from its last
        element, ``start + k * delta`` for the largest ``k`` it reaches, to just past
        ``start``; empty when this one is (its last would then lie before ``start``)."""
        start, limit, delta = self.start, self.limit, self.delta
        # A whole step towards the limit, less one, rounds the distance to the last element.
        sign = (1 if delta > 0 else -1) if isinstance(delta, int) else (delta > 0) * 2 - 1
        last = start + ((limit - start - sign) // delta) * delta
        return StagedRange(last, start - delta, -delta)

    def __repr__(self) -> str:
        return f"StagedRange({self.start!r}, {self.limit!r}, {self.delta!r})"


def backend_for_runtime():
    """The runtime backend (for values the runtime stages by context rather than by type, such
    as a tensor made while tracing in a while loop's test, or a staged list)."""
    return _backend("runtime")
