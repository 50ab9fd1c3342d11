"""Calls of PyTorch modules from converted code: ``self.gate(x)`` runs the submodule's own
``forward`` converted, so that its ``if`` on a traced tensor is staged too.

``nn.Module.__call__`` is PyTorch's code, which converted code leaves alone; what it does
around ``forward`` is kept by calling the module itself whenever there is something to do:
hooks on the module (forward, pre-forward, backward) or hooks registered for every module, a
module compiled in place (``module.compile()``), or TorchScript's tracer. Otherwise
``module(x)`` is ``module.forward(x)``, and the converted ``forward`` bound to the module runs
instead. Imported only when PyTorch is.
"""

from __future__ import annotations

import types

import torch
from torch.nn.modules import module as _module

_INSTANCE_HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks",
                   "_backward_pre_hooks")
_GLOBAL_HOOKS = ("_global_forward_hooks", "_global_forward_pre_hooks",
                 "_global_backward_hooks", "_global_backward_pre_hooks")


def forward_to_convert(obj):
    """The ``forward`` to convert and call for ``obj(...)`` (a bound method, or the function
    set on the instance), or None when ``obj`` must be called itself: it is no module, its
    class has its own ``__call__``, or ``__call__`` would do more than call ``forward``."""
    if not isinstance(obj, torch.nn.Module) or type(obj).__call__ is not torch.nn.Module.__call__:
        return None
    if _does_more_than_forward(obj):
        return None
    forward = obj.__dict__.get("forward")
    if forward is not None:
        return forward
    function = getattr(type(obj), "forward", None)
    if not isinstance(function, types.FunctionType):
        return None
    return types.MethodType(function, obj)


def _does_more_than_forward(obj: torch.nn.Module) -> bool:
    return (any(getattr(obj, name, None) for name in _INSTANCE_HOOKS)
            or any(getattr(_module, name, None) for name in _GLOBAL_HOOKS)
            or getattr(obj, "_compiled_call_impl", None) is not None
            or torch._C._get_tracing_state() is not None)
