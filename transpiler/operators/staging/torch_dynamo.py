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

import torch


def outside_dynamo(public):
    """``public`` (what ``convert`` hands out) marked as a call Dynamo does not trace into.

    The marked wrapper gets a code object of its own: Dynamo caches what it compiled per code
    object, and with one code shared by every converted function a compiled function could
    run another's graph."""
    marked = torch._dynamo.nonstrict_trace(public)
    marked.__code__ = marked.__code__.replace(co_name=getattr(public, "__name__", "converted"))
    return marked
